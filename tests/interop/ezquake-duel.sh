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
#     ezQuake's scoreboard over the view.  That it is the scoreboard is
#     told by its rows' colour swatches (tests/interop/lib/swatches.py):
#     the two players wear colours of their own (tester shirt 12 pants 4,
#     ezQuake's +topcolor/+bottomcolor; alpha 13 and 3, matchduel
#     --colors), and the picture must hold, for each, a swatch of exactly
#     the palette's colours the client data has (gamma and contrast are
#     set to 1 on ezQuake's command line), shirt over pants, of the
#     scoreboard's shape, one a row in one column (80x16, 20 pixels apart
#     at ezQuake's 2D scale here).  The same check must fail on a capture
#     taken 5 s into the match (the view, the status bar and ezQuake's
#     small frag table, whose swatches are of another shape and side by
#     side; nobody dies, so the scoreboard a dead player sees is not up):
#     the check tells the scoreboard from another drawn frame;
#   - the match's demo kept in qw/demos, duel_*[small].mvd, and its stats
#     beside it, duel_*[small].json, parsed with python3's json: its
#     players are tester and alpha.
# Both captures, the palette, both logs, the demo's JSON and alpha's
# output are kept in build/artifacts/ezquake-duel-*.  About 85 s: ~10 s to join, 3 s of
# countdown, 60 s of match, the intermission.  ezQuake ignores SIGTERM
# (tests/interop/ezquake.sh), so it is stopped with SIGKILL when it has not
# quit on F10.
# Needs: ezquake xvfb xauth imagemagick xdotool libgl1-mesa-dri (skipped,
# naming them, when missing: tests/interop/ezquake.sh installs them) and
# python3 for the JSON and the swatches.  Prints "ezquake-duel: N passed,
# M failed".
set -u

build=${1:-build}
suite=ezquake-duel
ez=/usr/lib/games/ezquake/ezquake
art=build/artifacts
tester_top=12 tester_bottom=4
alpha_top=13 alpha_bottom=3
. tests/interop/lib/report.sh
. tests/interop/lib/port.sh
. "$(dirname "$0")/lib/xclient.sh"

# session DIR PORT (on the Xvfb display): join, console away, ready; a
# capture 5 s into the match, and the intermission's a second after alpha
# is told the match is over; quit once alpha has seen the status back at
# Standby (it has exited)
session() {
	"$ez" -basedir "$1/client" -nosound -window -clientport 0 +set vid_xpos 0 \
		+set vid_ypos 0 +set cl_onload none +name tester +topcolor $tester_top \
		+bottomcolor $tester_bottom +gl_gamma 1 +gl_contrast 1 +bind F7 toggleconsole \
		+bind F6 cmd ready +bind F10 quit +rate 100000 +connect "127.0.0.1:$2" \
		>"$1/client.log" 2>&1 &
	echo $! >"$1/ez.pid"
	if wait_for "$1/qwd.log" '"tester" entered the game' 90; then
		sleep 2
		xdotool key F7
		sleep 1
		xdotool key F6
		if wait_for "$1/alpha.txt" "^print The match has begun" 30; then
			sleep 5
			import -window root "$1/match.png"
		fi
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
	ez_kill "$dir/ez.pid"
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
	--map build/maps/small.bsp --colors "$alpha_top,$alpha_bottom" --timeout 140 \
	>"$dir/alpha.txt" 2>"$dir/alpha.err" &
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
for shot in match scoreboard; do
	[ -f "$dir/$shot.png" ] && cp "$dir/$shot.png" "$art/ezquake-duel-$shot.png"
done
# the palette, so that lib/swatches.py can be run again on the captures
cp "$dir/client/id1/gfx/palette.lmp" "$art/ezquake-duel-palette.lmp" 2>/dev/null
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
# swatches SHOT: does capture SHOT show the scoreboard's rows of tester
# and alpha (tests/interop/lib/swatches.py, its findings printed)
swatches() {
	[ -f "$dir/$1.png" ] || return 2
	python3 tests/interop/lib/swatches.py "$dir/$1.png" "$dir/client/id1/gfx/palette.lmp" \
		"tester:$tester_top,$tester_bottom" "alpha:$alpha_top,$alpha_bottom" >"$dir/$1.swatches"
	rc=$?
	sed "s/^/$suite: $1 capture: /" "$dir/$1.swatches"
	return $rc
}
check "the intermission's capture is the scoreboard (each player's swatch, one a row)" \
	swatches scoreboard
no_scoreboard() { # the checker says no (1) on a capture that was taken
	swatches match
	[ $? -eq 1 ]
}
check "the capture 5 s into the match is not (the check tells them apart)" no_scoreboard
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
