#!/bin/sh
# bench.sh BUILD -- run the world benchmark on the reference maps.
#
# Design note: `make bench` builds BUILD/worldbench and BUILD/gamebench
# and runs this: first the world benchmark on the three maps below, then
# the game's world update with 256 bots on lqdm1 (docs/gamebench.md).  The
# reference maps are lqdm1.bsp (small BSP29 deathmatch map), lq_e1m1.bsp
# (the largest single-player map, 4399 leafs) and lqdm2_bsp2.bsp (the BSP2
# format), from ${QWD_REALMAPS:-../shared/realmaps}.  Without that folder
# there is nothing to measure: the script says so and exits 0, so a checkout
# without the maps still passes `make bench`.  A missing map is named and
# skipped.  Extra worldbench options pass through WORLDBENCH_ARGS, e.g.
#   make bench WORLDBENCH_ARGS="-n 200000 -seed 7"
# and gamebench options through GAMEBENCH_ARGS, e.g.
#   make bench GAMEBENCH_ARGS="--bots 512 --json build/gamebench.json"
# Figures depend on the machine and its load; compare runs of one machine
# with the same -n and -seed (the checksum line must then be equal).
set -u

build=${1:-build}
dir=${QWD_REALMAPS:-../shared/realmaps}
bin="$build/worldbench"

if [ ! -d "$dir" ]; then
	echo "bench: no real maps folder '$dir' (set QWD_REALMAPS); nothing to measure"
	exit 0
fi
if [ ! -x "$bin" ]; then
	echo "bench: $bin not built (make BUILD=$build bench)" >&2
	exit 2
fi

set --
for m in lqdm1.bsp lq_e1m1.bsp lqdm2_bsp2.bsp; do
	if [ -f "$dir/$m" ]; then
		set -- "$@" "$dir/$m"
	else
		echo "bench: $dir/$m missing, skipped"
	fi
done
if [ $# -eq 0 ]; then
	echo "bench: none of the reference maps is in '$dir'; nothing to measure"
	exit 0
fi

# shellcheck disable=SC2086
"$bin" ${WORLDBENCH_ARGS:-} "$@" || status=$?

game="$build/gamebench"
echo
if [ ! -f "$dir/lqdm1.bsp" ]; then
	echo "bench: $dir/lqdm1.bsp missing; game benchmark skipped"
elif [ ! -x "$game" ]; then
	echo "bench: $game not built (make BUILD=$build bench)" >&2
	status=2
else
	# shellcheck disable=SC2086
	"$game" --map "$dir/lqdm1.bsp" ${GAMEBENCH_ARGS:-} || status=$?
fi
exit "${status:-0}"
