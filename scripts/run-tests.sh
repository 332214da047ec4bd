#!/bin/sh
# run-tests.sh BUILD TEST-PROGRAM... -- run each module's test program.
#
# Design note: each program prints cmocka's own summary per group; this
# script adds up the "[  PASSED  ]", "[  FAILED  ]" and "[  SKIPPED ]"
# counts of all of them and ends with one line
#   tests (BUILD): N passed, M failed, K skipped (why: count, ...)
# so a reader (and CI) sees the whole suite at a glance.  The reasons come
# from the "[  REASON  ] test: why" lines that qwd_skip() prints
# (tests/harness.h); a skip without one is named "no reason given".
# It exits non-zero if any program failed, crashed, or passed nothing (a
# program whose every test skipped has lost its data: that is a failure,
# not a skip).
set -u
build=$1; shift
passed=0; failed=0; skipped=0; bad=0
log=$(mktemp)
reasons=$(mktemp)
trap 'rm -f "$log" "$reasons"' EXIT
count() { # count PATTERN-WORD: add up cmocka's "[  WORD  ] N test(s)" lines
	sed -n "s/^\[  $1 *\] \([0-9][0-9]*\) test.*/\1/p" "$log" | awk '{s+=$1} END {print s+0}'
}
for t in "$@"; do
	echo "== $t"
	"$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(count PASSED); f=$(count FAILED); s=$(count SKIPPED)
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	sed -n 's/^\[  REASON  \] [^:]*: //p' "$log" >>"$reasons"
	given=$(grep -c '^\[  REASON  \]' "$log")
	i=$given
	while [ "$i" -lt "$s" ]; do echo "no reason given" >>"$reasons"; i=$((i + 1)); done
	if [ "$f" -ne 0 ] || [ "$p" -eq 0 ] || [ $rc -ne 0 ]; then
		bad=1
		[ "$p" -eq 0 ] && [ "$f" -eq 0 ] && echo "run-tests: $t passed nothing (exit $rc)"
	fi
done
why=""
if [ "$skipped" -gt 0 ]; then
	why=" ($(sort "$reasons" | uniq -c | sort -rn |
		awk '{n=$1; $1=""; sub(/^ /, ""); printf "%s%s: %d", sep, $0, n; sep="; "}'))"
fi
echo "tests ($build): $passed passed, $failed failed, $skipped skipped$why"
[ $bad -eq 0 ]
