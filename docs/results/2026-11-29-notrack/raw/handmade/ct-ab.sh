#!/bin/sh
# alternate: conntrack as the host has it, then lo UDP exempted (nft notrack), N pairs
cd /work/main
out=/work/notes/s16/ct
mkdir -p $out
for i in 1 2 3; do
 for t in ct notrack; do
  if [ $t = notrack ]; then
   nft -f - <<'NFT'
table ip qwdbench {
  chain pre { type filter hook prerouting priority -300; iif "lo" meta l4proto udp notrack; }
  chain out { type filter hook output priority -300; oif "lo" meta l4proto udp notrack; }
}
NFT
  fi
  python3 tools/experiment/qwexp.py scale --out $out/$t-$i --map small --players 2048 --duration 20 --warmup 3 --no-plots --no-callgrind > $out/$t-$i.log 2>&1
  echo "$t $i $(tail -1 $out/$t-$i/scale.csv | cut -d, -f11,15,29,36,41)"
  nft delete table ip qwdbench 2>/dev/null
 done
done
