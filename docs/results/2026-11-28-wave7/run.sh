#!/bin/sh
# run.sh OUT -- issue 27's measurements, session 15: wave5's (framebench
# 1 vs 2 threads, capacity, 32 players against MVDSV on both network
# paths, sys_ticrate, the floor at 1024 three times), then the capacity
# points twice more each (2048 on small, 1536 on lqdm1): one run can
# meet the machine's slow spells, so every run is reported.  From a
# built tree: cd TREE; sh docs/results/2026-11-28-wave7/run.sh OUT
set -u
out=${1:?out}
here=$(dirname "$0")
sh "$here/../2026-11-28-wave5/run.sh" "$out"
export QWD_REALMAPS=${QWD_REALMAPS:-/work/shared/realmaps}
for i in 2 3; do
	for point in small:2048 lqdm1:1536; do
		map=${point%:*}; n=${point#*:}
		python3 tools/experiment/qwexp.py scale \
			--out "$out/capacity-$map-$n-$i" --map "$map" \
			--players "$n" --duration 20 --warmup 3 --no-plots \
			--no-callgrind >"$out/capacity-$map-$n-$i.log" 2>&1
	done
	echo "capacity $i done $(date +%T)"
done
uptime >"$out/uptime-end3.txt"
