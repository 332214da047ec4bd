#!/bin/sh
# tests/fuzz/run.sh SECONDS -- fuzz the map loader, the entity parser and
# the packet parsers (server and client library).
#
# Design note: `make fuzz FUZZ_SECONDS=N` builds the targets (fuzz.mk) and
# runs this from the repository root.  The map loader stages keep half of
# N, the packet targets share the other half:
#   loader  N/2: bsp-small N/8, bsp N/8, ent N/4
#   packets N/2: oob, game, client, stringcmd, console, mapsrc, actions
#               and metrics N/16 each
# Each run is one in-process libFuzzer (the same as -jobs=1 -workers=1,
# without the fork and the fuzz-0.log indirection), with -rss_limit_mb=4096
# (also the largest single malloc allowed) and -timeout=30 s per input.
#
#   bsp-small  fuzz_bsp, corpus fuzz-out/corpus-bsp-small: the synthetic
#              maps of mkseeds (BSP29 with and without vis, BSP2, 2PSB;
#              2 KB each) and the real maps up to 128 KiB, with -max_len
#              128 KiB.  Small inputs run some 10,000 times a second, 20
#              times the rate of the big ones: most loader bugs are found
#              here.
#   bsp        fuzz_bsp, corpus fuzz-out/corpus-bsp: the same seeds and the
#              real maps up to -max_len (FUZZ_BSP_MAX_LEN, 1 MiB), so real
#              trees, textures and vis data get mutated too.  Larger maps
#              are left out: libFuzzer would cut them to max_len and the
#              loader would refuse the stump at the header, which the
#              synthetic maps already cover.
#   ent        fuzz_entities, corpus fuzz-out/corpus-ent: hand-written
#              entity texts and the entity lump of every real map (max_len
#              FUZZ_ENT_MAX_LEN, 512 KiB: lqdm5's 339 KiB lump fits).
#   oob        fuzz_oob, corpus fuzz-out/corpus-oob, max_len 2048: the
#              server's connectionless packets (status, connect, rcon...).
#   game       fuzz_game, corpus fuzz-out/corpus-game, max_len 1500: a
#              connected client's datagrams and the reply built for them
#              (seeds: mkpackets' session and tests/fuzz/seeds/game, the
#              inputs of fixed findings).
#   client     fuzz_client, corpus fuzz-out/corpus-client, max_len 1600:
#              the client library reading what a server sends.
#   stringcmd  fuzz_stringcmd, corpus fuzz-out/corpus-stringcmd, max_len
#              1400: text lines as a connected client's string commands
#              (seeds: tests/fuzz/seeds/stringcmd).
#   console    fuzz_console, corpus fuzz-out/corpus-console, max_len 8192:
#              a server.cfg run with exec (seeds: tests/fuzz/seeds/console).
#   mapsrc     fuzz_mapsrc, corpus fuzz-out/corpus-mapsrc, max_len 16384:
#              qwmap's .map reader and compiler (seeds: maps/*.map and
#              tests/qwmap/maps/*.map).
#   actions    fuzz_actions, corpus fuzz-out/corpus-actions, max_len 4096:
#              the action-file reader (seeds: tests/fuzz/seeds/actions).
#   metrics    fuzz_metrics, corpus fuzz-out/corpus-metrics, max_len 4096:
#              the metrics page's label escaping and the endpoint's request
#              dispatch (seeds: tests/fuzz/seeds/metrics); an eighth of the
#              packet targets' half like actions.
#   match      fuzz_match, corpus fuzz-out/corpus-match, max_len 4096: the
#              match layer's settings and its commands' words (seeds:
#              tests/fuzz/seeds/match); an eighth like actions.
# The targets that write files (console's fuzz.cfg, the download tests of
# the packet targets) do so under TMPDIR, /dev/shm here when it is
# writable (FUZZ_TMPDIR overrides): on a disk the writes take 40% of the
# console target's time.
# The packet targets run a server in-process on a map: lqdm11.bsp from
# the realmaps (QWD_FUZZ_MAP overrides), else the bundled map
# build/maps/small.bsp (make builds it), else mkseeds' synthetic map.
#
# FUZZ_RUNS=N runs each target for N inputs instead of a time
# (libFuzzer's -runs; SECONDS is then ignored), the way the executions
# per target are reported; FUZZ_TARGETS="mapsrc actions ..." runs only
# the named ones (names as above).
# Their seeds come from mkpackets, which runs the targets' own scripted
# session and captures every datagram (tests/fuzz/mkpackets.c).
#
# Real maps come from ${QWD_REALMAPS:-../shared/realmaps}; without them the
# synthetic seeds alone are used.  The corpora stay between runs and grow
# (libFuzzer adds every input that reaches new code), so later runs start
# further in; delete fuzz-out/ to start over.
#
# In-process libFuzzer stops at its first finding, so one known bug that is
# quick to hit hides every other.  FUZZ_KEEP_GOING=1 runs each target in
# libFuzzer's fork mode instead (-fork=1 -ignore_crashes=1 -ignore_timeouts=1
# -ignore_ooms=1): it records every failing input and fuzzes on.
#
# Output per run: inputs executed (libFuzzer's "Done N runs", its final
# stats after a crash, or the last fork-mode status line), coverage, corpus
# size and the findings of this run: files fuzz-out/<run>-{crash,leak,
# timeout,oom}-<sha1> newer than the start of the run.  Crashes and leaks
# are replayed once and grouped by their cause (the target's contract
# message, the sanitizer's summary line, or the first frame of a leak).
# Replay one by hand to see the whole stack:
#   build/fuzz/fuzz_bsp fuzz-out/bsp-crash-<sha1>
# (the packet targets need the same map: QWD_FUZZ_MAP as printed).
# Full logs: fuzz-out/<run>.log.
# Exit status: 0 when nothing was found, 1 on a finding, 2 on a usage or
# build error.
set -u

secs=${1:-600}
case $secs in
'' | *[!0-9]*)
	echo "usage: $0 SECONDS" >&2
	exit 2
	;;
esac
half=$((secs / 2))
[ "$half" -ge 4 ] || half=4
quarter=$((half / 4))
packets=$((secs - half))
[ "$packets" -ge 8 ] || packets=8
eighth=$((packets / 8))

build=${FUZZ_BUILD:-build/fuzz}
out=${FUZZ_OUT:-fuzz-out}
maps=${QWD_REALMAPS:-../shared/realmaps}
small_max=131072
bsp_max=${FUZZ_BSP_MAX_LEN:-1048576}
ent_max=${FUZZ_ENT_MAX_LEN:-524288}
keep_going=${FUZZ_KEEP_GOING:-0}
if [ -n "${FUZZ_TMPDIR:-}" ]; then
	TMPDIR=$FUZZ_TMPDIR
	export TMPDIR
elif [ -d /dev/shm ] && [ -w /dev/shm ]; then
	TMPDIR=/dev/shm
	export TMPDIR
fi

# a no-op when make fuzz has just built everything
if ! make --no-print-directory -s -f tests/fuzz/fuzz.mk FUZZ_BUILD="$build"; then
	echo "fuzz: build failed" >&2
	exit 2
fi

# --- seeds ---------------------------------------------------------------
for c in corpus-bsp-small corpus-bsp corpus-ent corpus-oob corpus-game \
	corpus-client corpus-stringcmd corpus-console corpus-mapsrc \
	corpus-actions corpus-metrics; do
	mkdir -p "$out/$c" || exit 2
done
# the committed seeds (copied, so the corpora may grow): the text targets'
# and the packet sessions of fixed findings
for t in game stringcmd console actions metrics; do
	cp -n tests/fuzz/seeds/$t/* "$out/corpus-$t/" || exit 2
done
for m in maps/*.map tests/qwmap/maps/*.map; do
	[ "$(wc -c <"$m")" -le 16384 ] && cp -n "$m" "$out/corpus-mapsrc/"
done
"$build/mkseeds" bsp "$out/corpus-bsp-small" || exit 2
"$build/mkseeds" bsp "$out/corpus-bsp" || exit 2

# copy_map MAP CORPUS MAXLEN: copy once; the shared maps are read-only and
# the copies need not be
copy_map() {
	seed="$2/real-$(basename "$1")"
	[ "$(wc -c <"$1")" -le "$3" ] || return 0
	[ -f "$seed" ] || { cp "$1" "$seed" && chmod u+w "$seed"; }
}

if [ -d "$maps" ]; then
	for m in "$maps"/*.bsp; do
		[ -f "$m" ] || continue
		copy_map "$m" "$out/corpus-bsp-small" "$small_max" || exit 2
		copy_map "$m" "$out/corpus-bsp" "$bsp_max" || exit 2
	done
	echo "fuzz: seeds from $maps"
	"$build/mkseeds" ent "$out/corpus-ent" "$maps"/*.bsp || exit 2
else
	echo "fuzz: no real maps in '$maps' (set QWD_REALMAPS); synthetic seeds only"
	"$build/mkseeds" ent "$out/corpus-ent" || exit 2
fi

# the packet targets' map; mkpackets must see the same one
if [ -z "${QWD_FUZZ_MAP:-}" ]; then
	QWD_FUZZ_MAP="$maps/lqdm11.bsp"
	[ -f "$QWD_FUZZ_MAP" ] || QWD_FUZZ_MAP=build/maps/small.bsp
	[ -f "$QWD_FUZZ_MAP" ] || QWD_FUZZ_MAP="$out/corpus-bsp-small/synth-bsp29.bsp"
fi
export QWD_FUZZ_MAP
echo "fuzz: packet targets on QWD_FUZZ_MAP=$QWD_FUZZ_MAP"
"$build/mkpackets" "$out/corpus-oob" "$out/corpus-game" \
	"$out/corpus-client" 2>"$out/mkpackets.log" ||
	{ echo "fuzz: mkpackets failed:" >&2; cat "$out/mkpackets.log" >&2; exit 2; }

stamp="$out/.run-start"
: >"$stamp"
sleep 1 # artifacts of this run must be strictly newer than the stamp

status=0

# signature BINARY INPUT: one line naming the cause of a failing input
signature() {
	timeout 300 "$1" -rss_limit_mb=4096 "$2" 2>&1 | awk '
	/contract broken/ {
		sub(/^.*contract broken( \([^)]*\))?: /, "contract: ")
		sub(/ \[[-0-9 ]*\]$/, ""); print; exit
	}
	/: runtime error: / {
		at = $0; sub(/: runtime error: .*/, "", at); sub(/^.*\//, "", at)
		msg = $0; sub(/^.*: runtime error: /, "", msg)
		gsub(/0x[0-9a-f]+|[0-9]+/, "N", msg)
		print "ubsan: " at ": " msg; exit
	}
	/^SUMMARY: AddressSanitizer: / && !/leaked/ {
		sub(/^SUMMARY: AddressSanitizer: /, "asan: "); print; exit
	}
	/^(Direct|Indirect) leak of/ { leak = 1; next }
	leak && / #[0-9]+ .* in / && !/ in (malloc|calloc|realloc|strdup)/ {
		sub(/^.* in /, "leak: allocated in "); print; exit
	}
	/^SUMMARY: libFuzzer: / { sub(/^SUMMARY: /, ""); last = $0 }
	END { if (last != "") print last }' | head -n 1
}

# run_target NAME BINARY SECONDS MAX_LEN DICT CORPUS
run_target() {
	name=$1 bin=$2 t=$3 maxlen=$4 dict=$5 corpus=$6
	log="$out/$name.log"
	mode=""
	case " ${FUZZ_TARGETS:-$name} " in
	*" $name "*) ;;
	*) return 0 ;;
	esac
	[ "$keep_going" = 1 ] &&
		mode="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
	budget="-max_total_time=$t" what="${t} s"
	[ -n "${FUZZ_RUNS:-}" ] && budget="-runs=$FUZZ_RUNS" what="$FUZZ_RUNS runs"
	[ -n "$dict" ] && mode="$mode -dict=$dict"

	echo "fuzz: $name for $what (log $log)"
	# shellcheck disable=SC2086
	"$bin" $mode $budget -rss_limit_mb=4096 -timeout=30 \
		-max_len="$maxlen" -print_final_stats=1 \
		-artifact_prefix="$out/$name-" "$corpus" >"$log" 2>&1
	rc=$?

	runs=$(sed -n 's/^Done \([0-9][0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
	[ -n "$runs" ] ||
		runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
	[ -n "$runs" ] ||
		runs=$(sed -n 's/^#\([0-9][0-9]*\): cov:.*/\1/p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
	files=$(find "$corpus" -type f | wc -l)
	found=$(find "$out" -maxdepth 1 -type f -newer "$stamp" \
		\( -name "$name-crash-*" -o -name "$name-leak-*" \
		-o -name "$name-timeout-*" -o -name "$name-oom-*" \) | sort)
	nfound=0
	[ -z "$found" ] || nfound=$(echo "$found" | wc -l)

	printf '%-10s %10s runs  %-20s corpus %5d files  findings %d  (exit %d)\n' \
		"$name" "${runs:-?}" "${cov:-cov: ?}" "$files" "$nfound" "$rc"
	if [ "$nfound" -eq 0 ] && [ "$rc" -ne 0 ]; then
		status=1
		echo "    libFuzzer failed without an artifact; the end of $log:"
		tail -n 5 "$log" | sed 's/^/    /'
	fi
	[ "$nfound" -gt 0 ] || return 0
	status=1
	# group the findings by cause; replay at most 30 of them
	n=0
	for f in $found; do
		n=$((n + 1))
		[ $n -le 30 ] || break
		case $f in
		*-timeout-*) s="timeout (over 30 s for one input)" ;;
		*-oom-*) s="out of memory (over 4096 MB)" ;;
		*) s=$(signature "$bin" "$f") ;;
		esac
		printf '%s\t%s\n' "${s:-unknown}" "$f"
	done | sort | awk -F '\t' '
		$1 != prev { if (prev != "") print "    " c " x " prev "\n        e.g. " ex
			     prev = $1; c = 0; ex = $2 }
		{ c++ }
		END { if (prev != "") print "    " c " x " prev "\n        e.g. " ex }'
	[ "$nfound" -le 30 ] || echo "    (only the first 30 of $nfound replayed)"
	echo "    replay: $bin <file>"
}

run_target bsp-small "$build/fuzz_bsp" "$quarter" "$small_max" \
	tests/fuzz/bsp.dict "$out/corpus-bsp-small"
run_target bsp "$build/fuzz_bsp" "$quarter" "$bsp_max" \
	tests/fuzz/bsp.dict "$out/corpus-bsp"
run_target ent "$build/fuzz_entities" "$((half - 2 * quarter))" "$ent_max" \
	tests/fuzz/entities.dict "$out/corpus-ent"
run_target oob "$build/fuzz_oob" "$eighth" 2048 \
	tests/fuzz/oob.dict "$out/corpus-oob"
run_target game "$build/fuzz_game" "$eighth" 1500 \
	tests/fuzz/game.dict "$out/corpus-game"
run_target client "$build/fuzz_client" "$eighth" 1600 \
	tests/fuzz/client.dict "$out/corpus-client"
run_target stringcmd "$build/fuzz_stringcmd" "$eighth" 1400 \
	"" "$out/corpus-stringcmd"
run_target console "$build/fuzz_console" "$eighth" 8192 \
	"" "$out/corpus-console"
run_target mapsrc "$build/fuzz_mapsrc" "$eighth" 16384 \
	"" "$out/corpus-mapsrc"
run_target actions "$build/fuzz_actions" "$eighth" 4096 \
	"" "$out/corpus-actions"
run_target metrics "$build/fuzz_metrics" "$eighth" 4096 \
	"" "$out/corpus-metrics"
run_target match "$build/fuzz_match" "$eighth" 4096 \
	"" "$out/corpus-match"

if [ $status -ne 0 ]; then
	echo "fuzz: FINDINGS (see above and $out/*.log)"
else
	echo "fuzz: no findings"
fi
exit $status
