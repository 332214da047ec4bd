#!/bin/sh
# run.sh OUT -- issue 27 with and without the host's connection tracking
# (qwexp --notrack), one build, one machine, one hour: capacity on small
# at 2048 players and on lqdm1 at 1536, alternating pairs (the host's
# rules first, then exempted; the machine's speed drifts within the
# hour, so the pair is the unit); then 32 players against MVDSV+KTX on
# both network paths, exempted (both servers' datagrams alike); then the
# floor at 1024, exempted (the echo's too).  From a built tree:
#   QWD_REALMAPS=../shared/realmaps sh docs/results/2026-11-29-notrack/run.sh OUT
set -u
out=${1:?out}
export QWD_REALMAPS=${QWD_REALMAPS:-../shared/realmaps}
mkdir -p "$out"
scale() {	# tag map players [--notrack]
	python3 tools/experiment/qwexp.py scale --out "$out/$1" --map "$2" \
		--players "$3" --duration 20 --warmup 3 --no-plots --no-callgrind \
		${4:-} >"$out/$1.log" 2>&1
	echo "$1 $(tail -1 "$out/$1/scale.csv" | cut -d, -f11,15,29,36,41)"
}
{
for i in 1 2 3; do
	scale small-2048-host-$i small 2048
	scale small-2048-notrack-$i small 2048 --notrack
done
for i in 1 2; do
	scale lqdm1-1536-host-$i lqdm1 1536
	scale lqdm1-1536-notrack-$i lqdm1 1536 --notrack
done
} | tee "$out/capacity.txt"
for net in uring select; do
	python3 tools/experiment/qwexp.py compare --out "$out/compare-$net" --net $net \
		--notrack --no-callgrind --repeat 2 --duration 15 --no-plots \
		>"$out/compare-$net.log" 2>&1
	echo "compare $net done $(date +%T)"
done
scale small-1024-notrack small 1024 --notrack
python3 tools/experiment/qwexp.py floor --out "$out/floor-1024-notrack" --notrack \
	--players 1024 --rate 30 --duration 20 --warmup 3 \
	--from "$out/small-1024-notrack" --no-plots >"$out/floor-1024-notrack.log" 2>&1
echo "floor done $(date +%T)"
uptime >"$out/uptime-end.txt"
