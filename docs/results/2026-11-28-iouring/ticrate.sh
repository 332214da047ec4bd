#!/bin/sh
# ticrate.sh -- syscalls and CPU per reply of one qwd, by its own
# counters: qwd (CPU 0) with -net NET and sys_ticrate T, qwbots (CPU 1)
# with N players on lqdm1 for D seconds; prints the shutdown's network
# line and user+system CPU per reply (/proc/PID/stat over the whole run,
# the join included).
#   sh docs/results/2026-11-28-iouring/ticrate.sh NET T [N] [D]
set -eu
net=$1; tic=$2; n=${3:-32}; dur=${4:-15}
map=${QWD_REALMAPS:-../shared/realmaps}/lqdm1.bsp
dir=$(mktemp -d)
mkdir -p "$dir/qw/maps"
ln -s "$(realpath "$map")" "$dir/qw/maps/lqdm1.bsp"
port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
taskset -c 0 build/qwd -port "$port" -noconsole -basedir "$dir" -net "$net" \
	-maxclients "$n" +set sv_maxrate 0 +set sys_ticrate "$tic" +map lqdm1 \
	>"$dir/qwd.log" 2>&1 &
qpid=$!
sleep 1
taskset -c 1 build/qwbots --server "127.0.0.1:$port" --bots "$n" --rate 30 \
	--duration "$dur" --warmup 2 --map "$map" >"$dir/bots.txt" 2>&1
tk=$(getconf CLK_TCK)
cpu=$(awk -v tk="$tk" '{print ($14 + $15) / tk}' "/proc/$qpid/stat")
kill -INT "$qpid"
wait "$qpid" || true
grep -h "network " "$dir/qwd.log" | sed 's/^[^ ]* INFO //'
replies=$(grep -o '[0-9]* replies' "$dir/qwd.log" | head -1 | cut -d' ' -f1)
echo "net $net sys_ticrate $tic players $n: cpu $cpu s, replies $replies, $(python3 -c "print('%.1f us per reply' % ($cpu * 1e6 / $replies))")"
grep -E "response|p99" "$dir/bots.txt" | head -3
rm -rf "$dir"
