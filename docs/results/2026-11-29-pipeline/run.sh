#!/bin/sh
# run.sh OUT [REPS] -- the pipelined speculative moves against one thread
# (README.md here): framebench at 1024 and 2048 walkers on small, large
# and lqdm1; per map and size, alternating REPS times (default 2): one
# thread (t1), two threads with the schedule (t2-d, sv_threads_execute
# 1, the default before the pipelined moves), two threads pipelined
# (t2-p, sv_threads_execute 4, the default now).  Warm-up 300 rounds (the crowd's bodies and shots accumulate);
# 300 measured rounds at 1024, 150 at 2048.  lqdm1 from $LQDM1 (default
# ../shared/realmaps/lqdm1.bsp); the binary from $FB (build/framebench);
# $MODES the modes run, in order (default "t1 t2-d t2-p").
set -u
out=${1:-.}
reps=${2:-2}
fb=${FB:-build/framebench}
lq=${LQDM1:-../shared/realmaps/lqdm1.bsp}
mkdir -p "$out"
for map in small large lqdm1; do
	m=build/maps/$map.bsp
	[ "$map" = lqdm1 ] && m=$lq
	for n in 1024 2048; do
		frames=300
		[ "$n" = 2048 ] && frames=150
		r=0
		while [ $r -lt "$reps" ]; do
			r=$((r + 1))
			for mode in ${MODES:-t1 t2-d t2-p}; do
				case $mode in
				t1) set -- ;;
				t2-d) set -- --threads 2 --cpus 0,1 --set "sv_threads_execute 1" ;;
				t2-p) set -- --threads 2 --cpus 0,1 --set "sv_threads_execute 4" ;;
				esac
				name=$map-$n-$mode-$r
				echo "uptime before: $(uptime)" >"$out/$name.txt"
				$fb --players "$n" --frames "$frames" --warmup 300 --map "$m" "$@" \
					--json "$out/$name.json" >>"$out/$name.txt" 2>&1
				echo "uptime after: $(uptime)" >>"$out/$name.txt"
			done
		done
	done
done
