#!/bin/sh
# run-tests.sh BUILD TEST-PROGRAM... -- run each module's test program.
#
# Design note: each program prints cmocka's own summary per group; this
# script adds up the "[  PASSED  ]" and "[  FAILED  ]" counts of all of them
# and ends with one line "tests: N passed, M failed", so a reader (and CI)
# sees the whole suite at a glance.  It exits non-zero if any program failed.
set -u
build=$1; shift
passed=0; failed=0; bad=0
log=$(mktemp)
for t in "$@"; do
	echo "== $t"
	"$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	passed=$((passed + p)); failed=$((failed + f))
	if [ "$f" -ne 0 ] || [ "$p" -eq 0 ] || [ $rc -ne 0 ]; then bad=1; fi
done
rm -f "$log"
echo "tests ($build): $passed passed, $failed failed"
[ $bad -eq 0 ]
