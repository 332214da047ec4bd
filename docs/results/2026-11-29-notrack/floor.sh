#!/bin/sh
# floor.sh OUT -- the floor at 1024 (point 4) in alternating pairs, the
# host's rules first, then --notrack (the echo's datagrams exempted too):
# each floor run takes its sizes from a small 1024 scale run made just
# before it the same way.  From a built tree:
#   sh docs/results/2026-11-29-notrack/floor.sh OUT
set -u
out=${1:?out}
mkdir -p "$out"
for i in 1 2 3; do
	for t in host notrack; do
		flag=
		[ "$t" = notrack ] && flag=--notrack
		python3 tools/experiment/qwexp.py scale --out "$out/scale-$t-$i" \
			--map small --players 1024 --duration 20 --warmup 3 --no-plots \
			--no-callgrind $flag >"$out/scale-$t-$i.log" 2>&1
		python3 tools/experiment/qwexp.py floor --out "$out/floor-$t-$i" \
			--players 1024 --rate 30 --duration 20 --warmup 3 $flag \
			--from "$out/scale-$t-$i" --no-plots >"$out/floor-$t-$i.log" 2>&1
		echo "$t $i $(tail -1 "$out/floor-$t-$i/floor.csv" | cut -d, -f15,17,18)"
	done
done | tee "$out/floor.txt"
