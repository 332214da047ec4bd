#!/bin/sh
# run.sh OUT -- issue 27's quiet-machine measurements, session 13: wave4's
# (framebench 1 vs 2 threads, capacity, 32 players against MVDSV on both
# network paths, sys_ticrate), then the floor at 1024 three times, each
# from a small 1024 run just before it (the machine's speed drifts by
# several percent within an hour: the ratio is taken pair by pair and
# the median reported).  From a built tree: cd TREE; sh
# docs/results/2026-11-28-wave5/run.sh OUT
set -u
out=${1:?out}
here=$(dirname "$0")
sh "$here/../2026-11-28-wave4/run.sh" "$out"
for i in 1 2 3; do
	python3 tools/experiment/qwexp.py scale --out "$out/scale-small-1024-$i" \
		--map small --players 1024 --duration 20 --warmup 3 --no-plots \
		--no-callgrind >"$out/scale-small-1024-$i.log" 2>&1
	python3 tools/experiment/qwexp.py floor --out "$out/floor-1024-$i" \
		--players 1024 --rate 30 --duration 20 --warmup 3 \
		--from "$out/scale-small-1024-$i" --no-plots >"$out/floor-1024-$i.log" 2>&1
	echo "floor $i done $(date +%T)"
done
uptime >"$out/uptime-end2.txt"
