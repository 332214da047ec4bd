#!/bin/sh
# run.sh TAG=FRAMEBENCH... -- the crowd's steady-state cost under
# callgrind for each build, then table.py's rows (README.md).
#
# Design note: the method of docs/results/2026-11-28-crowd (its cg.sh: a
# run of 10 measured rounds subtracted from one of 30, same warm-up and
# seed, so the joins and the level load cancel): instruction counts,
# deterministic, valid on a loaded machine.  Each build is copied into
# OUT (default /tmp/crowd2) beside a maps/ folder holding small.bsp, so
# every binary plays the same map file; CROWDS picks the crowds.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cg=$here/../2026-11-28-crowd/cg.sh
out=${OUT:-/tmp/crowd2}
lq=${QWD_REALMAPS:-../shared/realmaps}/lqdm1.bsp
crowds=${CROWDS:-"2048:small 2048:lqdm1"}
mkdir -p "$out/maps"
cp "$here/../../../build/maps/small.bsp" "$out/maps/small.bsp"
cp "$lq" "$out/maps/lqdm1.bsp"
tags=
for spec in "$@"; do
	tag=${spec%%=*}
	cp "${spec#*=}" "$out/framebench.$tag"
	tags="$tags $tag"
done
for tag in $tags; do
	for c in $crowds; do
		# (both runs in OUT: cg.sh writes to the current directory)
		(cd "$out" && { "$cg" "$out/framebench.$tag" "$tag" "${c%%:*}" \
			"$out/maps/${c#*:}.bsp" 10 &
		 "$cg" "$out/framebench.$tag" "$tag" "${c%%:*}" \
			"$out/maps/${c#*:}.bsp" 30 & wait; })
	done
done
python3 "$here/table.py" "$out" $tags
