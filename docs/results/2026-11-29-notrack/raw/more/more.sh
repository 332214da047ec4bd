#!/bin/sh
cd /work/main
out=/work/notes/s16/more
mkdir -p $out
for i in 4 5 6 7; do
 for t in host notrack; do
  flag=; [ $t = notrack ] && flag=--notrack
  python3 tools/experiment/qwexp.py scale --out $out/small-2048-$t-$i --map small --players 2048 --duration 20 --warmup 3 --no-plots --no-callgrind $flag > $out/small-2048-$t-$i.log 2>&1
  echo "small-2048-$t-$i $(tail -1 $out/small-2048-$t-$i/scale.csv | cut -d, -f11,15,29,36,41)"
 done
done
