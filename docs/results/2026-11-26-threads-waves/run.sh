#!/bin/sh
# run.sh -- the predicted pool against fixed pools of 1 and 2 workers
# under one load that rises and falls (README.md): three waves of 500
# qwbots walkers on small, 30 requests/s each, started 20 s apart and
# ending in the reverse order (500, 1000, 1500, 1000, 500 bots), the same
# load once per configuration, back to back on one build:
#   t1       -threads 1 -cpus 0
#   t2       -threads 2 -cpus 0,1
#   auto     -threads auto -threads-max 2 -cpus 0,1 (default thresholds)
#   autoHIGH-LOW  -threads auto -threads-max 2 -cpus 0,1, sv_threads_high
#            HIGH, sv_threads_low LOW (default 0.2 0.1)
# qwd's frame thread is pinned to CPU 0, its second worker (when there is
# one) to CPU 1; every qwbots process is pinned to CPU 1.  sv_maxrate 0:
# no reply is choked by the server's rate limit, so the response rate
# measures the server, not that policy.
# Each run writes raw/REP/NAME/ (REP names the repetition of the set):
# qwd.log.gz, stats.jsonl.gz (qwd -stats, one line a second), threads.txt
# (the console's "threads" line once a second from the first wave's
# start), a.txt b.txt c.txt (each wave's qwbots summary) and a.csv
# b.csv c.csv (its --series, one row a second), starts.txt (the Unix time
# each wave and the ticker started), the load average before and after.
# Run from the worktree root after make:
#   sh docs/results/2026-11-26-threads-waves/run.sh REP [HIGH LOW [NAME...]]
set -eu
rep=$1
shift
high=${1:-0.2}
low=${2:-0.1}
[ $# -ge 2 ] && shift 2
configs=${*:-t1 t2 auto auto$high-$low}
dir=docs/results/2026-11-26-threads-waves/raw/$rep
map=build/maps/small.bsp

now() { date +%s.%N; }

run_one() { # run_one NAME QWD-OPTIONS...
	name=$1
	shift
	out=$dir/$name
	rm -rf "$out"
	mkdir -p "$out"
	port=$((20000 + $$ % 20000))
	fifo=$(mktemp -u)
	mkfifo "$fifo"
	uptime >"$out/load-before.txt"
	build/qwd -port "$port" -maxclients 2048 "$@" +set sv_maxrate 0 \
		-stats "$out/stats.jsonl" -statsinterval 1 \
		<"$fifo" >"$out/qwd.log" 2>&1 &
	qwd=$!
	exec 3>"$fifo"
	rm -f "$fifo"
	sleep 1
	: >"$out/starts.txt"
	( i=0; echo "ticker $(now)" >>"$out/starts.txt"
	  while [ $i -lt 106 ]; do echo threads; sleep 1; i=$((i + 1)); done ) >&3 &
	ticks=$!
	wave a 1 100
	sleep 20
	wave b 2 60
	sleep 20
	wave c 3 20
	wait "$ticks"
	echo quit >&3
	exec 3>&-
	wait "$qwd" || true
	uptime >"$out/load-after.txt"
	grep -E "threads: " "$out/qwd.log" >"$out/threads.txt" || true
	gzip -9f "$out/qwd.log" "$out/stats.jsonl"
}

wave() { # wave NAME SEED DURATION: 500 bots, in the background
	echo "$1 $(now)" >>"$out/starts.txt"
	taskset -c 1 build/qwbots --server 127.0.0.1:"$port" --bots 500 \
		--rate 30 --duration "$3" --map "$map" --qwdx on --name "$1" \
		--join-rate 500 --seed "$2" --series "$out/$1.csv" \
		>"$out/$1.txt" 2>&1 &
}

for c in $configs; do
	case $c in
	t1) run_one t1 -threads 1 -cpus 0 ;;
	t2) run_one t2 -threads 2 -cpus 0,1 ;;
	auto) run_one auto -threads auto -threads-max 2 -cpus 0,1 ;;
	auto*) run_one "$c" -threads auto -threads-max 2 -cpus 0,1 \
		+set sv_threads_high "$high" +set sv_threads_low "$low" ;;
	*) echo "run.sh: unknown configuration $c" >&2; exit 2 ;;
	esac
	sleep 3
done
