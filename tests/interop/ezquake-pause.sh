#!/bin/sh
# tests/interop/ezquake-pause.sh BUILD -- a stock client pauses qwd.
#
# Design note: ezQuake (Debian package) under Xvfb with Mesa, on the client
# data build/mkassets generates, joins qwd on the bundled map small with
# `pausable 1` and, in the game, presses its pause key twice (F8 bound to
# "pause", which ezQuake forwards to the server as MVDSV expects), with
# the console put away first (F7, toggleconsole) so the view shows.
# Checked: the server log says the game paused and resumed at the same
# level time (its clock stood still), and the client was not dropped; the
# picture: ezQuake draws its PAUSED picture (gfx/pause.lmp, centred above
# the status bar) only while its cl.paused is set, which only
# svc_setpause sets, so a band across the middle of the view must differ
# between the capture taken while paused and the one after the resume
# (in at least min_pixels pixels, 10% fuzz) and the capture before the
# pause must match the one after it there (the player stood still):
# the difference is the picture, not the view.  Captures and the server
# log are kept in build/artifacts/ezquake-pause-*.  About 20 s.
# ezQuake ignores SIGTERM; it is stopped with SIGKILL when it has not quit.
# Needs: ezquake xvfb xauth imagemagick xdotool libgl1-mesa-dri (skipped,
# naming them, when missing: tests/interop/ezquake.sh installs them).
set -u

build=${1:-build}
suite=ezquake-pause
ez=/usr/lib/games/ezquake/ezquake
art=build/artifacts
band=400x48+120+180
min_pixels=300
. tests/interop/lib/report.sh

missing=""
[ -x "$ez" ] || missing="$missing ezquake"
command -v Xvfb >/dev/null || missing="$missing xvfb"
command -v xauth >/dev/null || missing="$missing xauth"
{ command -v import >/dev/null && command -v compare >/dev/null; } || missing="$missing imagemagick"
command -v xdotool >/dev/null || missing="$missing xdotool"
ls /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1 || missing="$missing libgl1-mesa-dri"
[ -z "$missing" ] || finish ", 1 skipped (needs the Debian packages$missing)"
for f in "$build/qwd" "$build/mkassets" build/maps/small.bsp; do
	if [ ! -e "$f" ]; then
		echo "$suite: no $f (make)"
		failed=1
		finish
	fi
done

# wait_for FILE PATTERN SECONDS: until PATTERN is in FILE
wait_for() {
	i=0
	while [ $i -lt "$3" ] && ! grep -qs "$2" "$1"; do
		sleep 1
		i=$((i + 1))
	done
	grep -qs "$2" "$1"
}

# session DIR PORT (on the Xvfb display): join, put the console away,
# capture; pause, capture; resume, capture; quit
session() {
	"$ez" -basedir "$1/client" -nosound -window -clientport 0 +set vid_xpos 0 \
		+set vid_ypos 0 +set cl_onload none +name tester +bind F7 toggleconsole \
		+bind F8 pause +bind F10 quit +rate 100000 +connect "127.0.0.1:$2" \
		>"$1/client.log" 2>&1 &
	echo $! >"$1/ez.pid"
	if wait_for "$1/qwd.log" "entered the game" 90; then
		sleep 2
		xdotool key F7
		sleep 2
		import -window root "$1/running.png"
		xdotool key F8
		wait_for "$1/qwd.log" "game paused" 10 && sleep 2
		import -window root "$1/paused.png"
		xdotool key F8
		wait_for "$1/qwd.log" "game resumed" 10 && sleep 2
		import -window root "$1/resumed.png"
	fi
	xdotool key F10
	i=0
	while [ $i -lt 10 ] && kill -0 "$(cat "$1/ez.pid")" 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
	kill -9 "$(cat "$1/ez.pid")" 2>/dev/null
}

if [ "${2:-}" = --session ]; then
	session "$3" "$4"
	exit 0
fi

mkdir -p "$art"
work=$(mktemp -d)
qwd_pid=""
cleanup() {
	[ -n "$qwd_pid" ] && kill "$qwd_pid" 2>/dev/null
	[ -f "$work/ez.pid" ] && kill -9 "$(cat "$work/ez.pid")" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

port=$((27900 + $$ % 100))
while ss -Hlun "sport = :$port" 2>/dev/null | grep -q .; do
	port=$((port + 1))
done
mkdir -p "$work/client" "$work/server"
"$build/mkassets" "$work/client" build/maps/small.bsp >/dev/null 2>&1
"$build/qwd" -noconsole -basedir "$work/server" -port "$port" +map small \
	+set pausable 1 +set sv_maxrate 0 >"$work/qwd.log" 2>&1 &
qwd_pid=$!
wait_for "$work/qwd.log" "listening on" 10
timeout 200 xvfb-run -a -s "-screen 0 640x480x24" sh "$0" "$build" --session "$work" "$port"
kill "$qwd_pid" 2>/dev/null
wait "$qwd_pid" 2>/dev/null
qwd_pid=""
cp "$work/qwd.log" "$art/ezquake-pause-qwd.log"
for shot in running paused resumed; do
	[ -f "$work/$shot.png" ] && cp "$work/$shot.png" "$art/ezquake-pause-$shot.png"
done

log=$work/qwd.log
check "entered the game" grep -q '"tester" entered the game' "$log"
check "paused by the client's pause key" grep -q "game paused at level time" "$log"
check "resumed by it" grep -q "game resumed at level time" "$log"
same_time() {
	p=$(sed -n 's/.*game paused at level time \([0-9.]*\).*/\1/p' "$log" | head -1)
	r=$(sed -n 's/.*game resumed at level time \([0-9.]*\).*/\1/p' "$log" | head -1)
	echo "$suite: paused at level time ${p:-?}, resumed at ${r:-?}"
	[ -n "$p" ] && [ "$p" = "$r" ]
}
check "the level's clock stood still" same_time
check "left cleanly" grep -q '"tester" dropped: disconnected' "$log"

# differing pixels of the band between two captures
band_diff() {
	compare -metric AE -fuzz 10% -extract "$band" "$work/$1.png" "$work/$2.png" \
		null: 2>&1 | sed 's/ .*//; s/\..*//'
}
drawn() {
	[ -f "$work/paused.png" ] && [ -f "$work/resumed.png" ] && [ -f "$work/running.png" ] ||
		return 1
	d=$(band_diff paused resumed)
	s=$(band_diff running resumed)
	echo "$suite: band $band: paused vs resumed $d pixels differ, before vs after $s"
	[ "${d:-0}" -ge "$min_pixels" ] && [ "${s:-$min_pixels}" -lt "$min_pixels" ]
}
check "ezQuake drew PAUSED only while paused" drawn
finish
