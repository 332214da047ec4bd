#!/bin/sh
# tests/interop/record-replay.sh BUILD -- the server's command recorder end
# to end: qwd records a live client, qwbots reads and replays the file.
#
# Design note: qwd runs with its console on a FIFO (the operator's stdin)
# in a temporary folder; two qwbots walkers join; the console asks
# "status" for the first bot's userid, then "cmdrecord start rec.act
# client USERID", waits, "cmdrecord" (status) and "cmdrecord stop" (the
# command is "cmdrecord": "record" is MVDSV's demo command).  Checks: the
# recorder refuses a path outside the working directory; the file exists,
# is mode 0600, `qwbots --check-actions` accepts it with the map "small",
# a spawn point and at least 30 commands; a second recording without
# "client" takes the first client that moves; `qwbots --actions FILE
# --bots 1` replays the recording against the same server with every bot
# in the game and at least one replay start.  Bounded: about 20 s.
# Prints "record-replay: N passed, M failed" as its last line.
set -u

build=${1:-build}
passed=0
failed=0

finish() {
	echo "record-replay: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

check() {	# check NAME STATUS
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "record-replay: ok: $1"
	else
		failed=$((failed + 1))
		echo "record-replay: FAILED: $1"
	fi
}

for p in qwd qwbots; do
	[ -x "$build/$p" ] || { check "$build/$p exists (make first)" 1; finish; }
done
map=$(pwd)/build/maps/small.bsp
[ -f "$map" ] || { check "build/maps/small.bsp exists (make maps)" 1; finish; }
qwd=$(cd "$(dirname "$build/qwd")" && pwd)/qwd
qwbots=$(cd "$(dirname "$build/qwbots")" && pwd)/qwbots

work=$(mktemp -d)
srv=""
bots=""
cleanup() {
	exec 3>&- 2>/dev/null
	[ -n "$bots" ] && kill "$bots" 2>/dev/null
	[ -n "$srv" ] && kill "$srv" 2>/dev/null
	[ -n "$srv" ] && wait "$srv" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$(dirname "$0")/lib/port.sh"
port=$(free_port)
mkfifo "$work/console" || { check "mkfifo" 1; finish; }
# the game's own constant seed, as lib/report.sh's game_seed (this script
# keeps its own tally): the replay is compared with what was recorded
(cd "$work" && exec "$qwd" -seed 0x9E3779B97F4A7C15 -port "$port" +map small <"$work/console" >"$work/server.log" 2>&1) &
srv=$!
exec 3>"$work/console"	# keeps the console open until we close it

say() {	# say LINE: one console line
	printf '%s\n' "$1" >&3
}

# wait_for PATTERN SECONDS: 0 once PATTERN is in the server log
wait_for() {
	_i=0
	while [ $_i -lt $(($2 * 10)) ]; do
		grep -q "$1" "$work/server.log" 2>/dev/null && return 0
		kill -0 "$srv" 2>/dev/null || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

wait_for "map small loaded" 10
check "qwd starts" $?

"$qwbots" --server "127.0.0.1:$port" --bots 2 --rate 30 --duration 6 --map "$map" \
	--no-progress --quiet --json "$work/walkers.json" >"$work/walkers.log" 2>&1 &
bots=$!
sleep 2

say "cmdrecord start ../escape.act"
wait_for "plain file name" 5
check "cmdrecord refuses a path outside the working directory" $?

say "status"
wait_for " in game " 5
# the table's rows: slot, userid, name, address, "in game", ping
userid=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && / in game / { print $2; exit }' "$work/server.log")
case "$userid" in '' | *[!0-9]*) userid="" ;; esac
check "status names a bot in the game (userid ${userid:-none})" "$([ -n "$userid" ]; echo $?)"

say "cmdrecord start rec.act client ${userid:-1}"
wait_for "usercmds to rec.act" 5
check "cmdrecord start ... client USERID answers" $?
sleep 2
say "cmdrecord"
wait_for "cmdrecord: userid" 5
check "cmdrecord (status) shows the client" $?
say "cmdrecord stop"
wait_for "cmdrecord stopped" 5
check "cmdrecord stop closes the file" $?

# the first client to move, without "client"
say "cmdrecord start any.act"
sleep 1
say "cmdrecord stop"
sleep 0.5

wait "$bots"
check "the walkers ran (qwbots exit $?)" $?
bots=""

act=$work/rec.act
check "the recording exists" "$([ -s "$act" ]; echo $?)"
mode=$(stat -c %a "$act" 2>/dev/null)
check "the recording is mode 0600 ($mode)" "$([ "$mode" = 600 ]; echo $?)"
"$qwbots" --check-actions "$act" >"$work/check.log" 2>&1
status=$?
cat "$work/check.log"
check "qwbots --check-actions accepts it (status $status)" $status
check "the file names the map" "$(grep -q '^map small$' "$act"; echo $?)"
check "the file has a spawn point" "$(grep -q '^spawn -\{0,1\}[0-9]' "$act"; echo $?)"
n=$(grep -c '^[0-9]' "$act")
check "the file holds at least 30 commands ($n)" "$([ "$n" -ge 30 ]; echo $?)"
check "the walker moved in it (forwardmove 400 present)" \
	"$(awk '$1 ~ /^[0-9]/ && $6 == 400 { f = 1 } END { exit !f }' "$act"; echo $?)"
"$qwbots" --check-actions "$work/any.act" >"$work/check2.log" 2>&1
check "a recording without client is accepted too" \
	"$([ $? -eq 0 ] && grep -q '^[0-9]' "$work/any.act"; echo $?)"

"$qwbots" --server "127.0.0.1:$port" --bots 1 --rate 30 --duration 3 --map "$map" \
	--actions "$act" --match-spawn 4 --no-progress --quiet --json "$work/replay.json" \
	>"$work/replay.log" 2>&1
status=$?
check "qwbots --actions replays the recording (status $status)" $status
starts=$(tr ',{}' '\n\n\n' <"$work/replay.json" 2>/dev/null | tr -d ' "' |
	awk -F: '$1 == "replay_starts" { s += $2 } END { print s + 0 }')
check "the replay started ($starts starts)" "$([ "$starts" -ge 1 ]; echo $?)"

say "quit"
exec 3>&-
sleep 0.5
finish
