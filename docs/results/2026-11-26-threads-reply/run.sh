#!/bin/sh
# run.sh -- framebench with the REPLY phase on 1 and on 2 threads,
# alternating in one run, 1024 and 2048 players on small (README.md).
# Run from the worktree root after make: sh docs/results/2026-11-26-threads-reply/run.sh
set -eu
out=docs/results/2026-11-26-threads-reply/raw
mkdir -p "$out"
uptime >"$out/load-before.txt"
for rep in 1 2 3; do
	for p in 1024 2048; do
		frames=200
		[ "$p" -eq 2048 ] && frames=100
		for t in 1 2; do
			build/framebench --players "$p" --frames "$frames" --threads "$t" \
				--json "$out/p$p-t$t-r$rep.json" >"$out/p$p-t$t-r$rep.txt" 2>/dev/null
		done
	done
done
uptime >"$out/load-after.txt"
python3 docs/results/2026-11-26-threads-reply/summary.py "$out"
