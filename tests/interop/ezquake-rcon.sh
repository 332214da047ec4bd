#!/bin/sh
# tests/interop/ezquake-rcon.sh BUILD -- ezQuake's own rcon against qwd.
#
# Design note: hashed rcon is only right if the client that operators use
# gets in.  ezQuake (Debian package) under Xvfb, with the client data
# build/mkassets makes, is told on its command line:
#   rcon_address, rcon_password, "rcon hostname <word>" (ezQuake's default
#   cl_crypt_rcon 1: the SHA-1 digest with a time stamp), then
#   "cl_crypt_rcon 0" and another rcon (the password in clear), then quit
# (commands, not +set: ezQuake runs +set lines before the others).  qwd
# runs with its defaults (sv_crypt_rcon 1) and logrcon, and captures its
# traffic (capture start, stopped on its console before it is read).
# Checked:
#   - the hashed rcon ran: the rcon log says "(hashed): hostname <word>"
#     and quakestat reads the new hostname back from the server;
#   - the plain one was refused and logged as such;
#   - the very datagram ezQuake sent, taken from the capture and sent
#     again from another port, is refused as a replay, and runs nothing;
#   - the password is in no log.
# Needs ezquake, xvfb (xvfb-run), quakestat and python3 (to read the
# capture and send the datagram again); skipped, naming what is missing,
# without them (scripts/deps.sh interop installs the Debian ones).
# Prints "ezquake-rcon: N passed, M failed[, K skipped (why)]" last.
set -u

build=${1:-build}
ez=/usr/lib/games/ezquake/ezquake
suite=ezquake-rcon
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/port.sh"

missing=""
[ -x "$ez" ] || missing="$missing ezquake"
command -v xvfb-run >/dev/null || missing="$missing xvfb"
command -v quakestat >/dev/null || missing="$missing qstat"
command -v python3 >/dev/null || missing="$missing python3"
[ -z "$missing" ] || finish ", 1 skipped (needs$missing)"
for f in "$build/qwd" "$build/mkassets" build/maps/small.bsp; do
	if [ ! -e "$f" ]; then
		echo "ezquake-rcon: no $f (make)"
		failed=1
		finish
	fi
done

work=$(mktemp -d)
qwd_pid=""
cleanup() {
	[ -n "$qwd_pid" ] && kill "$qwd_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

port=$(free_port)
word="ez$$"
password="pw$$secret"
qwd=$(cd "$build" && pwd)/qwd

mkdir -p "$work/server"
"$build/mkassets" "$work/base" build/maps/small.bsp >/dev/null || {
	echo "ezquake-rcon: mkassets failed"
	failed=1
	finish
}
# its console on a pipe: the capture is stopped (written out) before it
# is read, and the server quits as an operator would make it
mkfifo "$work/console"
(cd "$work" && exec "$qwd" -basedir "$work/server" -port "$port" \
	+set rcon_password "$password" +logrcon +capture start rcon.pcap \
	<"$work/console") >"$work/qwd.log" 2>&1 &
qwd_pid=$!
exec 3>"$work/console"
i=0
while [ $i -lt 20 ] && ! grep -qs "map small loaded" "$work/qwd.log"; do
	sleep 0.5
	i=$((i + 1))
done

timeout 120 xvfb-run -a -s "-screen 0 640x480x24" "$ez" -basedir "$work/base" \
	-nosound -window -clientport 0 +rcon_address "127.0.0.1:$port" \
	+rcon_password "$password" +rcon hostname "$word" +cl_crypt_rcon 0 \
	+rcon hostname plain-refused +wait +quit >"$work/client.log" 2>&1
sleep 1
rlog=$(ls "$work"/server/rcon_*.log 2>/dev/null | head -n 1)

check "ezQuake's hashed rcon ran" grep -q "(hashed): hostname $word\$" "$rlog"
quakestat -nh -qws "127.0.0.1:$port" >"$work/qstat.txt" 2>&1
check "the hostname it set is served" grep -q "$word" "$work/qstat.txt"
check "ezQuake's plain rcon was refused" grep -q "(plain rcon refused): hostname plain-refused\$" "$rlog"

# ezQuake's datagram again, as an eavesdropper would send it
echo "capture stop" >&3
sleep 0.5
python3 - "$work/rcon.pcap" "$port" >"$work/replay.txt" 2>&1 <<'EOF'
import socket, sys
data = open(sys.argv[1], 'rb').read()
start = data.find(b'\xff\xff\xff\xffrcon ')
if start < 0:
    sys.exit('no rcon datagram in the capture')
pkt = data[start:data.index(b'\0', start) + 1]
if len(pkt.split(b' ')[1]) != 56:
    sys.exit('the first rcon datagram is not the hashed one')
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.sendto(pkt, ('127.0.0.1', int(sys.argv[2])))
print(s.recv(2048)[5:].decode(errors='replace'))
EOF
check "the same datagram again is refused as a replay" grep -q "sent already" "$work/replay.txt"
check "the replay is logged" grep -q "(digest already used): hostname $word\$" "$rlog"
check "the password is in no log" sh -c "! grep -q '$password' '$rlog' '$work/qwd.log'"

echo quit >&3
exec 3>&-
wait "$qwd_pid" 2>/dev/null
qwd_pid=""
if [ "$failed" -ne 0 ]; then
	echo "--- qwd log"
	cat "$work/qwd.log"
	echo "--- rcon log"
	cat "$rlog" 2>/dev/null
	echo "--- replay"
	cat "$work/replay.txt"
	echo "--- client"
	cat "$work/client.log"
fi
finish
