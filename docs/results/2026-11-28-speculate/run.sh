#!/bin/sh
# run.sh OUT -- the speculative moves' runs (README.md here): framebench
# at 1024 and 2048 walkers on small, large and lqdm1; per map and size, back
# to back: 1 thread (t1), 2 threads with speculative moves (t2-s,
# sv_threads_execute 3), 2 threads with the replies only (t2-r,
# sv_threads_execute 0), then t1 and t2-s again; uptime before and after
# each run.  lqdm1 from $LQDM1 (default /work/shared/realmaps/lqdm1.bsp).
set -u
out=${1:-.}
fb=${FB:-build/framebench}
lq=${LQDM1:-/work/shared/realmaps/lqdm1.bsp}
mkdir -p "$out"
for map in small large lqdm1; do
	m=$map
	[ "$map" = lqdm1 ] && m=$lq
	for n in 1024 2048; do
		frames=100
		[ "$n" = 2048 ] && frames=60
		i=0
		for mode in t1 t2-s t2-r t1 t2-s; do
			i=$((i + 1))
			case $mode in
			t1) set -- ;;
			t2-s) set -- --threads 2 --cpus 0,1 --set "sv_threads_execute 3" ;;
			t2-r) set -- --threads 2 --cpus 0,1 --set "sv_threads_execute 0" ;;
			esac
			name=$map-$n-$mode-$i
			echo "uptime before: $(uptime)" >"$out/$name.txt"
			$fb --players "$n" --frames "$frames" --warmup 20 --map "$m" "$@" \
				--json "$out/$name.json" >>"$out/$name.txt" 2>&1
			echo "uptime after: $(uptime)" >>"$out/$name.txt"
			echo "$name: $(grep -E 'frames/s' "$out/$name.txt" | head -1)"
		done
	done
done
