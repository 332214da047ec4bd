#!/bin/sh
# tests/interop/qwexp-soak-storm.sh BUILD -- the soak and storm benchmarks
# (tools/experiment/qwexp.py) end to end, small.
#
# Design note: the benchmarks run for half an hour (soak) or minutes
# (storm) when measured; here each runs the smallest version that still
# goes through every step, into a temporary folder, and what a reader
# would check is checked: the runner exits 0; the soak's table has a row
# per interval with every player in the game, a response rate, a p99, an
# RSS and a CPU share; the storm's table has a row per wave, its bots
# joined (the log says so) and went (timed out or left), and no observer
# was dropped for their traffic (the storm's own verdict, also counted in
# the server log here).  Bounded: about 45 s.  The reports are kept in
# build/artifacts/qwexp-soak-storm/.
# Prints "qwexp-soak-storm: N passed, M failed" as its last line.
set -u

build=${1:-build}
passed=0
failed=0
art=build/artifacts/qwexp-soak-storm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check() {	# check NAME STATUS
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1)); echo "qwexp-soak-storm: ok: $1"
	else
		failed=$((failed + 1)); echo "qwexp-soak-storm: FAILED: $1"
	fi
}

col() {	# col FILE COLUMN: the column's values, one a line
	awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		k { print $k }' "$1"
}

timeout 120 python3 tools/experiment/qwexp.py soak --build "$build" --players 16 \
	--minutes 0.34 --interval 10 --warmup 1 --out "$work/soak" >"$work/soak.txt" 2>&1
check "soak exits 0" $?
cat "$work/soak.txt"
rows=$(col "$work/soak/soak.csv" n | wc -l)
[ "$rows" -ge 2 ]; check "soak: a row per interval ($rows)" $?
[ -z "$(col "$work/soak/soak.csv" in_game | grep -vx 16)" ]
check "soak: every player in the game in every interval" $?
awk -F, 'NR > 1 && !($4 > 0 && $6 > 0 && $8 > 0 && $9 > 0) { bad = 1 } END { exit bad }' \
	"$work/soak/soak.csv"
check "soak: response rate, p99, RSS and CPU in every row" $?
grep -q "RSS:" "$work/soak/report.md"; check "soak: report.md written" $?

timeout 120 python3 tools/experiment/qwexp.py storm --build "$build" --observers 8 \
	--bots 48 --waves 2 --period 8 --timeout 3 --out "$work/storm" >"$work/storm.txt" 2>&1
check "storm exits 0 (no observer dropped)" $?
cat "$work/storm.txt"
[ "$(col "$work/storm/storm.csv" wave | wc -l)" -eq 2 ]; check "storm: a row per wave" $?
[ -z "$(col "$work/storm/storm.csv" joined | grep -vx 48)" ]
check "storm: every bot of each wave joined" $?
[ -z "$(col "$work/storm/storm.csv" gone | grep -vx 48)" ]
check "storm: every bot of each wave went" $?
[ "$(grep -c 'timed out' "$work/storm/server.log")" -ge 48 ]
check "storm: the killed wave timed out in the server" $?
[ "$(grep '"obs' "$work/storm/server.log" | grep 'dropped:' | grep -vc 'disconnected')" -eq 0 ]
check "storm: no observer dropped in the server log" $?

mkdir -p "$art" && cp "$work"/soak/report.md "$art/soak.md" 2>/dev/null
cp "$work"/storm/report.md "$art/storm.md" 2>/dev/null
echo "qwexp-soak-storm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
