#!/bin/sh
# run.sh -- the io_uring path against the select path and MVDSV + KTX
# (README.md): qwexp compare once per path (each alternates qwd with
# MVDSV + KTX at 32 players on lqdm1), then qwexp scale at 1024 players
# once per path (MVDSV speaks protocol 28: 32 players at most), into
# build/experiments/2026-11-28-iouring (kept/ holds the CSVs, reports
# and the servers' network lines of the runs README.md quotes).
#   sh docs/results/2026-11-28-iouring/run.sh [REPEAT] [DURATION]
set -eu
rep=${1:-2}
dur=${2:-15}
out=build/experiments/2026-11-28-iouring
mkdir -p "$out"
for net in select uring; do
	python3 tools/experiment/qwexp.py compare --map lqdm1 --players 32 \
		--repeat "$rep" --duration "$dur" --no-callgrind --net "$net" \
		--out "$out/compare-$net"
done
for net in select uring; do
	python3 tools/experiment/qwexp.py scale --map lqdm1 --players 1024 \
		--duration "$dur" --net "$net" --out "$out/scale1024-$net"
done
