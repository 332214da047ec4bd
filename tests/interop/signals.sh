#!/bin/sh
# tests/interop/signals.sh BUILD -- qwd ends promptly on SIGTERM and SIGINT
# whatever its stdin is, and says why; SIGHUP changes nothing.
#
# Design note: each round starts qwd on the bundled map "small" with its
# stdin an open pipe (a FIFO this script holds open and never writes: the
# case of a supervisor, `docker run -i` or tmux, where select() used to
# return EINTR with a stale descriptor set and the console read then
# blocked until stdin closed).  A qwbots walker joins, the signal is sent,
# and the checks are: the process is gone within 5 s (generous: the loop
# looks at the signal within a frame), exit status 0, the log names the
# signal, and the walker was dropped with the reason.  One more round with
# stdin closed (</dev/null), and one where SIGHUP is sent first: the server
# logs it, keeps answering (the walker stays) and still stops on SIGTERM.
# Bounded: about 30 s.  Prints "signals: N passed, M failed" last.
set -u

build=${1:-build}
passed=0
failed=0

finish() {
	echo "signals: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

check() {	# check NAME STATUS
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "signals: ok: $1"
	else
		failed=$((failed + 1))
		echo "signals: FAILED: $1"
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
	[ -n "$srv" ] && kill -KILL "$srv" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$(dirname "$0")/lib/port.sh"
port=$(free_port)

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

# gone_within SECONDS: 0 once the server process has exited
gone_within() {
	_i=0
	while [ $_i -lt $(($1 * 10)) ]; do
		kill -0 "$srv" 2>/dev/null || return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# round NAME SIGNAL STDIN [hup]: STDIN is "pipe" or "closed"
round() {
	name=$1
	sig=$2
	rm -f "$work/console" "$work/server.log"
	if [ "$3" = pipe ]; then
		mkfifo "$work/console" || { check "$name: mkfifo" 1; return; }
		(cd "$work" && exec "$qwd" -port "$port" +map small <"$work/console" \
			>"$work/server.log" 2>&1) &
		srv=$!
		exec 3>"$work/console"	# open, never written, never closed
	else
		(cd "$work" && exec "$qwd" -port "$port" +map small </dev/null \
			>"$work/server.log" 2>&1) &
		srv=$!
	fi
	wait_for "map small loaded" 10
	check "$name: qwd starts" $?
	"$qwbots" --server "127.0.0.1:$port" --bots 1 --rate 30 --duration 20 \
		--map "$map" --no-progress --quiet >"$work/bot.log" 2>&1 &
	bots=$!
	wait_for "entered the game" 10
	check "$name: a walker joins" $?

	if [ "${4:-}" = hup ]; then
		kill -HUP "$srv"
		wait_for "SIGHUP ignored" 5
		check "$name: SIGHUP is logged as ignored" $?
		sleep 0.5
		kill -0 "$srv" 2>/dev/null
		check "$name: the server still runs after SIGHUP" $?
		grep -q "dropped" "$work/server.log"
		check "$name: nobody was dropped by SIGHUP" "$([ $? -ne 0 ]; echo $?)"
	fi

	kill "-$sig" "$srv"
	gone_within 5
	gone=$?
	check "$name: SIG$sig ends qwd within 5 s" $gone
	if [ $gone -eq 0 ]; then
		wait "$srv"
		check "$name: exit status 0" $?
	else
		kill -KILL "$srv" 2>/dev/null
		wait "$srv" 2>/dev/null
	fi
	srv=""
	exec 3>&- 2>/dev/null
	grep -q "SIG$sig received: shutting down" "$work/server.log"
	check "$name: the log names SIG$sig" $?
	grep -q "dropped: server shut down (SIG$sig)" "$work/server.log"
	check "$name: the walker is told why" $?
	kill "$bots" 2>/dev/null
	wait "$bots" 2>/dev/null
	bots=""
	[ $failed -eq 0 ] || cat "$work/server.log"
	port=$(free_port)
}

round "term, stdin an open pipe" TERM pipe
round "int, stdin an open pipe" INT pipe
round "term, stdin closed" TERM closed
round "hup then term, stdin an open pipe" TERM pipe hup
finish
