#!/bin/sh
# run.sh -- qwd -threads auto -threads-max 2 under a load that rises and
# falls: three waves of qwbots walkers on small, started 15 s apart and
# ending in the reverse order (300, 600, 900, 600, 300 bots), the pool's
# decisions from qwd's log (one timed line per change) and the "threads"
# line every second from its console, the first at the first wave's
# start (README.md).  The thresholds are given
# on the command line (HIGH LOW, default the cvars' 0.75 0.5).
# Run from the worktree root after make:
#   sh docs/results/2026-11-26-threads-auto/run.sh [HIGH LOW]
set -eu
high=${1:-0.75}
low=${2:-0.5}
out=docs/results/2026-11-26-threads-auto/raw/h$high-l$low
mkdir -p "$out"
port=$((20000 + $$ % 20000))
fifo=$(mktemp -u)
mkfifo "$fifo"
uptime >"$out/load-before.txt"
build/qwd -port "$port" -maxclients 1024 -threads auto -threads-max 2 \
	+set sv_threads_high "$high" +set sv_threads_low "$low" \
	<"$fifo" >"$out/qwd.log" 2>&1 &
qwd=$!
exec 3>"$fifo"
rm -f "$fifo"
sleep 1
bots() { # bots N DURATION NAME SEED
	build/qwbots --server 127.0.0.1:"$port" --bots "$1" --duration "$2" \
		--map build/maps/small.bsp --qwdx on --name "$3" --join-rate 200 \
		--seed "$4" >"$out/$3.txt" 2>&1 &
}
( i=0; while [ $i -lt 95 ]; do echo threads; sleep 1; i=$((i + 1)); done ) >&3 &
ticks=$!
bots 300 75 a 1
sleep 15
bots 300 45 b 2
sleep 15
bots 300 15 c 3
wait "$ticks"
echo threads >&3
echo quit >&3
exec 3>&-
wait "$qwd" || true
uptime >"$out/load-after.txt"
grep -E "threads: (need|auto)" "$out/qwd.log" >"$out/threads.txt" || true
