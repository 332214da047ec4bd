#!/bin/sh
# tests/interop/ezquake.sh BUILD -- a stock QuakeWorld client plays on qwd.
#
# Design note: the test a person would do.  ezQuake (Debian package), under
# Xvfb with Mesa, starts from an empty base directory holding only the free
# client data of ../shared/client-assets, connects to qwd serving a real map
# the client does not have, downloads it, enters the game, stays 30 s,
# then quits with a key press (F10, bound to "quit" on its command line,
# pressed with xdotool as a player would), which disconnects cleanly.  Checked in the server's log: connect,
# download, download complete, entered the game, left the game (the
# client's own "drop"), and no timeout.  A screenshot of the display taken
# in the game (ImageMagick `import -window root`) is kept in
# build/artifacts/ezquake.png; the test checks that it is not a blank or
# console-only picture by counting its colours.
# Needs: ezquake xvfb xauth imagemagick xdotool libgl1-mesa-dri, installed
# here when missing (Debian, root).  Without ../shared the test is skipped.
# Prints "ezquake: 1 passed, 0 failed" (or failed) as its last line.
set -u

build=${1:-build}
real=${QWD_REALMAPS:-../shared/realmaps}
assets=${QWD_CLIENT_ASSETS:-../shared/client-assets}
map=lqdm11
port=$((27700 + $$ % 200))
art=build/artifacts
mkdir -p "$art"

result() {
	echo "ezquake: $1"
	[ "$2" = pass ] && echo "ezquake: 1 passed, 0 failed" && exit 0
	[ "$2" = skip ] && echo "ezquake: 0 passed, 0 failed, 1 skipped" && exit 0
	echo "ezquake: 0 passed, 1 failed"
	exit 1
}

[ -f "$real/$map.bsp" ] && [ -d "$assets/id1" ] ||
	result "no $real/$map.bsp or $assets: skipped" skip

missing=""
for p in ezquake:/usr/lib/games/ezquake/ezquake xvfb:/usr/bin/Xvfb xauth:/usr/bin/xauth \
	imagemagick:/usr/bin/import xdotool:/usr/bin/xdotool \
	libgl1-mesa-dri:/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so; do
	[ -e "${p#*:}" ] || missing="$missing ${p%%:*}"
done
if [ -n "$missing" ]; then
	echo "ezquake: installing$missing"
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		result "needs$missing (Debian packages)" fail
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null ||
		result "could not install$missing" fail
fi

work=$(mktemp -d)
trap 'kill $qwd_pid 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/server/id1/maps" "$work/client"
cp "$real/$map.bsp" "$work/server/id1/maps/"
cp -r "$assets/id1" "$work/client/"

"$build/qwd" -noconsole -basedir "$work/server" -port $port +map $map \
	+set hostname interop >"$work/qwd.log" 2>&1 &
qwd_pid=$!
sleep 1
kill -0 $qwd_pid 2>/dev/null || { cat "$work/qwd.log"; result "qwd did not start" fail; }

# the client session: connect, wait until in the game, 30 s more, a
# screenshot, then "quit" typed into its console
cat >"$work/session.sh" <<EOF
/usr/lib/games/ezquake/ezquake -basedir "$work/client" -nosound -window \
	+set cl_onload none +name tester +bind F10 quit +connect 127.0.0.1:$port \
	>"$work/ez.log" 2>&1 &
ez=\$!
i=0
while [ \$i -lt 90 ] && ! grep -q "entered the game" "$work/qwd.log"; do
	sleep 1; i=\$((i + 1))
done
sleep 30
import -window root "$art/ezquake.png"
xdotool key F10
i=0
while [ \$i -lt 10 ] && kill -0 \$ez 2>/dev/null; do sleep 1; i=\$((i + 1)); done
kill \$ez 2>/dev/null
exit 0
EOF
timeout 200 xvfb-run -a -s "-screen 0 640x480x24" sh "$work/session.sh"
sleep 1
kill $qwd_pid 2>/dev/null
wait $qwd_pid 2>/dev/null
cp "$work/qwd.log" "$art/ezquake-qwd.log"
echo "--- server log"
cat "$work/qwd.log"
echo "---"

fails=""
for step in "connected from" "downloading maps/$map.bsp" "download complete" \
	"entered the game" '"tester" dropped: disconnected'; do
	grep -q "$step" "$work/qwd.log" || fails="$fails [$step]"
done
grep -q "timed out" "$work/qwd.log" && fails="$fails [timed out]"
if [ -f "$art/ezquake.png" ]; then
	colours=$(identify -format '%k' "$art/ezquake.png" 2>/dev/null || echo 0)
	echo "screenshot: $art/ezquake.png, $colours colours"
	[ "${colours:-0}" -ge 200 ] || fails="$fails [screenshot has $colours colours]"
else
	fails="$fails [no screenshot]"
fi
[ -z "$fails" ] || result "missing from the log or screenshot:$fails" fail
result "connected, downloaded $map, played 30 s, quit cleanly" pass
