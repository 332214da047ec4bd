#!/bin/sh
# cg.sh OUT [FB] -- the profiles cgsum4.py models: framebench under
# callgrind (--separate-threads=yes --dump-before=server_exec_stats: part
# 2 of thread 1 is the 20 measured rounds, after 5 of warm-up), one
# thread (t1) and two pipelined (t2, sv_threads_execute 4), on small,
# large and lqdm1 at 1024 and 2048 players; two runs at a time.  FB: the
# framebench binary (default build/framebench); lqdm1 from $LQDM1
# (default ../shared/realmaps/lqdm1.bsp).  About 12 minutes.
set -u
out=${1:?out}
fb=${2:-build/framebench}
lq=${LQDM1:-../shared/realmaps/lqdm1.bsp}
mkdir -p "$out"
one() {	# t1|t2 map players
	m=build/maps/$2.bsp
	[ "$2" = lqdm1 ] && m=$lq
	if [ "$1" = t1 ]; then set -- "$1" "$2" "$3"; x=""; else x=4; fi
	valgrind --tool=callgrind --separate-threads=yes \
		--dump-before=server_exec_stats \
		--callgrind-out-file="$out/$1-$2-$3.out" "$fb" --players "$3" \
		--frames 20 --warmup 5 --map "$m" \
		${x:+--threads 2 --set "sv_threads_execute $x"} \
		>"$out/$1-$2-$3.log" 2>&1
}
for t in t1 t2; do
	(for map in small large lqdm1; do
		for n in 1024 2048; do one $t $map $n; done
	done) &
done
wait
