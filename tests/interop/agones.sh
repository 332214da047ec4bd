#!/bin/sh
# tests/interop/agones.sh BUILD -- qwd beside an Agones SDK sidecar.
#
# Design note: the real sidecar is not packaged, so qwd plays against
# tests/agones/sdkstub.py, the tests' stand-in that enforces the
# documented REST contract (proto field names, int64 as strings, 400 on
# an empty health body, the watch's line per change) and records every
# call under the SDK server's test-mode name (GET /__calls).  Checked:
#   - qwd -agones-conformance exits 0 and the stand-in recorded each name
#     of the conformance list with a 2xx, none refused;
#   - a normal qwd with AGONES_SDK_HTTP_PORT set: Ready once the level is
#     loaded (its log says so, the GameServer is Ready), Health pings
#     arriving (at least one in the window: no timing asserted), the
#     labels map and players on the GameServer, the capacity maxclients,
#     the answered Ready on qwd's metrics page (its agones families in
#     docs/metrics.md);
#   - a client-library player (qwbots, 1 bot) shows up in the stand-in's
#     connected players while it plays and leaves the list when it goes;
#   - an allocation carrying the annotation qwd.map (the stand-in's
#     /__allocate) changes the level: qwd's connectionless status names
#     the new map;
#   - one match per server (sv_agones_onematch 1): the allocation's own
#     level change asks for no Shutdown; the level's end after it (a map
#     command on its console here, as the game's changelevel would) does;
#   - SIGTERM: qwd exits, and the Shutdown already sent is not sent again.
# Ports from lib/port.sh and the stand-in's own (it binds port 0 and prints
# it); every wait has a deadline, about 20 s in all; everything it started
# stops on exit.
set -u

build=${1:-build}
suite=agones
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/port.sh"
. "$(dirname "$0")/lib/wait.sh"

[ -x "$build/qwd" ] && [ -x "$build/qwbots" ] || { check "$build/qwd and qwbots exist (make first)" false; finish; }
[ -f build/maps/small.bsp ] && [ -f build/maps/arena.bsp ] || { check "build/maps/small.bsp and arena.bsp exist (make maps)" false; finish; }
command -v curl >/dev/null 2>&1 || { check "curl is installed" false; finish; }

work=$(mktemp -d)
stub_pid=""
qwd_pid=""
bots_pid=""
cleanup() {
	for p in $bots_pid $qwd_pid $stub_pid; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	exec 3>&-
	rm -rf "$work"
}
trap cleanup EXIT

# start a fresh stand-in; its port in $sport
start_stub() {
	# the last stand-in's port must not be read for this one's
	rm -f "$work/stub.out"
	python3 tests/agones/sdkstub.py --port 0 >"$work/stub.out" 2>"$work/stub.err" &
	stub_pid=$!
	stub_port() { sport=$(head -n 1 "$work/stub.out" 2>/dev/null); [ -n "$sport" ]; }
	wait_until 10 stub_port
}
stop_stub() {
	kill "$stub_pid" 2>/dev/null
	wait "$stub_pid" 2>/dev/null
	stub_pid=""
}
calls() { curl -s -m 5 "http://127.0.0.1:$sport/__calls" >"$work/calls.txt"; }
# how many NAME calls answered 2xx
count() { awk -v n="$1" '$1 == n && $2 ~ /^2/ { c++ } END { print c + 0 }' "$work/calls.txt"; }
refused() { awk '$2 !~ /^2/ { c++ } END { print c + 0 }' "$work/calls.txt"; }
# a field of the GameServer: python expression over g
gs() {
	curl -s -m 5 "http://127.0.0.1:$sport/gameserver" >"$work/gs.json" &&
		python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
			"$work/gs.json" "$1" 2>/dev/null
}
players() {
	curl -s -m 5 "http://127.0.0.1:$sport/alpha/player/connected" |
		python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("list", [])))' 2>/dev/null
}
# the map qwd's connectionless status names
status_map() {
	oob "status"
}
# a connectionless request to qwd; its answer's serverinfo's map
oob() {
	python3 - "$port" "$1" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1.0)
s.sendto(b"\xff\xff\xff\xff" + sys.argv[2].encode() + b"\n",
         ("127.0.0.1", int(sys.argv[1])))
try:
    data = s.recv(4096).decode("latin-1")
except OSError:
    sys.exit(0)
info = data.split("\n")[0].split("\\")
kv = dict(zip(info[1::2], info[2::2]))
print(kv.get("map", ""))
EOF
}

# ---- the conformance mode ------------------------------------------------
start_stub
"$build/qwd" -agones-conformance -agones "$sport" >"$work/conf.out" 2>&1
rc=$?
check "qwd -agones-conformance against the stand-in exits 0 ($(tail -n 1 "$work/conf.out"))" test $rc -eq 0
calls
missing=""
for n in ready allocate setlabel setannotation gameserver health shutdown watch \
	reserve setplayercapacity playerconnect getplayercapacity playerdisconnect \
	isplayerconnected getconnectedplayers getplayercount; do
	[ "$(count $n)" -ge 1 ] || missing="$missing $n"
done
check "the stand-in recorded every conformance call (missing:${missing:- none}), none refused ($(refused))" \
	test -z "$missing" -a "$(refused)" = 0
stop_stub

# ---- a server beside the sidecar ------------------------------------------
start_stub
port=$(free_port)
mport=$(free_port)
# its console on a pipe this script holds open (fd 3)
mkfifo "$work/console"
AGONES_SDK_HTTP_PORT=$sport "$build/qwd" -port "$port" +maxclients 8 -metrics "127.0.0.1:$mport" \
	+set sv_agones_onematch 1 <"$work/console" >"$work/qwd.log" 2>&1 &
qwd_pid=$!
exec 3>"$work/console"

is_ready() { [ "$(gs 'g["status"]["state"]')" = Ready ]; }
wait_until 10 is_ready
check "Ready after the level loaded: GameServer $(gs 'g["status"]["state"]'), qwd's log: $(grep -c 'agones: Ready (level small loaded)' "$work/qwd.log") line" \
	sh -c "grep -q 'agones: Ready (level small loaded)' '$work/qwd.log' && [ '$(gs 'g["status"]["state"]')' = Ready ]"
pinged() { calls && [ "$(count health)" -ge 1 ]; }
wait_until 10 pinged
check "Health pings arrive: $(count health) so far" pinged
labels_ok() {
	[ "$(gs 'g["object_meta"]["labels"].get("agones.dev/sdk-map")')" = small ] &&
		[ "$(gs 'g["object_meta"]["labels"].get("agones.dev/sdk-players")')" = 0 ] &&
		[ "$(gs 'g["status"]["players"]["capacity"]')" = 8 ]
}
wait_until 10 labels_ok
check "labels map=$(gs 'g["object_meta"]["labels"].get("agones.dev/sdk-map")') players=$(gs 'g["object_meta"]["labels"].get("agones.dev/sdk-players")'), capacity $(gs 'g["status"]["players"]["capacity"]') (maxclients 8)" labels_ok

# the counters on the metrics page, every family of it documented
page_ready() {
	curl -s -m 5 -o "$work/page.txt" "http://127.0.0.1:$mport/metrics" &&
		grep -q '^qwd_agones_calls_total{call="ready",result="answered"} 1$' "$work/page.txt"
}
wait_until 10 page_ready
undocumented=""
for f in $(awk '$1 == "#" && $2 == "TYPE" && $3 ~ /^qwd_agones/ { print $3 }' "$work/page.txt"); do
	grep -q "\`$f[\`{]" docs/metrics.md || undocumented="$undocumented $f"
done
metrics_ok() {
	grep -q '^qwd_agones_calls_total{call="ready",result="answered"} 1$' "$work/page.txt" &&
		[ -z "$undocumented" ]
}
check "the metrics page counts the answered Ready ($(grep -c '^qwd_agones' "$work/page.txt") agones samples; undocumented:${undocumented:- none})" metrics_ok

timeout -k 5 30 "$build/qwbots" --server "127.0.0.1:$port" --bots 1 --rate 20 \
	--duration 3 --map build/maps/small.bsp --seed 1 --no-progress \
	>"$work/qwbots.out" 2>&1 &
bots_pid=$!
one_player() { [ "$(players)" = 1 ]; }
wait_until 15 one_player
check "a client-library player is in the sidecar's connected players ($(players))" one_player
wait "$bots_pid" 2>/dev/null
bots_pid=""
no_player() { [ "$(players)" = 0 ]; }
wait_until 15 no_player
check "it leaves the list when it goes ($(players) left)" no_player

curl -s -m 5 -X POST -d '{"annotations":{"qwd.map":"arena","qwd.mode":"duel"}}' \
	"http://127.0.0.1:$sport/__allocate" >/dev/null
on_arena() { [ "$(status_map)" = arena ]; }
wait_until 10 on_arena
check "an allocation with qwd.map=arena changes the level: status says map $(status_map)" on_arena
check "the allocation's mode becomes the label mode ($(gs 'g["object_meta"]["labels"].get("agones.dev/sdk-mode")'))" \
	test "$(gs 'g["object_meta"]["labels"].get("agones.dev/sdk-mode")')" = duel

calls
check "onematch: the allocation's own level change asked for no Shutdown ($(count shutdown))" \
	test "$(count shutdown)" = 0
echo "map small" >&3
shut() { calls && [ "$(count shutdown)" = 1 ]; }
wait_until 10 shut
check "onematch: the level's end after the allocation sent Shutdown ($(count shutdown)), map now $(status_map)" shut

kill -TERM "$qwd_pid"
gone() { ! kill -0 "$qwd_pid" 2>/dev/null; }
wait_until 10 gone
check "SIGTERM ends qwd" gone
wait "$qwd_pid" 2>/dev/null
qwd_pid=""
calls
check "after SIGTERM one Shutdown in all ($(count shutdown)), one Ready in all ($(count ready)), nothing refused ($(refused))" \
	test "$(count shutdown)" = 1 -a "$(count ready)" = 1 -a "$(refused)" = 0

if [ "$failed" -gt 0 ]; then
	echo "--- qwd.log"; tail -n 30 "$work/qwd.log"
	echo "--- calls"; cat "$work/calls.txt"
	echo "--- stub.err"; tail -n 20 "$work/stub.err"
	echo "--- qwbots"; tail -n 10 "$work/qwbots.out"
fi
finish
