#!/bin/sh
# tests/interop/qwbots-mvdsv.sh BUILD -- qwbots plays on MVDSV with KTX.
#
# Design note: the proof that the bots speak real QuakeWorld.  MVDSV 0.35
# with the KTX mod (Debian packages mvdsv and ktx, installed here when
# missing: Debian, root) serves the project's small map (build/maps, made
# by `make maps`; $QWD_MAPS_DIR overrides) in a temporary base directory
# laid out as MVDSV wants it: id1/maps/<map>.bsp with the project's own
# item box models (build/maps/b_*.bsp, which KTX precaches), and the game
# directory ktx/ holding links to the package's data
# (/usr/share/games/quake/ktx: configs, qwprogs.so -> the native module in
# /usr/lib/quakeworld/ktx).  KTX's stock configuration is used unchanged,
# sv_getrealip 2 included (the server stuffs "packet ... ip" and drops a
# client that does not answer it).
# Then 8 qwbots (stock protocol 28, the random walker, 30 requests/s)
# play 10 s.  Checked, one result each: qwbots exits 0 (every bot reached
# the game), the JSON shows 8 bots in the game, every bot moved, replies
# answered more than 90% of the requests, no reply failed to parse, and
# the bots saw each other.  The JSON is kept in build/artifacts/.
# As an extra, the same run on a community map (lqdm1 from
# $QWD_REALMAPS, by default ../shared/realmaps) when that folder is there;
# without it that run is skipped and says so.  Prints "qwbots-mvdsv: N
# passed, M failed" (", K skipped (why)" when the extra was skipped) as
# its last line.
set -u

build=${1:-build}
maps=${QWD_MAPS_DIR:-build/maps}
real=${QWD_REALMAPS:-../shared/realmaps}
bots=8
art=build/artifacts
mkdir -p "$art"
passed=0
failed=0
skipped=0
why=""

finish() {
	if [ "$skipped" -gt 0 ]; then
		echo "qwbots-mvdsv: $passed passed, $failed failed, $skipped skipped ($why)"
	else
		echo "qwbots-mvdsv: $passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ] && exit 0
	exit 1
}

check() {	# check NAME CONDITION-STATUS
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "qwbots-mvdsv: ok: $1"
	else
		failed=$((failed + 1))
		echo "qwbots-mvdsv: FAILED: $1"
	fi
}

[ -x "$build/qwbots" ] || { check "$build/qwbots exists (make first)" 1; finish; }
[ -f "$maps/small.bsp" ] || { check "$maps/small.bsp exists (make maps)" 1; finish; }
set -- "$maps"/b_*.bsp
[ -f "$1" ] || { check "$maps/b_*.bsp exist (make maps)" 1; finish; }

missing=""
[ -n "$(dpkg -L mvdsv 2>/dev/null | grep '/mvdsv$' | head -1)" ] || missing="$missing mvdsv"
[ -f /usr/lib/quakeworld/ktx/qwprogs.so ] || missing="$missing ktx"
if [ -n "$missing" ]; then
	echo "qwbots-mvdsv: installing$missing"
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		check "needs$missing (Debian packages)" 1
		finish
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null ||
		{ check "install$missing" 1; finish; }
fi
mvdsv=$(dpkg -L mvdsv | grep '/mvdsv$' | head -1)
ktxdata=/usr/share/games/quake/ktx

work=$(mktemp -d)
mvdsv_pid=""
trap '[ -n "$mvdsv_pid" ] && kill $mvdsv_pid 2>/dev/null; rm -rf "$work"' EXIT

. "$(dirname "$0")/lib/port.sh"
port=$(free_port)

# the first "key": number in the JSON (the totals come before the bots)
num() {
	sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p" "$json" 2>/dev/null | head -1
}
ge() {	# ge A B: A >= B (decimals)
	awk -v a="${1:-0}" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'
}

# play MAP BSP: MVDSV serves the map, the bots play it, six checks
play() {
	map=$1
	base="$work/$map"
	json="$base/mvdsv.json"
	mkdir -p "$base/id1/maps" "$base/ktx"
	cp "$2" "$base/id1/maps/$map.bsp"
	cp "$maps"/b_*.bsp "$base/id1/maps/"
	for f in "$ktxdata"/*; do
		ln -s "$f" "$base/ktx/$(basename "$f")"
	done
	[ -e "$base/ktx/qwprogs.so" ] || ln -s /usr/lib/quakeworld/ktx/qwprogs.so "$base/ktx/qwprogs.so"

	(cd "$base" && exec "$mvdsv" -basedir "$base" -game ktx -port $port +map $map \
		>"$base/mvdsv.log" 2>&1) &
	mvdsv_pid=$!
	sleep 2
	if ! kill -0 $mvdsv_pid 2>/dev/null; then
		cat "$base/mvdsv.log"
		mvdsv_pid=""
		check "$map: mvdsv starts" 1
		return
	fi

	timeout -k 5 90 "$build/qwbots" --server 127.0.0.1:$port --bots $bots --rate 30 \
		--duration 10 --map "$base/id1/maps/$map.bsp" --qwdx off --seed 1 \
		--json "$json" --no-progress >"$base/qwbots.out" 2>&1
	status=$?
	kill $mvdsv_pid 2>/dev/null
	wait $mvdsv_pid 2>/dev/null
	mvdsv_pid=""
	cat "$base/qwbots.out"
	[ -f "$json" ] && cp "$json" "$art/qwbots-mvdsv-$map.json"

	check "$map: qwbots exits 0: every bot reached the game (status $status)" \
		$([ $status -eq 0 ]; echo $?)
	check "$map: $bots bots in the game at the end ($(num bots_in_game))" \
		$(ge "$(num bots_in_game)" $bots; echo $?)
	stood=$(grep -c '"moved": 0,' "$json" 2>/dev/null)
	check "$map: every bot moved (${stood:-?} did not)" \
		$([ -f "$json" ] && [ "${stood:-1}" -eq 0 ]; echo $?)
	check "$map: response rate $(num response_rate) > 0.9" \
		$(ge "$(num response_rate)" 0.9; echo $?)
	check "$map: every reply parsed (bad replies: $(num bad_total))" \
		$([ "$(num bad_total)" = 0 ]; echo $?)
	check "$map: bots saw each other (players per reply at most $(num players_max))" \
		$(ge "$(num players_max)" 2; echo $?)
}

play small "$maps/small.bsp"
if [ -f "$real/lqdm1.bsp" ]; then
	play lqdm1 "$real/lqdm1.bsp"
else
	echo "qwbots-mvdsv: no $real/lqdm1.bsp: the community-map run is skipped"
	skipped=6
	why="no community map lqdm1.bsp in \$QWD_REALMAPS or ../shared/realmaps"
fi
finish
