#!/bin/sh
# tasks.sh NAME BUILD: qwexp scale on small, 1024 walkers at 30 requests/s,
# qwd with two threads (-threads 2 on CPUs 0 and 1; the load generator
# shares CPU 1), and each of qwd's threads' user and system ticks (1/100 s)
# over 10 s of the window, from /proc/PID/task/TID/stat; then the run's
# response rate, server CPU us a request and reply share.  Run from the
# repository's root:
#   QWD_REALMAPS=../shared/realmaps sh docs/results/2026-11-29-flush/tasks.sh OUT/new build
name=${1:?name}
build=${2:?build}
python3 tools/experiment/qwexp.py scale --build "$build" --map small --players 1024 \
	--duration 20 --warmup 3 --no-callgrind --no-plots --notrack --threads 2 \
	--server-cpu 0,1 --out "$name" >"$name.log" 2>&1 &
sleep 16
pid=$(pgrep -x qwd | head -1)
snap() { for t in /proc/"$pid"/task/*; do echo "$(basename "$t") $(cut -d' ' -f14,15 "$t"/stat)"; done; }
snap >"$name.t0"
sleep 10
snap >"$name.t1"
wait
join "$name.t0" "$name.t1" | awk -v n="$name" '{u=$4-$2; s=$5-$3; if (u+s>0) printf "%s thread %s user %d sys %d\n", n, $1, u, s}'
python3 -c "
import csv, sys
r = list(csv.DictReader(open(sys.argv[1] + '/scale.csv')))[0]
print(sys.argv[1], 'response rate', r['response_rate'], 'us a request', r['srv_us_per_request'], 'reply share', r['share_reply'])" "$name"
