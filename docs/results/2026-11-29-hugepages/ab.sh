#!/bin/sh
# ab.sh OUT ROUNDS [MAP] [PLAYERS] -- two builds in alternating qwexp scale
# runs (BASE, then NEW, ROUNDS times; the machine's speed drifts, so the
# pair is the unit): 30 requests/s a player, 20 s after 3 of warm-up.
# BASE: a build folder of the commit before (default /tmp/base/build, a
# `git worktree add /tmp/base COMMIT` built with make); NEW: this tree's
# (default build).  Each line: build, round, server us a request, response
# rate, server frames/s, p99 ms, server RSS kB.
#   sh docs/results/2026-11-29-hugepages/ab.sh OUT 3 small 1024
set -u
out=${1:?out}; n=${2:-3}; map=${3:-small}; pl=${4:-1024}
mkdir -p "$out"
for i in $(seq 1 "$n"); do
	for b in base new; do
		if [ $b = base ]; then bd=${BASE:-/tmp/base/build}; else bd=${NEW:-build}; fi
		python3 tools/experiment/qwexp.py scale --build "$bd" --map "$map" \
			--players "$pl" --duration 20 --warmup 3 --no-callgrind --no-plots \
			--out "$out/$b-$i" >/dev/null 2>&1
		python3 -c "
import csv; r = list(csv.DictReader(open('$out/$b-$i/scale.csv')))[0]
print('$b', '$i', r['srv_us_per_request'], r['response_rate'], r['srv_fps'], r['rt_p99_ms'], r['srv_rss_kb'])"
	done
done
