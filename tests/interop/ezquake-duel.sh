#!/bin/sh
# tests/interop/ezquake-duel.sh BUILD -- ezQuake plays a duel on qwd's match
# layer: ready, countdown, a match, its end and scoreboard.
#
# Design note: issue 25's test, a person's duel.  qwd serves the bundled map
# small in duel mode (k_mode 1) with a 3 s countdown (k_count 3), a
# one-minute match (timelimit 1, the shortest the match layer takes in
# whole minutes; k_overtime 0 so a level score ends it) and a demo of each
# match (demo_tmp_record 1).  ezQuake (Debian package, under Xvfb with
# Mesa, on the client data build/mkassets generates) joins as "tester";
# build/matchduel --players 1 joins as the other duellist, "alpha", says
# ready and prints each change of the serverinfo status and the match's
# prints.  ezQuake puts its console away (F7, toggleconsole) and says
# ready with its key F6, bound to "cmd ready" on its command line, as a
# player would.  Checked:
#   - the status alpha saw: Standby, Countdown, 1 min left, Standby (the
#     same sequence tests/interop/match-ktx.sh compares with KTX's);
#   - qwd's log: both entered the game, tester left cleanly, no timeout;
#   - "The match is over" reached alpha, and a second after it the display
#     is captured (ImageMagick `import -window root`): the intermission,
#     ezQuake's scoreboard over the view.  Not blank: a band across the
#     scoreboard's rows (560x56 at 40,56: the names, frags and pings;
#     925 colours in a run, the view showing through its shade) holds at least
#     min_colours colours, and the whole picture at least as many;
#   - the match's demo kept in qw/demos, duel_*[small].mvd, and its stats
#     beside it, duel_*[small].json, parsed with python3's json: its
#     players are tester and alpha.
# The capture, both logs, the demo's JSON and alpha's output are kept in
# build/artifacts/ezquake-duel-*.  About 85 s: ~10 s to join, 3 s of
# countdown, 60 s of match, the intermission.  ezQuake ignores SIGTERM
# (tests/interop/ezquake.sh), so it is stopped with SIGKILL when it has not
# quit on F10.
# Needs: ezquake xvfb xauth imagemagick xdotool libgl1-mesa-dri (skipped,
# naming them, when missing: tests/interop/ezquake.sh installs them) and
# python3 for the JSON.  Prints "ezquake-duel: N passed, M failed".
set -u

build=${1:-build}
suite=ezquake-duel
ez=/usr/lib/games/ezquake/ezquake
art=build/artifacts
band=560x56+40+56
min_colours=64
. tests/interop/lib/report.sh
. tests/interop/lib/port.sh
. "$(dirname "$0")/lib/xclient.sh"

# session DIR PORT (on the Xvfb display): join, console away, ready; the
# intermission captured a second after alpha is told the match is over;
# quit once alpha has seen the status back at Standby (it has exited)
session() {
	"$ez" -basedir "$1/client" -nosound -window -clientport 0 +set vid_xpos 0 \
		+set vid_ypos 0 +set cl_onload none +name tester +bind F7 toggleconsole \
		+bind F6 cmd ready +bind F10 quit +rate 100000 +connect "127.0.0.1:$2" \
		>"$1/client.log" 2>&1 &
	echo $! >"$1/ez.pid"
	if wait_for "$1/qwd.log" '"tester" entered the game' 90; then
		sleep 2
		xdotool key F7
		sleep 1
		xdotool key F6
		if wait_for "$1/alpha.txt" "^print The match is over" 100; then
			sleep 1
			import -window root "$1/scoreboard.png"
		fi
		wait_gone "$1/alpha.pid" 30
	fi
	ez_quit "$1/ez.pid"
}

if [ "${2:-}" = --session ]; then
	shift 2
	session "$@"
	exit 0
fi

missing=$(xclient_missing "$ez")
command -v python3 >/dev/null || missing="$missing python3"
[ -z "$missing" ] || finish ", 1 skipped (needs the Debian packages$missing)"
need "$build/qwd" "$build/mkassets" "$build/matchduel" build/maps/small.bsp

mkdir -p "$art"
work=$(mktemp -d)
dir=$work/duel
qwd_pid=""
cleanup() {
	[ -n "$qwd_pid" ] && kill "$qwd_pid" 2>/dev/null
	[ -f "$dir/ez.pid" ] && kill -9 "$(cat "$dir/ez.pid")" 2>/dev/null
	[ -f "$dir/alpha.pid" ] && kill "$(cat "$dir/alpha.pid")" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$dir/client" "$dir/server"
: >"$dir/alpha.txt"
port=$(free_port)
"$build/mkassets" "$dir/client" build/maps/small.bsp >/dev/null 2>&1
"$build/qwd" -noconsole -basedir "$dir/server" -port "$port" +set k_mode 1 \
	+set deathmatch 3 +set k_count 3 +set timelimit 1 +set k_overtime 0 \
	+set demo_tmp_record 1 +set sv_maxrate 0 +map small >"$dir/qwd.log" 2>&1 &
qwd_pid=$!
if ! wait_for "$dir/qwd.log" "listening on" 10; then
	cat "$dir/qwd.log"
	echo "$suite: qwd did not start"
	failed=1
	finish
fi
timeout -k 5 150 "$build/matchduel" --players 1 --server "127.0.0.1:$port" \
	--map build/maps/small.bsp --timeout 140 >"$dir/alpha.txt" 2>"$dir/alpha.err" &
echo $! >"$dir/alpha.pid"
timeout 200 xvfb-run -a -s "-screen 0 640x480x24" sh "$0" "$build" --session "$dir" "$port"
wait "$(cat "$dir/alpha.pid")" 2>/dev/null
sleep 1
kill "$qwd_pid" 2>/dev/null
wait "$qwd_pid" 2>/dev/null
qwd_pid=""

demos=$dir/server/qw/demos
cp "$dir/qwd.log" "$art/ezquake-duel-qwd.log"
cp "$dir/alpha.txt" "$art/ezquake-duel-alpha.txt"
[ -f "$dir/scoreboard.png" ] && cp "$dir/scoreboard.png" "$art/ezquake-duel-scoreboard.png"
for j in "$demos"/duel_*"[small]"*.json; do
	[ -f "$j" ] && cp "$j" "$art/ezquake-duel-stats.json"
done

log=$dir/qwd.log
check "ezQuake entered the game" grep -q '"tester" entered the game' "$log"
check "alpha (matchduel) entered the game" grep -q '"alpha" entered the game' "$log"
statuses() {
	s=$(sed -n 's/^status //p' "$dir/alpha.txt" | tr '\n' ',')
	echo "$suite: status seen: $s"
	[ "$s" = "Standby,Countdown,1 min left,Standby," ]
}
check "status Standby, Countdown, 1 min left, Standby" statuses
check "the match ran to its end" grep -q '^print The match is over$' "$dir/alpha.txt"
check "tester left cleanly" grep -q '"tester" dropped: disconnected' "$log"
check "no client timed out" sh -c "! grep -q 'timed out' '$log'"
drawn() {
	[ -f "$dir/scoreboard.png" ] || return 1
	all=$(identify -format '%k' "$dir/scoreboard.png" 2>/dev/null)
	rows=$(identify -format '%k' "$dir/scoreboard.png[$band]" 2>/dev/null)
	echo "$suite: scoreboard capture: ${all:-0} colours, ${rows:-0} in the band $band"
	[ "${all:-0}" -ge $min_colours ] && [ "${rows:-0}" -ge $min_colours ]
}
check "the intermission's scoreboard captured, not blank" drawn
demo_kept() {
	ls "$demos"/duel_*"[small]"*.mvd >/dev/null 2>&1 &&
		echo "$suite: demo $(basename "$(ls "$demos"/duel_*"[small]"*.mvd | head -1)")"
}
check "the match's demo kept (qw/demos/duel_*[small].mvd)" demo_kept
stats_json() {
	j=$(ls "$demos"/duel_*"[small]"*.json 2>/dev/null | head -1)
	[ -n "$j" ] && python3 - "$j" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
names = sorted(p.get("name", "") for p in d.get("players", []))
print("ezquake-duel: stats players:", names)
sys.exit(0 if names == ["alpha", "tester"] else 1)
EOF
}
check "its stats JSON parses, players tester and alpha" stats_json
if [ "$failed" -ne 0 ]; then
	echo "--- server log"
	cat "$log"
	echo "--- alpha (matchduel)"
	cat "$dir/alpha.txt" "$dir/alpha.err"
	echo "--- client output"
	cat "$dir/client.log"
	ls -l "$demos" 2>/dev/null
fi
finish
