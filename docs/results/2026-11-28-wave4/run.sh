#!/bin/sh
# quiet-machine measurements for issue 27 (run from a built tree: cd TREE; sh measure.sh OUT)
set -u
out=${1:?out}; mkdir -p "$out"
export QWD_REALMAPS=/work/shared/realmaps
lq=/work/shared/realmaps/lqdm1.bsp
uptime >"$out/uptime-start.txt"
git log --oneline -1 >"$out/commit.txt"
# 1. framebench 1 vs 2 threads (speculative moves: sv_threads_execute 3 if the build has it)
X=${X:-3}
for m in small large $lq; do
  mn=$(basename $m .bsp)
  for n in 1024 2048; do
    f=150; [ $n = 2048 ] && f=60
    taskset -c 0 build/framebench --players $n --frames $f --warmup 20 --map $m --json "$out/fb-$mn-$n-t1.json" >"$out/fb-$mn-$n-t1.txt" 2>&1
    build/framebench --players $n --frames $f --warmup 20 --map $m --threads 2 --cpus 0,1 --json "$out/fb-$mn-$n-t2r.json" --set "sv_threads_execute 0" >"$out/fb-$mn-$n-t2r.txt" 2>&1
    build/framebench --players $n --frames $f --warmup 20 --map $m --threads 2 --cpus 0,1 --json "$out/fb-$mn-$n-t2.json" --set "sv_threads_execute $X" >"$out/fb-$mn-$n-t2.txt" 2>&1
    echo "fb $mn $n done $(date +%T)"
  done
done
# 2. capacity on one core
python3 tools/experiment/qwexp.py scale --out "$out/scale-small" --map small --players 1536,2048 --duration 20 --warmup 3 --no-plots --no-callgrind >"$out/scale-small.log" 2>&1
python3 tools/experiment/qwexp.py scale --out "$out/scale-lqdm1" --map lqdm1 --players 1024,1536 --duration 20 --warmup 3 --no-plots --no-callgrind >"$out/scale-lqdm1.log" 2>&1
echo "scale done $(date +%T)"
# 3. the floor at 1024, from the small run's sizes
python3 tools/experiment/qwexp.py floor --out "$out/floor" --players 1024 --rate 30 --duration 20 --warmup 3 --from "$out/scale-small" --no-plots >"$out/floor.log" 2>&1
echo "floor done $(date +%T)"
# 4. 32 players against MVDSV+KTX, both paths
for net in uring select; do
  python3 tools/experiment/qwexp.py compare --out "$out/compare-$net" --net $net --no-callgrind --repeat 2 --duration 15 --no-plots >"$out/compare-$net.log" 2>&1
  echo "compare $net done $(date +%T)"
done
# 5. coalescing at 32 players: sys_ticrate 0 / 0.002 / 0.005, both paths (calls and CPU per reply, response)
for net in uring select; do for t in 0 0.002 0.005; do
  sh docs/results/2026-11-28-iouring/ticrate.sh $net $t 32 12 >"$out/ticrate-$net-$t.txt" 2>&1
done; done
echo "ticrate done $(date +%T)"
uptime >"$out/uptime-end.txt"
