#!/bin/sh
# ab.sh BASE NEW OUT [N] [PLAYERS] [MAP] -- N alternating pairs of
# `qwexp scale` runs (base first in each pair), from two built trees, on
# one machine: its speed drifts by 10-25% within an hour, so a change of
# a few percent shows only side by side.  Prints each run's response
# rate, p99 (ms), CPU per request (us), frames/s and idle share, then the
# means and medians of the CPU per request, and how many pairs the new
# tree won.  A run whose frames/s collapses (the VM's slow spells: it
# happens to both trees) is printed too; read the frames/s column.
#   sh docs/results/2026-11-28-wave6/ab.sh /path/base /path/new OUT 6 1024 small
set -u
base=${1:?base tree}; new=${2:?new tree}; out=${3:?out}
n=${4:-6}; players=${5:-1024}; map=${6:-small}
mkdir -p "$out"
for i in $(seq 1 "$n"); do
	for t in base new; do
		tree=$base
		[ "$t" = new ] && tree=$new
		(cd "$tree" && python3 tools/experiment/qwexp.py scale \
			--out "$out/$t-$i" --map "$map" --players "$players" \
			--duration 20 --warmup 3 --no-plots --no-callgrind \
			>"$out/$t-$i.log" 2>&1)
		echo "$t $i $(tail -1 "$out/$t-$i/scale.csv" | cut -d, -f11,15,29,36,41)"
	done
done | tee "$out/runs.txt"
python3 - "$out/runs.txt" <<'PY'
import sys, statistics
runs = {'base': {}, 'new': {}}
for line in open(sys.argv[1]):
    t, i, f = line.split()
    runs[t][int(i)] = float(f.split(',')[2])
for t in ('base', 'new'):
    v = list(runs[t].values())
    print(f"{t}: mean {statistics.mean(v):.2f} median {statistics.median(v):.2f} us per request")
won = sum(1 for i in runs['base'] if i in runs['new'] and runs['new'][i] < runs['base'][i])
print(f"new lower in {won} of {len(runs['base'])} pairs")
PY
