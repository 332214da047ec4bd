#!/bin/sh
# cgc.sh FRAMEBENCH OUT [ROUNDS] -- callgrind with its cache simulation
# (the last level set to 512 KiB, 8 ways: this machine's L2 per core)
# over server_frame alone, in framebench's live-like frames: 1024 walkers
# on small, a request every 33 ms each, one round in 44 per player (23
# requests a frame, as a live qwd at 1024 players runs), sv_mintic back
# to a live server's; 132 rounds of warm-up and ROUNDS (440) measured.
# The join's frames are counted too: run it at 440 and 880 and take the
# difference (cgdiff.py) for the steady state.  Run from the top of the
# tree:  sh docs/results/2026-11-29-spread/cgc.sh build/framebench OUT 880
set -u
fb=${1:?framebench}
out=${2:?out}
rounds=${3:-440}
valgrind --tool=callgrind --cache-sim=yes --LL=524288,8,64 \
	--compress-strings=no --toggle-collect=server_frame \
	--callgrind-out-file="$out" "$fb" --players 1024 --frames "$rounds" \
	--warmup 132 --interval 33 --spread 44 --set "sv_mintic 0.013" \
	--map build/maps/small.bsp >"$out.txt" 2>&1
