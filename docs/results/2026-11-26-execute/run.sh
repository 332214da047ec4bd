#!/bin/sh
# run.sh -- the parallel EXECUTE against the sequential frame, framebench
# (no network), one build, one machine, back to back (README.md).
#   sh docs/results/2026-11-26-execute/run.sh [FRAMES]
# For each map (small, large; lqdm1 when QWD_REALMAPS names the
# community maps), players and behaviour (the study's walkers, who fire
# now and then; quiet walkers, who never fire), four servers:
#   t1       -threads 1 (the sequential frame)
#   t2-r     -threads 2, sv_threads_execute 0 (the replies on the workers)
#   t2       -threads 2 (the default: the moves too, while the schedule pays)
#   t2-x     -threads 2, sv_threads_execute 2 (every segment scheduled)
# framebench pins the server's threads to CPUs 0 and 1 (--cpus 0,1).
set -eu
frames=${1:-300}
out=docs/results/2026-11-26-execute/raw
mkdir -p "$out"
uptime >"$out/load-before.txt"
maps="small large"
[ -n "${QWD_REALMAPS:-}" ] && [ -f "$QWD_REALMAPS/lqdm1.bsp" ] && maps="$maps $QWD_REALMAPS/lqdm1.bsp"
for map in $maps; do
	name=$(basename "$map" .bsp)
	for players in 512 1024 2048; do
		for beh in walkers quiet; do
			flag=""
			[ "$beh" = quiet ] && flag="--quiet"
			for cfg in t1 t2-r t2 t2-x; do
				case $cfg in
				t1) opt="--threads 1 --cpus 0" ;;
				t2-r) opt="--threads 2 --cpus 0,1 --set sv_threads_execute\ 0" ;;
				t2) opt="--threads 2 --cpus 0,1" ;;
				t2-x) opt="--threads 2 --cpus 0,1 --set sv_threads_execute\ 2" ;;
				esac
				f="$out/$name-$players-$beh-$cfg"
				eval build/framebench --map "$map" --players "$players" \
					--frames "$frames" $flag $opt --json "$f.json" \
					>"$f.txt" 2>/dev/null
				echo "$name $players $beh $cfg: $(grep frames/s "$f.txt")"
			done
		done
	done
done
uptime >"$out/load-after.txt"
