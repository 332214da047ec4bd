#!/bin/sh
# check-layers.sh -- every #include of src/, include/ and tools/ against
# the project's layering; part of `make test` (scripts/suite.py).
#
# Design note: the modules stand on each other in one direction,
#     common <- net <- world <- game <- match <- server
# with three modules beside the chain:
#     prof    the measurements: common only.  It is handed numbers (net
#             totals, slots, byte counts) through its own API and never
#             sees a socket, a client or a map, so the server can call it
#             and the tests can drive it with made-up figures; the
#             operator's commands that print them are the server's.
#     capture the session recordings (pcap of the datagrams, action file
#             of one client's usercmds): common and net only; handed
#             addresses and usercmds, never a client or a map.
#     client  the protocol-28 client library, the MVD reader and the QTV
#             client: common and net (its netchan) only.
#     pool    the worker threads of the parallel frame: common only; it
#             runs a function over items and never sees what they are.
#     sched   the parallel frame's SCHEDULE as pure functions (union-find,
#             LPT): nothing at all; handed node ids and weights, never a
#             client or an entity.
#     metrics the Prometheus page's writer and its HTTP endpoint: common
#             only (the histogram); handed numbers and names by the
#             server's page builder, never a client or a map.
# match (KTX's match layer: prewar, ready, countdown, modes) stands on the
# game's public API only and never sees the server (which drives it
# through qwd/match.h); and server, the top, may use prof, capture, pool,
# sched, metrics beside
# the chain.  The
# formats both server and client speak are common's: the wire's numbers
# (qwd/protocol.h), the MVD/QTV format (qwd/mvd.h), the action file
# (qwd/actions.h).  A module's public header is include/qwd/<name>.h (the
# map below says which module owns which header), and the header counts
# as part of its module: it may include what its module may.  A module's
# src/<module>/internal.h is for that folder only.  Tools (tools/<tool>/) may include any public header, the
# tools' library (tools/lib: qwtools.h) and the headers of their own
# folder, never another tool's files or a module's internal.h; tests
# (tests/) may include anything and are not checked.
# Known exceptions are listed below, each with what must change; a listed
# exception that no longer occurs fails the check too, so the list only
# shrinks (delete its line).
# Inside the server module the same holds between its layers (base, core,
# features, top): scripts/server-layers.py checks those, by includes and by
# calls, and counts here as one check.
# Output: one line per violation, then "layers: N passed, M failed" (N and
# M count files); exit 1 on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2

# public header -> module
header_module() {
	case $1 in
	common.h | protocol.h | actions.h | mvd.h) echo common ;;
	net.h) echo net ;;
	world.h) echo world ;;
	game.h) echo game ;;
	match.h) echo match ;;
	server.h) echo server ;;
	prof.h) echo prof ;;
	capture.h) echo capture ;;
	client.h) echo client ;;
	pool.h) echo pool ;;
	sched.h) echo sched ;;
	metrics.h) echo metrics ;;
	*) echo "?" ;;
	esac
}

# module -> the modules it may include (itself included)
allowed() {
	case $1 in
	common) echo "common" ;;
	net) echo "common net" ;;
	world) echo "common net world" ;;
	game) echo "common net world game" ;;
	match) echo "common net world game match" ;;
	server) echo "common net world game match server prof capture pool sched metrics" ;;
	prof) echo "common prof" ;;
	capture) echo "common net capture" ;;
	client) echo "common net client" ;;
	pool) echo "common pool" ;;
	sched) echo "sched" ;;
	metrics) echo "common metrics" ;;
	*) echo "" ;;
	esac
}

# file -> included header, as "FILE HEADER" lines; the reason it is
# tolerated and what must change in the comment above each
KNOWN="
"

known_tmp=$(mktemp)
seen_tmp=$(mktemp)
trap 'rm -f "$known_tmp" "$seen_tmp"' EXIT
printf '%s\n' "$KNOWN" | sed -n 's/^\([^#][^ ]*\) \([^ ]*\)$/\1 \2/p' >"$known_tmp"

passed=0
failed=0

# check FILE KIND OWNER: KIND is module or tool, OWNER its name
check() {
	file=$1 kind=$2 owner=$3 ok=1
	dir=$(dirname "$file")
	for inc in $(sed -n 's/^[ 	]*#[ 	]*include[ 	]*[<"]\([^">]*\)[">].*/\1/p' "$file"); do
		bad=""
		case $inc in
		qwd/*)
			m=$(header_module "${inc#qwd/}")
			if [ "$m" = "?" ]; then
				bad="$inc is not a known public header (add it to check-layers.sh)"
			elif [ "$kind" = module ]; then
				case " $(allowed "$owner") " in
				*" $m "*) ;;
				*) bad="$owner may not include $inc ($m); $owner may use: $(allowed "$owner")" ;;
				esac
			fi
			;;
		internal.h)
			[ "$kind" = module ] && [ "$dir" = "src/$owner" ] ||
				bad="internal.h is private to its own src/ folder"
			;;
		*/*)
			# a path: only a system header (<linux/...>, <pcap/...>)
			if grep -q "^[ 	]*#[ 	]*include[ 	]*\"$inc\"" "$file"; then
				bad="$inc reaches into another folder"
			fi
			;;
		*)
			if grep -q "^[ 	]*#[ 	]*include[ 	]*\"$inc\"" "$file"; then
				if [ "$inc" = qwtools.h ]; then
					[ "$kind" = tool ] || bad="qwtools.h is the tools' library"
				elif [ ! -f "$dir/$inc" ]; then
					bad="$inc is not a header of $dir"
				fi
			fi
			;;
		esac
		[ -n "$bad" ] || continue
		if grep -qx "$file $inc" "$known_tmp"; then
			echo "$file $inc" >>"$seen_tmp"
			continue
		fi
		echo "layers: $file: $bad"
		ok=0
	done
	if [ $ok -eq 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

for f in src/*/*.c src/*/*.h; do
	[ -f "$f" ] || continue
	m=${f#src/}
	check "$f" module "${m%%/*}"
done
for f in include/qwd/*.h; do
	m=$(header_module "${f##*/}")
	if [ "$m" = "?" ]; then
		echo "layers: $f: not a known public header (add it to check-layers.sh)"
		failed=$((failed + 1))
		continue
	fi
	check "$f" module "$m"
done
for f in tools/*/*.c tools/*/*.h; do
	[ -f "$f" ] || continue
	t=${f#tools/}
	check "$f" tool "${t%%/*}"
done

# a known exception that no longer occurs: the list must shrink with it
while read -r file inc; do
	if ! grep -qx "$file $inc" "$seen_tmp"; then
		echo "layers: known exception \"$file $inc\" no longer occurs: delete it from scripts/check-layers.sh"
		failed=$((failed + 1))
	fi
done <"$known_tmp"
n=$(wc -l <"$known_tmp")
[ "$n" -gt 0 ] && echo "layers: $n known exception(s) tolerated (listed in scripts/check-layers.sh)"

# inside the server module: its layers, by includes and calls
# (scripts/server-layers.py says how)
if ! python3 scripts/server-layers.py src/server; then
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi

echo "layers: $passed passed, $failed failed"
[ $failed -eq 0 ]
