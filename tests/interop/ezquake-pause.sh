#!/bin/sh
# tests/interop/ezquake-pause.sh BUILD -- a stock client pauses qwd, and
# MVDSV+KTX the same way.
#
# Design note: ezQuake (Debian package) under Xvfb with Mesa, on the client
# data build/mkassets generates, joins the server on the bundled map small
# with `pausable 1` and, in the game, presses its pause key twice (F8
# bound to "pause", which ezQuake forwards to the server), with the
# console put away first (F7, toggleconsole) so the view shows.
# Two sessions, each a fresh server and display:
#   qwd    the server log must say the game paused and resumed at the same
#          level time (its clock stood still), and the client left cleanly
#   mvdsv  the reference, when the mvdsv and ktx packages are there:
#          MVDSV 0.35 with KTX in its matchless mode (k_matchless 1: KTX
#          takes the client's "pause" and pauses after a 3 s countdown,
#          then resumes 3 s after the second), the console asked for
#          `sv_paused` while paused (1) and after (0).  (KTX records the
#          session by itself, but build/mvdcheck stops at that demo's
#          first frame, "a stat outside a stats record", so its clock is
#          not compared here; qwd's demo clock is tests/server/test_pause.c's.)
# In both, the picture: ezQuake draws its PAUSED picture (gfx/pause.lmp,
# centred above the status bar) only while its cl.paused is set, which only
# svc_setpause sets, so a band across the middle of the view must differ
# between the capture taken while paused and the one after the resume (in
# at least min_pixels pixels, 10% fuzz) and the capture before the pause
# must match the one after it there (the player stood still): the
# difference is the picture, not the view.  Captures and logs are kept in
# build/artifacts/ezquake-pause-*.  About 20 s a session.
# ezQuake ignores SIGTERM; it is stopped with SIGKILL when it has not quit.
# Needs: ezquake xvfb xauth imagemagick xdotool libgl1-mesa-dri (skipped,
# naming them, when missing: tests/interop/ezquake.sh installs them);
# mvdsv and ktx for the reference (skipped, saying so, without them).
set -u

build=${1:-build}
suite=ezquake-pause
ez=/usr/lib/games/ezquake/ezquake
art=build/artifacts
band=400x48+120+180
min_pixels=300
. tests/interop/lib/report.sh
. tests/interop/lib/port.sh
. tests/interop/lib/ktx.sh

. "$(dirname "$0")/lib/xclient.sh"
missing=$(xclient_missing "$ez")
[ -z "$missing" ] || finish ", 1 skipped (needs the Debian packages$missing)"
need "$build/qwd" "$build/mkassets" build/maps/small.bsp

# session DIR PORT LOG PAUSED RESUMED CONSOLE (on the Xvfb display): join,
# put the console away, capture; pause (until PAUSED is in the server's
# LOG), capture; resume (until RESUMED), capture; quit.  CONSOLE: the
# server's console (a FIFO) asked for sv_paused each time, or "-"
session() {
	"$ez" -basedir "$1/client" -nosound -window -clientport 0 +set vid_xpos 0 \
		+set vid_ypos 0 +set cl_onload none +name tester +bind F7 toggleconsole \
		+bind F8 pause +bind F10 quit +rate 100000 +connect "127.0.0.1:$2" \
		>"$1/client.log" 2>&1 &
	echo $! >"$1/ez.pid"
	if wait_for "$3" "tester.* entered the game" 90; then
		sleep 2
		xdotool key F7
		sleep 2
		import -window root "$1/running.png"
		xdotool key F8
		wait_for "$3" "$4" 15 && sleep 2
		[ "$6" = - ] || echo sv_paused >"$6"
		import -window root "$1/paused.png"
		xdotool key F8
		wait_for "$3" "$5" 15 && sleep 2
		[ "$6" = - ] || echo sv_paused >"$6"
		import -window root "$1/resumed.png"
	fi
	ez_quit "$1/ez.pid"
}

if [ "${2:-}" = --session ]; then
	shift 2
	session "$@"
	exit 0
fi

mkdir -p "$art"
work=$(mktemp -d)
qwd_pid=""
mvdsv_pid=""
cleanup() {
	[ -n "$qwd_pid" ] && kill "$qwd_pid" 2>/dev/null
	[ -n "$mvdsv_pid" ] && kill "$mvdsv_pid" 2>/dev/null
	ez_kill "$work"/*/ez.pid
	rm -rf "$work"
}
trap cleanup EXIT

# differing pixels of the band between two captures of DIR
band_diff() {
	compare -metric AE -fuzz 10% -extract "$band" "$1/$2.png" "$1/$3.png" \
		null: 2>&1 | sed 's/ .*//; s/\..*//'
}
drawn() { # drawn DIR NAME
	[ -f "$1/paused.png" ] && [ -f "$1/resumed.png" ] && [ -f "$1/running.png" ] ||
		return 1
	d=$(band_diff "$1" paused resumed)
	s=$(band_diff "$1" running resumed)
	echo "$suite: [$2] band $band: paused vs resumed $d pixels differ, before vs after $s"
	[ "${d:-0}" -ge "$min_pixels" ] && [ "${s:-$min_pixels}" -lt "$min_pixels" ]
}
keep() { # keep DIR NAME: captures into the artifacts
	for shot in running paused resumed; do
		[ -f "$1/$shot.png" ] && cp "$1/$shot.png" "$art/ezquake-pause-$2-$shot.png"
	done
}

# ---- qwd ---------------------------------------------------------------------
dir=$work/qwd
mkdir -p "$dir/client" "$dir/server"
port=$(free_port)
"$build/mkassets" "$dir/client" build/maps/small.bsp >/dev/null 2>&1
"$build/qwd" -noconsole -seed "$game_seed" -basedir "$dir/server" -port "$port" +map small \
	+set k_matchless 1 +set pausable 1 +set sv_maxrate 0 >"$dir/qwd.log" 2>&1 &
qwd_pid=$!
wait_for "$dir/qwd.log" "listening on" 10
timeout 200 xvfb-run -a -s "-screen 0 640x480x24" sh "$0" "$build" --session "$dir" \
	"$port" "$dir/qwd.log" "game paused" "game resumed" -
kill "$qwd_pid" 2>/dev/null
wait "$qwd_pid" 2>/dev/null
qwd_pid=""
cp "$dir/qwd.log" "$art/ezquake-pause-qwd.log"
keep "$dir" qwd

log=$dir/qwd.log
check "[qwd] entered the game" grep -q '"tester" entered the game' "$log"
check "[qwd] paused by the client's pause key" grep -q "game paused at level time" "$log"
check "[qwd] resumed by it" grep -q "game resumed at level time" "$log"
same_time() {
	p=$(sed -n 's/.*game paused at level time \([0-9.]*\).*/\1/p' "$log" | head -1)
	r=$(sed -n 's/.*game resumed at level time \([0-9.]*\).*/\1/p' "$log" | head -1)
	echo "$suite: [qwd] paused at level time ${p:-?}, resumed at ${r:-?}"
	[ -n "$p" ] && [ "$p" = "$r" ]
}
check "[qwd] the level's clock stood still" same_time
check "[qwd] left cleanly" grep -q '"tester" dropped: disconnected' "$log"
check "[qwd] ezQuake drew PAUSED only while paused" drawn "$dir" qwd

# ---- the reference: MVDSV with KTX -------------------------------------------
mvdsv=$(mvdsv_binary)
if [ -z "$mvdsv" ] || [ ! -f /usr/lib/quakeworld/ktx/qwprogs.so ]; then
	finish ", 1 skipped (the MVDSV+KTX reference: packages mvdsv and ktx absent)"
fi
dir=$work/mvdsv
ref=$dir/server
ktx_base "$ref"
ktx_client_data "$build" "$dir/client"
mkfifo "$ref/console"
port=$(free_port)
(cd "$ref" && exec "$mvdsv" -basedir "$ref" -game ktx -port "$port" \
	+set k_matchless 1 +set pausable 1 +map small \
	<"$ref/console" >"$ref/mvdsv.log" 2>&1) &
mvdsv_pid=$!
exec 4>"$ref/console"
sleep 2
timeout 200 xvfb-run -a -s "-screen 0 640x480x24" sh "$0" "$build" --session "$dir" \
	"$port" "$ref/mvdsv.log" "paused the game\\." "game unpaused" "$ref/console"
sleep 1
echo quit >&4
exec 4>&-
sleep 1
kill "$mvdsv_pid" 2>/dev/null
wait "$mvdsv_pid" 2>/dev/null
mvdsv_pid=""
cp "$ref/mvdsv.log" "$art/ezquake-pause-mvdsv.log"
keep "$dir" mvdsv

log=$ref/mvdsv.log
check "[mvdsv] entered the game" grep -q "tester entered the game" "$log"
check "[mvdsv] paused by the client's pause key (KTX's countdown)" grep -q "tester paused the game" "$log"
check "[mvdsv] resumed by it" grep -q "game unpaused" "$log"
sv_paused_seen() {
	v=$(sed -n 's/.*"sv_paused" is "\([0-9]*\)".*/\1/p' "$log" | tr '\n' ' ')
	echo "$suite: [mvdsv] sv_paused while paused, then after: $v"
	[ "$v" = "1 0 " ]
}
check "[mvdsv] sv_paused 1 while paused, 0 after" sv_paused_seen
check "[mvdsv] ezQuake drew PAUSED only while paused" drawn "$dir" mvdsv
finish
