#!/bin/sh
# tests/interop/bans-mvdsv.sh BUILD -- ban lists move between MVDSV and
# qwd, and qstat sees a banned address refused.
#
# Design note: an operator moving from MVDSV brings qw/listip.cfg, and may
# move back.  Both directions, with the real MVDSV (Debian package, no
# game needed: addip, writeip and listip are the server's own):
#   1. MVDSV writes a list (a host ban, a range ban with an expiry, a safe
#      range) with writeip; qwd started on that folder lists the same
#      filters (it runs listip.cfg at start-up), and refuses the banned
#      address: quakestat from 127.0.0.2 (-srcip) gets no status but
#      "banned.", from 127.0.0.3 it gets the status;
#   1b. the same qwd start and qstat queries against `qwd -threads 2`
#      (docs/parallel.md: replies built by two threads), whose log must
#      say so: the list loaded, the banned address refused, the other
#      one answered (the listing is the same code as in 1, not checked
#      again);
#   2. qwd writes a list with writeip; MVDSV runs `exec listip.cfg` and
#      lists the same filters.
# Each server runs with its console on stdin and ends with quit.
# Needs mvdsv and qstat (Debian packages; scripts/deps.sh interop installs
# them); skipped, naming them, without.  Prints "bans-mvdsv: N passed, M
# failed[, K skipped (why)]" last.
set -u

build=${1:-build}
mvdsv=/usr/games/mvdsv
suite=bans-mvdsv
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/port.sh"

missing=""
[ -x "$mvdsv" ] || missing="$missing mvdsv"
command -v quakestat >/dev/null || missing="$missing qstat"
[ -z "$missing" ] || finish ", 1 skipped (needs$missing)"
if [ ! -x "$build/qwd" ]; then
	echo "bans-mvdsv: no $build/qwd (make)"
	failed=1
	finish
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# a qwd that died early closes its console's FIFO: the write then fails
# and the checks say what is missing, rather than SIGPIPE ending the script
trap '' PIPE
port=$(free_port)
qwd=$(cd "$build" && pwd)/qwd
later=1900000000	# an expiry in 2030, as a Unix time

# 1. MVDSV's list, read by qwd
mkdir -p "$work/a/qw"
(cd "$work/a" && timeout 20 "$mvdsv" -basedir "$work/a" -game qw -port "$port" \
	+addip 127.0.0.2 +addip 192.168.1 ban "$later" +addip 10.1 safe \
	+writeip +quit) >"$work/mvdsv-write.log" 2>&1 </dev/null
check "MVDSV wrote its list" test -s "$work/a/qw/listip.cfg"

# read_list THREADS: qwd (-threads THREADS) started on MVDSV's folder,
# its console asked for listip, qstat asking from the banned address and
# from another; its log in qwd-read-THREADS.log, qstat's answers in
# qstat-banned-THREADS.txt and qstat-other-THREADS.txt
read_list() {
	log=$work/qwd-read-$1.log
	# a port of its own: between two servers on one number another job's
	# client socket may take it (make test runs scripts side by side)
	port=$(free_port)
	rm -f "$work/console"
	mkfifo "$work/console"
	(cd "$work" && exec "$qwd" -threads "$1" -basedir "$work/a" -game qw \
		-ip 127.0.0.1 -port "$port" <"$work/console") >"$log" 2>&1 &
	qwd_pid=$!
	exec 3>"$work/console"
	i=0
	while [ $i -lt 20 ] && ! grep -qs "map small loaded" "$log"; do
		sleep 0.5
		i=$((i + 1))
	done
	echo listip >&3
	quakestat -nh -srcip 127.0.0.2 -qws "127.0.0.1:$port" >"$work/qstat-banned-$1.txt" 2>&1
	quakestat -nh -srcip 127.0.0.3 -qws "127.0.0.1:$port" >"$work/qstat-other-$1.txt" 2>&1
	echo quit >&3
	exec 3>&-
	wait "$qwd_pid"
}

# qstat's view, THREADS WHAT: qstat prints the map for a server that
# answered; to a refused address qwd answers only MVDSV's "banned.",
# which qstat shows as the error
check_qstat() {
	check "qstat from the banned address gets no status$2" sh -c "! grep -q small '$work/qstat-banned-$1.txt'"
	check "qstat shows it MVDSV's answer$2" grep -q "ERROR <banned.>" "$work/qstat-banned-$1.txt"
	check "qstat from another address does$2" grep -q small "$work/qstat-other-$1.txt"
}

read_list 1
check "qwd loaded MVDSV's list at start" grep -q "3 address filters from" "$work/qwd-read-1.log"
check "qwd lists the host ban" grep -q "^127\.  0\.  0\.  2 |  ban$" "$work/qwd-read-1.log"
check "qwd lists the range ban and its expiry" grep -q "^192\.168\.  1\.  0 |  ban | [0-9]* s$" "$work/qwd-read-1.log"
check "qwd lists the safe range" grep -q "^ 10\.  1\.  0\.  0 | safe$" "$work/qwd-read-1.log"
check_qstat 1 ""

# 1b. the same against the parallel frame
read_list 2
check "qwd -threads 2 builds its replies on 2 threads" grep -q "replies built by 2 threads" "$work/qwd-read-2.log"
check "qwd -threads 2 loaded MVDSV's list at start" grep -q "3 address filters from" "$work/qwd-read-2.log"
check_qstat 2 " (qwd -threads 2)"

# 2. qwd's list, read by MVDSV
mkdir -p "$work/b/qw"
port=$(free_port)
printf 'addip 127.0.0.5\naddip 172.16 ban %s\naddip 10.9.8.7 safe\nwriteip\nquit\n' "$later" |
	(cd "$work" && "$qwd" -basedir "$work/b" -game qw -ip 127.0.0.1 -port "$port") \
		>"$work/qwd-write.log" 2>&1
(cd "$work/b" && timeout 20 "$mvdsv" -basedir "$work/b" -game qw -port "$port" \
	+exec listip.cfg +listip +quit) >"$work/mvdsv-read.log" 2>&1 </dev/null
# MVDSV prints a filter in pieces, one log line each: the address, then
# the type (and the time left)
tr -d '\r' <"$work/mvdsv-read.log" | sed 's/^\[[^]]*\] //' >"$work/mvdsv-read.txt"
check "MVDSV lists qwd's host ban" grep -A1 -q "^127\.  0\.  0\.  5 | " "$work/mvdsv-read.txt"
check "MVDSV lists qwd's range ban" grep -q "^172\. 16\.  0\.  0 | " "$work/mvdsv-read.txt"
check "MVDSV lists qwd's safe host" sh -c "grep -A1 '^ 10\.  9\.  8\.  7 | ' '$work/mvdsv-read.txt' | grep -q safe"
check "MVDSV took every line" sh -c "! grep -q 'Bad filter\|Wrong filter\|Unknown command' '$work/mvdsv-read.txt'"

if [ "$failed" -ne 0 ]; then
	for f in mvdsv-write.log qwd-read-1.log qstat-banned-1.txt qstat-other-1.txt \
		qwd-read-2.log qstat-banned-2.txt qstat-other-2.txt qwd-write.log mvdsv-read.log; do
		echo "--- $f"
		cat "$work/$f"
	done
	echo "--- listip.cfg (MVDSV's, then qwd's)"
	cat "$work/a/qw/listip.cfg" "$work/b/qw/listip.cfg"
fi
finish
