#!/bin/sh
# tests/interop/qwexp-overhead-smoke.sh BUILD -- the overhead benchmark
# (qwexp.py overhead) end to end, tiny.
#
# Design note: 4 players, 1 repeat, 3 s windows, and a callgrind pass of
# 2 bots for 2 s when valgrind is installed; into a temporary folder.
# Checks what a reader of the results relies on: the runner exits 0;
# overhead.csv has one row per configuration (off, timers, counters) with
# every bot in the game, a server CPU figure per 1000 replies, and the
# instruments really in the state asked for (the stats lines say
# "timers":false for off only; counters open only in the third, in some
# mode other than off); overhead-summary.csv has the three with the
# overheads of the two against "off"; report.md has the section, the
# test description and the note on software counters when that is the
# mode; with valgrind, overhead-callgrind.csv has three rows with
# instructions per reply and a profiler share, and the profiler's share
# of "off" is below that of "timers".  About 40 s.
# Prints "qwexp-overhead-smoke: N passed, M failed" as its last line.
set -u

build=${1:-build}
passed=0
failed=0
skipped=0

finish() {
	if [ "$skipped" -gt 0 ]; then
		echo "qwexp-overhead-smoke: $passed passed, $failed failed, $skipped skipped"
	else
		echo "qwexp-overhead-smoke: $passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
	exit
}

check() {	# check NAME STATUS
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "qwexp-overhead-smoke: ok: $1"
	else
		failed=$((failed + 1))
		echo "qwexp-overhead-smoke: FAILED: $1"
	fi
}

for p in qwd qwbots; do
	[ -x "$build/$p" ] || { check "$build/$p exists (make first)" 1; finish; }
done
command -v taskset >/dev/null 2>&1 || { check "taskset (util-linux) is installed" 1; finish; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cg=--no-callgrind
if command -v valgrind >/dev/null 2>&1 && command -v callgrind_annotate >/dev/null 2>&1; then
	cg="--callgrind-bots 2 --callgrind-duration 2"
fi
# shellcheck disable=SC2086
python3 tools/experiment/qwexp.py overhead --players 4 --repeat 1 --duration 3 --warmup 1 \
	$cg --no-plots --build "$build" --out "$work" >"$work/qwexp.log" 2>&1
status=$?
cat "$work/qwexp.log"
check "qwexp overhead exits 0 (status $status)" $status

csv=$work/overhead.csv
check "overhead.csv has a header and 3 rows" \
	"$([ -f "$csv" ] && [ "$(wc -l <"$csv")" -eq 4 ]; echo $?)"

# row_ok CONFIG TIMERS COUNTERS-OFF(1/0)
row_ok() {
	awk -F, -v k="$1" -v t="$2" -v co="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		function v(x) { return $(c[x]) }
		$1 == k {
			found = 1; bad = ""
			if (v("in_game") != 4) bad = bad " in_game=" v("in_game")
			# plausible, not a performance bar (a loaded machine answers less)
			if (v("response_rate") < 0.5) bad = bad " response_rate=" v("response_rate")
			if (v("srv_cpu_s_per_1000_replies") == "" || v("srv_cpu_s_per_1000_replies") <= 0) bad = bad " cpu_per_1000=" v("srv_cpu_s_per_1000_replies")
			if (v("timers") != t) bad = bad " timers=" v("timers")
			if (co == 1 && v("counter_mode") != "off") bad = bad " counter_mode=" v("counter_mode")
			if (co == 0 && (v("counter_mode") == "off" || v("counter_mode") == "")) bad = bad " counter_mode=" v("counter_mode")
		}
		END {
			if (!found) { print "no row"; exit 1 }
			if (bad != "") { print bad; exit 1 }
		}' "$csv"
}
why=$(row_ok off off 1 2>&1)
check "(a) off: timers off, counters off, figures sane${why:+ ($why)}" "$([ -z "$why" ]; echo $?)"
why=$(row_ok timers on 1 2>&1)
check "(b) timers: timers on, counters off${why:+ ($why)}" "$([ -z "$why" ]; echo $?)"
why=$(row_ok counters on 0 2>&1)
check "(c) counters: timers on, counters open${why:+ ($why)}" "$([ -z "$why" ]; echo $?)"

sum=$work/overhead-summary.csv
check "overhead-summary.csv: three configurations, two overheads against off" \
	"$(awk -F, 'NR > 1 { n++; if ($1 != "off" && $7 != "") o++ } END { exit !(n == 3 && o == 2) }' "$sum" 2>/dev/null; echo $?)"

rep=$work/report.md
check "report.md has the overhead section and the test description" \
	"$(grep -q '^## Instrumentation overhead: 4 players on small' "$rep" &&
		grep -q '^| hardware |' "$rep" && grep -q 'CPU-s per 1000 replies' "$rep"; echo $?)"
mode=$(awk -F, '$1 == "counters" { print $12 }' "$sum" 2>/dev/null)
if [ "$mode" = software ]; then
	check "report.md says the counters degraded to software events" \
		"$(grep -q 'degraded to the software group' "$rep"; echo $?)"
else
	check "report.md names the counter mode ($mode)" "$(grep -q 'Counters:' "$rep"; echo $?)"
fi

if [ "$cg" = --no-callgrind ]; then
	echo "qwexp-overhead-smoke: valgrind missing: callgrind checks skipped"
	skipped=2
else
	cgc=$work/overhead-callgrind.csv
	check "overhead-callgrind.csv: three rows with instructions per reply" \
		"$(awk -F, 'NR > 1 && $10 > 0 && $6 > 0 { n++ } END { exit n != 3 }' "$cgc" 2>/dev/null; echo $?)"
	check "callgrind: the profiler costs less per frame with the timers off" \
		"$(awk -F, '$1 == "off" { a = $8 + $9; fa = $5 } $1 == "timers" { b = $8 + $9; fb = $5 }
			END { exit !(fa > 0 && fb > 0 && a / fa < b / fb) }' "$cgc" 2>/dev/null; echo $?)"
fi
finish
