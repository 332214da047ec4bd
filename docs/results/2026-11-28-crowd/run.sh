#!/bin/sh
# run.sh BASE NEW -- the crowd's steady-state cost under callgrind, before
# and after (docs/results/2026-11-28-crowd/README.md).
#
# Design note: BASE and NEW are two framebench binaries (each beside a
# build/maps, or give maps by path).  A run with 10 measured rounds is
# subtracted from one with 30 (same warm-up, same seed, same joins), so
# what remains is 20 rounds of the steady state: no joins, no level
# load; cgdiff.py divides by the requests of those rounds.  Instructions
# are deterministic (the digests printed by each run say it played the
# same game), so a loaded machine changes how long this takes, not the
# figures.  Two runs at a time (one per CPU).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
base=$1
new=$2
lq=${QWD_REALMAPS:-../shared/realmaps}/lqdm1.bsp
out=${OUT:-/tmp/crowd}
mkdir -p "$out"
cp "$base" "$out/framebench.base"
cp "$new" "$out/framebench.new"
for spec in "2048 small" "1024 small" "2048 $lq" "1024 $lq"; do
	set -- $spec
	for tag in base new; do
		(cd "$out" && "$here/cg.sh" "$out/framebench.$tag" $tag $1 $2 10 &
		 "$here/cg.sh" "$out/framebench.$tag" $tag $1 $2 30 & wait)
		m=$(basename "$2" .bsp)
		echo "== $tag $1 $m"
		grep digest "$out/cg.$tag.$1.$m.30.log"
		python3 "$here/cgdiff.py" "$out/cg.$tag.$1.$m.10.out" \
			"$out/cg.$tag.$1.$m.30.out" $((20 * $1)) 40
	done
done
