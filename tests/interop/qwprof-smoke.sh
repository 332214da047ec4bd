#!/bin/sh
# tests/interop/qwprof-smoke.sh BUILD -- the simulated-counter helper, small.
#
# Design note: tools/qwprof/qwprof.py runs qwd under valgrind (cachegrind with
# cache and branch simulation, lackey) against qwbots and prints the
# study's Tables I-III labelled "simulated".  This runs it with 2 bots for
# a 2 s window on the project's small map (build/maps, made by `make
# maps`; $QWD_MAPS_DIR overrides) and checks what a reader would check:
# it exits 0; each table is printed with its "simulated (cachegrind,
# ...)" label; the rows carry numbers; the figures
# are consistent (branch share and miss rates between 0 and 100%, the
# three levels of Table III adding up to 100%, more than 0 instructions
# under load once the start-up baseline is subtracted); the lackey table
# has a floating-point share.  Skipped cleanly without valgrind (an
# optional peer); a missing map or program is a failure.  Bounded: about
# 30 s (four short valgrind runs).  Prints "qwprof-smoke: N passed, M
# failed" as its last line (", 1 skipped (why)" without valgrind).
set -u

build=${1:-build}
maps=${QWD_MAPS_DIR:-build/maps}
passed=0
failed=0

finish() {
	echo "qwprof-smoke: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

skip() {
	echo "qwprof-smoke: $1: skipped"
	echo "qwprof-smoke: 0 passed, 0 failed, 1 skipped ($1)"
	exit 0
}

check() {	# check NAME STATUS
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "qwprof-smoke: ok: $1"
	else
		failed=$((failed + 1))
		echo "qwprof-smoke: FAILED: $1"
	fi
}

command -v valgrind >/dev/null 2>&1 || skip "no valgrind (Debian package valgrind)"
[ -f "$maps/small.bsp" ] || { check "$maps/small.bsp exists (make maps)" 1; finish; }
for p in qwd qwbots; do
	[ -x "$build/$p" ] || { check "$build/$p exists (make first)" 1; finish; }
done

out=$(mktemp)
trap 'rm -f "$out"' EXIT

timeout 55 python3 tools/qwprof/qwprof.py --build "$build" --map "$maps/small.bsp" \
	--bots 2 --rate 5 --duration 2 --warmup 1 --lackey --lackey-bots 2 \
	--lackey-duration 2 >"$out" 2>&1
status=$?
cat "$out"
check "qwprof exits 0 (status $status)" $status

for t in "Table I. Instruction mix -- simulated (cachegrind, I1 " \
	"Table II. Miss and misprediction rates -- simulated (cachegrind, I1 " \
	"Table III. Share of references served by each level -- simulated (cachegrind, I1 " \
	"Table I (lackey). Instruction mix -- simulated (lackey"; do
	check "printed: $t..." "$(grep -qF "$t" "$out"; echo $?)"
done

# row PATTERN COLUMN-FROM-END: the percentage in that column of the row
row() {
	awk -v p="$1" -v c="$2" 'index($0, p) { v = $(NF - c); sub(/%$/, "", v); print v; exit }' "$out"
}
# in_range NAME VALUE LOW HIGH
in_range() {
	check "$1 = ${2:-none} is a number in [$3, $4]" \
		"$(awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v ~ /^[0-9.]+$/ && v + 0 >= lo && v + 0 <= hi) }'; echo $?)"
}

in_range "branch share" "$(row 'branches ((Bc + Bi) / Ir)' 1)" 1 60
in_range "memory reference share" "$(row 'memory instructions ~' 1)" 5 150
in_range "D1 miss rate" "$(row 'D1 misses / data reference' 0)" 0 100
in_range "I1 miss rate" "$(row 'I1 misses / instruction fetch' 0)" 0 100
in_range "branch misprediction rate" "$(row 'branch mispredictions / branch' 1)" 0 100
in_range "lackey floating-point share" "$(row 'floating point ~' 1)" 0 100
ir=$(awk '/^Ir \(instructions executed\)/ { print $4; exit }' "$out")
check "instructions under load > 0 (${ir:-none})" \
	"$(awk -v v="${ir:-0}" 'BEGIN { exit !(v + 0 > 0) }'; echo $?)"
l3=$(awk 'index($0, "data (Dr + Dw)") { a = $(NF - 2); b = $(NF - 1); c = $NF
	gsub(/%/, "", a); gsub(/%/, "", b); gsub(/%/, "", c); print a + b + c; exit }' "$out")
in_range "Table III data levels add up" "$l3" 99.9 100.1
finish
