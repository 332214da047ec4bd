#!/bin/sh
# cgr.sh FRAMEBENCH TAG MAP -- framebench 1024 players under cachegrind
# with its last level the size of this machine's L2 (512 KiB, 8 ways),
# 10 and 30 measured rounds after the same 10 of warm-up, side by side;
# cg_diff of the two is the steady state of 20 rounds (20,480 requests).
# Writes cgr.TAG.{10,30}.out and cgr.TAG.diff in the current directory.
set -eu
bin=$1; tag=$2; map=$3
for f in 10 30; do
	valgrind --tool=cachegrind --cache-sim=yes --LL=524288,8,64 \
		--cachegrind-out-file="cgr.$tag.$f.out" "$bin" --players 1024 \
		--frames $f --warmup 10 --map "$map" >"cgr.$tag.$f.log" 2>&1 &
done
wait
cg_diff "cgr.$tag.10.out" "cgr.$tag.30.out" >"cgr.$tag.diff"
