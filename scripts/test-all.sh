#!/bin/sh
# test-all.sh -- what `make test` runs: every test, three ways.
#
# Design note: first the layering check (scripts/check-layers.sh: every
# #include against common <- net <- world <- game <- server, prof and
# client beside); then the unit and protocol tests (one cmocka program per
# module) run as built for use, then again under AddressSanitizer and UBSan
# (make check); then the worker threads under ThreadSanitizer (make tsan,
# scripts/tsan.sh: the pool's tests and parallel framebench runs, about
# half a minute with its build); then the experiment runner's Python tests
# (tests/experiment/); then the interoperability tests (tests/interop/*.sh:
# real peers such as ezQuake and MVDSV, as Debian packages) run against
# the plain build (BUILD, as make passes it; build by default).  Each
# stage prints its own totals line, "NAME: N passed, M failed, K skipped
# (why)"; this script adds them up into the last line,
# "tests: N passed, M failed, K skipped", lists the reasons for the skips
# above it, and fails if any stage failed (a skip is not a failure).
set -u
make=${MAKE:-make}
build=${BUILD:-build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

# the real peers (qstat is also used by the server's protocol tests)
sh scripts/deps.sh interop || echo "test-all: could not install the interop peers; their tests will say so"

stage() {
	"$@" 2>&1 | tee -a "$log"
}

sh scripts/check-layers.sh >"$log.1" 2>&1; rc=$?
cat "$log.1"; cat "$log.1" >>"$log"; rm -f "$log.1"
[ $rc -eq 0 ] || status=1
$make --no-print-directory BUILD="$build" run-tests >"$log.1" 2>&1; rc=$?
cat "$log.1"; cat "$log.1" >>"$log"; rm -f "$log.1"
[ $rc -eq 0 ] || status=1
$make --no-print-directory check >"$log.1" 2>&1; rc=$?
cat "$log.1"; cat "$log.1" >>"$log"; rm -f "$log.1"
[ $rc -eq 0 ] || status=1
$make --no-print-directory tsan >"$log.1" 2>&1; rc=$?
cat "$log.1"; cat "$log.1" >>"$log"; rm -f "$log.1"
[ $rc -eq 0 ] || status=1
# the experiment runner's own tests (Python, standard library)
python3 tests/experiment/run.py >"$log.1" 2>&1; rc=$?
cat "$log.1"; cat "$log.1" >>"$log"; rm -f "$log.1"
[ $rc -eq 0 ] || status=1
for t in tests/interop/*.sh; do
	[ -f "$t" ] || continue
	echo "== $t"
	sh "$t" "$build" >"$log.1" 2>&1; rc=$?
	cat "$log.1"; cat "$log.1" >>"$log"; rm -f "$log.1"
	[ $rc -eq 0 ] || status=1
done

# add up every "...: N passed, M failed[, K skipped (why)]" line the stages
# printed; the reasons in parentheses are carried into the last lines
sums=$(sed -n 's/^[^:]*: \([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed\(, \([0-9][0-9]*\) skipped\)\{0,1\}.*/\1 \2 \4/p' "$log" |
	awk '{p += $1; f += $2; s += $3} END {print p + 0, f + 0, s + 0}')
set -- $sums
why=$(sed -n 's/^\([^:]*\): [0-9][0-9]* passed, [0-9][0-9]* failed, [1-9][0-9]* skipped (\(.*\))$/\1: \2/p' "$log")
if [ -n "$why" ]; then
	echo "skipped, by stage:"
	echo "$why" | sed 's/^/  /'
fi
echo "tests: $1 passed, $2 failed, $3 skipped"
[ "$2" -eq 0 ] || status=1
exit $status
