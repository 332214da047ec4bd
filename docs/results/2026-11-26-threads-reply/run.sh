#!/bin/sh
# run.sh [BASE] -- framebench with the REPLY phase on 1 and on 2 threads,
# alternating in one run, 1024 and 2048 players on small (README.md).
# BASE, when given, is a framebench built from the commit before this
# work (the sequential frame as it was), run beside them as "threads 0".
# The frame's thread is on CPU 0 in every run (taskset, or --cpus 0,1
# with the worker on CPU 1), so the runs differ in the worker only.
# Run from the worktree root after make:
#   sh docs/results/2026-11-26-threads-reply/run.sh [/tmp/qwd-main/build/framebench]
set -eu
base=${1:-}
out=docs/results/2026-11-26-threads-reply/raw
mkdir -p "$out"
uptime >"$out/load-before.txt"
for rep in 1 2 3 4 5; do
	for p in 1024 2048; do
		frames=150
		[ "$p" -eq 2048 ] && frames=60
		for t in 0 1 2; do
			f="$out/p$p-t$t-r$rep"
			case $t in
			0) [ -n "$base" ] || continue
			   taskset -c 0 "$base" --players "$p" --frames "$frames" \
				--json "$f.json" >"$f.txt" 2>/dev/null ;;
			1) taskset -c 0 build/framebench --players "$p" --frames "$frames" \
				--json "$f.json" >"$f.txt" 2>/dev/null ;;
			2) build/framebench --players "$p" --frames "$frames" --threads 2 \
				--cpus 0,1 --json "$f.json" >"$f.txt" 2>/dev/null ;;
			esac
		done
	done
done
uptime >"$out/load-after.txt"
python3 docs/results/2026-11-26-threads-reply/summary.py "$out"
