#!/bin/sh
# dig.sh FRAMEBENCH -- the world, reply and state digests of 15 framebench
# configurations (small, large, arena, lqdm1, lqdm6; 256 players with 64
# fighters, 512 fighters, 1024 walkers; 200 frames after 20), one line
# each: two builds give the same game when every line is equal.  Run from
# the top of the tree:  sh docs/results/2026-11-29-motd/dig.sh build/framebench
fb=${1:?framebench}
rm=${REALMAPS:-../shared/realmaps}
for m in build/maps/small.bsp build/maps/large.bsp "$rm/lqdm1.bsp" "$rm/lqdm6.bsp" build/maps/arena.bsp; do
	for opt in "--players 256 --fighters 64" "--players 512 --fighters 512" "--players 1024"; do
		# shellcheck disable=SC2086
		echo "$(basename "$m") $opt: $("$fb" --map "$m" $opt --frames 200 --warmup 20 2>&1 |
			grep -i digest | awk '{print $NF}' | tr '\n' ' ')"
	done
done
