#!/bin/sh
# floorpair.sh OUT OLD_BUILD [PAIRS] -- point 4 of issue 27, alternating
# builds: OLD_BUILD (a build directory with qwd, qwbots and udpecho) then
# this tree's build/, each a qwexp scale of 1024 walkers on small (30
# requests/s, 20 s after 3 of warm-up, no connection tracking) and the
# UDP floor measured from it (qwexp floor: an echo server answering the
# same requests and reply sizes).  Each line: qwd's us a request, response
# rate and p99 of the scale, then floor.csv's row (its last column the
# ratio qwd / echo).  Run from the top of the tree:
#   sh docs/results/2026-11-29-seen/floorpair.sh OUT /tmp/base/build 2
set -u
out=${1:?out}
old=${2:?old build}
pairs=${3:-2}
mkdir -p "$out"
i=0
while [ $i -lt "$pairs" ]; do
	i=$((i + 1))
	for t in old new; do
		b=$PWD/build
		[ $t = old ] && b=$old
		python3 tools/experiment/qwexp.py scale --build "$b" --map small \
			--players 1024 --duration 20 --warmup 3 --no-callgrind \
			--no-plots --notrack --out "$out/s-$t-$i" >"$out/s-$t-$i.log" 2>&1
		python3 tools/experiment/qwexp.py floor --players 1024 --rate 30 \
			--duration 20 --warmup 3 --from "$out/s-$t-$i" --no-plots \
			--notrack --out "$out/f-$t-$i" >"$out/f-$t-$i.log" 2>&1
		python3 - "$out/s-$t-$i/scale.csv" "$out/f-$t-$i/floor.csv" "$t-$i" <<'PY'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
f = open(sys.argv[2]).read().strip().splitlines()[-1]
print(sys.argv[3], "us/req", r["srv_us_per_request"], "rr", r["response_rate"],
      "p99", r["rt_p99_ms"], "floor:", f)
PY
	done
done
