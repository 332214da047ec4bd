#!/bin/sh
# run.sh OUT -- issue 27's quiet-machine measurements, session 12: wave3's
# (framebench 1 vs 2 threads, capacity, floor, 32 players against MVDSV),
# then coalescing at 32 players (sys_ticrate 0 / 0.002 / 0.005 on both
# network paths: calls and CPU per reply, response time).  From a built
# tree: cd TREE; sh docs/results/2026-11-28-wave4/run.sh OUT
set -u
out=${1:?out}
here=$(dirname "$0")
sh "$here/../2026-11-28-wave3/run.sh" "$out"
export QWD_REALMAPS=${QWD_REALMAPS:-/work/shared/realmaps}
for net in uring select; do
	for t in 0 0.002 0.005; do
		sh "$here/../2026-11-28-iouring/ticrate.sh" $net $t 32 12 \
			>"$out/ticrate-$net-$t.txt" 2>&1
	done
done
echo "ticrate done $(date +%T)"
uptime >"$out/uptime-end.txt"
