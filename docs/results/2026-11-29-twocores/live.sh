#!/bin/sh
# live.sh OUT OLD_BUILD [PAIRS] -- point 3 live, the build before this
# session's spawn change (OLD_BUILD: its qwd, qwbots and udpecho) against
# this tree's build/, in alternating pairs (old, then new; the machine's
# speed drifts, so the pair is the unit): qwexp scale on small at 2048
# players and on lqdm1 at 1536, 30 requests/s each, 20 s after 3 of
# warm-up; $LIVE_FLAGS more qwexp options (--notrack where the host's
# netfilter rules track loopback; env.txt says whether they do).  Each
# line: offered and sent requests/s, response rate, p99 ms, server us a
# request, qwbots CPU %, the server's idle share.
#   QWD_REALMAPS=../shared/realmaps sh docs/results/2026-11-29-twocores/live.sh OUT ../old/build
set -u
out=${1:?out}
old=${2:?old build}
pairs=${3:-2}
export QWD_REALMAPS=${QWD_REALMAPS:-../shared/realmaps}
mkdir -p "$out"
scale() {	# tag build map players
	python3 tools/experiment/qwexp.py scale --out "$out/$1" --build "$2" \
		--map "$3" --players "$4" --duration 20 --warmup 3 --no-plots \
		--no-callgrind ${LIVE_FLAGS:-} >"$out/$1.log" 2>&1
	echo "$1 $(tail -1 "$out/$1/scale.csv" | cut -d, -f8,9,11,15,29,33,41)"
}
{
i=0
while [ $i -lt "$pairs" ]; do
	i=$((i + 1))
	scale small-2048-old-$i "$old" small 2048
	scale small-2048-new-$i build small 2048
	scale lqdm1-1536-old-$i "$old" lqdm1 1536
	scale lqdm1-1536-new-$i build lqdm1 1536
done
} | tee "$out/capacity.txt"
