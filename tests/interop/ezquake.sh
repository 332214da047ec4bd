#!/bin/sh
# tests/interop/ezquake.sh BUILD -- a stock QuakeWorld client plays on qwd.
#
# Design note: the test a person would do.  ezQuake (Debian package), under
# Xvfb with Mesa, starts from an empty base directory holding only client
# data, connects to qwd serving a map the client does not have, downloads
# it, enters the game, stays 8 s, then
# quits with a key press (F10, bound to "quit" on its command line,
# pressed with xdotool as a player would), which disconnects cleanly.
# Runs, each a fresh base directory, server and display:
#   generated  always: the client data build/mkassets makes at test time
#              (tools/mkassets/main.c says what it holds and why each file
#              is needed: palette, colormap, console background, the 30
#              menu pictures, gfx.wad with our font and status bar, a box
#              model for every model the game precaches (the item boxes,
#              maps/b_*.bsp, among them), a silent WAV for every sound it
#              precaches, the thunderbolt's beam and the explosion
#              sprite: 129 files, 368 KB), on the bundled map
#              small, which qwd finds by name.  This is what a fresh clone
#              has, so it is what every run covers.  The client is told
#              not to take FTE's chunked downloads (cl_pext_chunkeddownloads
#              0): the stock download, one block a round trip, is checked.
#   bigmap     always: the same data on a map of more than 2 MB made here
#              (a room floored with 400 tiles of 400 textures, compiled by
#              build/qwmap: qwmap generates a 64x64 texture with its mip
#              levels for each name, 5.5 KB each), downloaded with FTE's
#              chunked downloads, ezQuake's default; once in the game, F9
#              (bound to "download demos/ezq.mvd") fetches a file placed in
#              the server's demo folder, as a caster fetches a match.
#              Served by `qwd -threads 2` (docs/parallel.md: each frame's
#              replies built by two threads; the parallel phase keeps a
#              client with chunks queued for its commit): the server's
#              log must say its replies are built by 2 threads, a result
#              of its own.  (This was a fourth session, "threads2": the
#              generated data on small, chunked, no demo, -threads 2; the
#              run here makes each of its checks, on a download eight
#              times as long, and saves starting ezQuake once more.)
#   shared     when $QWD_CLIENT_ASSETS (../shared/client-assets, free data
#              from LibreQuake) exists: the same with that data, on the
#              real map lqdm11 when $QWD_REALMAPS holds it, else on small:
#              real game data on a real map, about 20 s more.
# Checked in the server's log, per run: connect, the map's download in the
# form expected (stock or chunked) and its completion, entered the game,
# left the game (the client's own "drop"), and no timeout; on generated
# data, no request for a model or sound (mkassets wrote them all); the client's
# copy of the map (and of the demo) is the server's byte for byte.  The
# picture: the display is captured twice
# (ImageMagick `import -window root`), once a second after the download
# starts (the console covers the screen) and once in the game; a band
# across the lower middle of the view (440x100 at 100,280: below the
# console lines still shown at the top, above the status bar, left of
# ezQuake's ammo counts) must hold at least 64 colours in the game (a
# drawn world, textures filtered in perspective, has about a thousand;
# console text on its background a dozen) and at least half its pixels
# must differ (10% fuzz) from the console picture, so neither a blank
# screen nor a console that never left passes.  Both captures and the
# server log are kept in build/artifacts/ezquake-NAME*.
# Rates: the client asks for 100000 and the server's sv_maxrate is lifted
# (0) so the 300 KB map comes in about 8 s instead of 13.  The client's
# own port is left to the system (-clientport 0): with the default, 27001,
# it also gets the packets other clients' servers on this machine send
# there.  The window is put at the display's corner (vid_xpos, vid_ypos;
# ezQuake leaves room for a title bar by default) so it fills the capture.
# ezQuake ignores SIGTERM (and spins if its display goes away), so it is
# stopped with SIGKILL when it has not quit by itself.
# Needs: ezquake xvfb xauth imagemagick xdotool libgl1-mesa-dri, installed
# here when missing (Debian, root); when they cannot be installed the test
# is skipped, naming them; without the free client data the session on it
# is skipped, naming the folder.  Prints "ezquake: N passed, M failed" (or
# with ", K skipped (why)") as its last line.
set -u

build=${1:-build}
suite=ezquake
assets=${QWD_CLIENT_ASSETS:-../shared/client-assets}
real=${QWD_REALMAPS:-../shared/realmaps}
ez=/usr/lib/games/ezquake/ezquake
art=build/artifacts
ingame=8
region=440x100+100+280
region_pixels=44000
min_colours=64
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/xclient.sh"

# session DIR BASE MAP PORT DEMO ARGS (on the Xvfb display): the client
# connects (ARGS: more of its options, split at blanks); the console
# picture once the download is under way, the game picture $ingame s
# after entering; F9 fetches demos/DEMO unless DEMO is "-"; quit (ez_quit:
# F10, SIGKILL if it is still there 10 s later)
session() {
	"$ez" -basedir "$2" -nosound -window -clientport 0 +set vid_xpos 0 +set vid_ypos 0 \
		+set cl_onload none +name tester $6 \
		+bind F9 download "demos/$5" \
		+rate 100000 +bind F10 quit +connect "127.0.0.1:$4" >"$1/client.log" 2>&1 &
	echo $! >"$1/ez.pid"
	if wait_for "$1/qwd.log" "downloading maps/$3.bsp" 30; then
		sleep 1
		import -window root "$1/before.png"
	fi
	if wait_for "$1/qwd.log" "entered the game" 90; then
		sleep $ingame
		import -window root "$1/after.png"
	fi
	if [ "$5" != - ]; then
		xdotool key F9
		wait_count "$1/qwd.log" "download complete" 2 30
		sleep 1
	fi
	ez_quit "$1/ez.pid"
}

if [ "${1:-}" = --session ]; then
	shift
	session "$@"
	exit 0
fi

missing=$(xclient_missing "$ez")
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		finish ", 1 skipped (needs the Debian packages$missing; not root with apt-get to install them)"
	fi
	echo "ezquake: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	if ! { apt-get update -qq >/dev/null &&
		apt-get install -y -qq $missing >/dev/null; }; then
		finish ", 1 skipped (could not install the Debian packages$missing)"
	fi
fi

need "$build/qwd" "$build/mkassets" build/qwmap build/maps/small.bsp

mkdir -p "$art"
work=$(mktemp -d)
qwd_pid=""
cleanup() {
	[ -n "$qwd_pid" ] && kill "$qwd_pid" 2>/dev/null
	ez_kill "$work"/*/ez.pid
	rm -rf "$work"
}
trap cleanup EXIT

. "$(dirname "$0")/lib/port.sh"

# play NAME BASE BSP FORM DEMO [CLIENT ARGS [THREADS]]: one client session
# on a server of its own, serving the map BSP (a bundled one by name, else
# copied in) whose download must take FORM (stock or chunked); DEMO: a
# file to put in the server's demo folder and fetch in the game, or "-";
# THREADS (default 1): qwd's -threads
play() {
	name=$1 base=$2 bsp=$3 form=$4 demo=$5 args=${6:-} threads=${7:-1}
	map=$(basename "$bsp" .bsp)
	dir=$work/$name
	mkdir -p "$dir/server/id1/maps"
	case $bsp in
	build/maps/*) ;;	# bundled: qwd finds it by name
	*) cp "$bsp" "$dir/server/id1/maps/" ;;
	esac
	if [ "$demo" != - ]; then
		mkdir -p "$dir/server/qw/demos"
		# any bytes do: what is checked is that they arrive unchanged
		head -c 300000 /dev/urandom >"$dir/server/qw/demos/$demo"
	fi
	port=$(free_port)
	"$build/qwd" -noconsole -seed "$game_seed" -threads "$threads" -basedir "$dir/server" -port "$port" +map "$map" \
		+set hostname interop +set sv_maxrate 0 >"$dir/qwd.log" 2>&1 &
	qwd_pid=$!
	if ! wait_for "$dir/qwd.log" "listening on" 10; then
		cat "$dir/qwd.log"
		echo "ezquake [$name]: qwd did not start"
		failed=$((failed + 1))
		return
	fi

	timeout 240 xvfb-run -a -s "-screen 0 640x480x24" \
		sh "$0" --session "$dir" "$base" "$map" "$port" "$demo" "$args"
	ez_kill "$dir/ez.pid"
	sleep 1
	kill "$qwd_pid" 2>/dev/null
	wait "$qwd_pid" 2>/dev/null
	qwd_pid=""
	cp "$dir/qwd.log" "$art/ezquake-$name-qwd.log"
	for shot in before after; do
		[ -f "$dir/$shot.png" ] && cp "$dir/$shot.png" "$art/ezquake-$name-$shot.png"
	done

	fails=""
	for step in "connected from" "downloading maps/$map.bsp ([0-9]* bytes, $form)" \
		"download complete" "entered the game" '"tester" dropped: disconnected'; do
		grep -q "$step" "$dir/qwd.log" || fails="$fails [$step]"
	done
	grep -q "timed out" "$dir/qwd.log" && fails="$fails [timed out]"
	# the generated data holds every model and sound the game lists: the
	# client asks for none of them
	if [ "$name" != shared ] &&
		grep -qE "download(ing)? (sound/|progs/|maps/b_)" "$dir/qwd.log"; then
		fails="$fails [asked the server for a model or sound the generated data should hold]"
	fi
	if [ "$threads" -gt 1 ]; then
		if grep -q "replies built by $threads threads" "$dir/qwd.log"; then
			echo "ezquake [$name]: qwd -threads $threads built the replies on $threads threads"
			passed=$((passed + 1))
		else
			echo "ezquake [$name]: FAILED: qwd -threads $threads: no \"replies built by $threads threads\" in its log"
			failed=$((failed + 1))
		fi
	fi
	# the client's copies are the server's, byte for byte
	got=$(find "$base" -name "$map.bsp" | head -1)
	cmp -s "$bsp" "${got:-/nonexistent}" || fails="$fails [the client's maps/$map.bsp differs or is missing]"
	if [ "$demo" != - ]; then
		grep -q "downloading demos/$demo ([0-9]* bytes, $form)" "$dir/qwd.log" ||
			fails="$fails [downloading demos/$demo]"
		got=$(find "$base" -name "$demo" | head -1)
		cmp -s "$dir/server/qw/demos/$demo" "${got:-/nonexistent}" ||
			fails="$fails [the client's $demo differs or is missing]"
	fi
	picture=""
	if [ -f "$dir/before.png" ] && [ -f "$dir/after.png" ]; then
		colours=$(identify -format '%k' "$dir/after.png[$region]" 2>/dev/null)
		changed=$(compare -metric AE -fuzz 10% "$dir/before.png[$region]" \
			"$dir/after.png[$region]" null: 2>&1 | awk '{printf "%d", $1}')
		picture="view band: ${colours:-0} colours, ${changed:-0} of $region_pixels pixels changed"
		[ "${colours:-0}" -ge $min_colours ] ||
			fails="$fails [fewer than $min_colours colours in the view band]"
		[ $((${changed:-0} * 2)) -ge $region_pixels ] ||
			fails="$fails [view band much as on the console]"
	else
		fails="$fails [no screenshot before and in the game]"
	fi
	if [ -n "$fails" ]; then
		echo "--- server log ($name)"
		grep -v "download sound/" "$dir/qwd.log"
		echo "--- client output ($name)"
		cat "$dir/client.log"
		echo "ezquake [$name, $map]: FAILED, missing:$fails; $picture"
		failed=$((failed + 1))
	else
		echo "ezquake [$name, $map$( [ "$threads" -eq 1 ] || echo ", qwd -threads $threads")]: connected, downloaded ($form$( [ "$demo" = - ] || echo ", and a demo in the game")), played ${ingame} s, quit cleanly; $picture"
		passed=$((passed + 1))
	fi
}

# bigmap.map: a closed room of 960 x 960 units, its floor 20 x 20 tiles of
# 48 units, each with a texture of its own (t000..t399): 400 generated
# textures make the compiled map a little over 2 MB
bigmap() {
	awk 'function box(x0, y0, z0, x1, y1, z1, t) {
		print "{"
		printf "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n", x0, y1, z0, x0, y0, z1, x0, y0, z0, t
		printf "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n", x1, y0, z0, x1, y0, z1, x1, y1, z0, t
		printf "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n", x0, y0, z1, x1, y0, z0, x0, y0, z0, t
		printf "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n", x0, y1, z0, x1, y1, z0, x0, y1, z1, t
		printf "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n", x1, y0, z0, x0, y1, z0, x0, y0, z0, t
		printf "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n", x0, y0, z1, x0, y1, z1, x1, y0, z1, t
		print "}"
	}
	BEGIN {
		n = 20; s = 48; w = n * s
		print "{\n\"classname\" \"worldspawn\"\n\"message\" \"qwd interop: 400 textures\""
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				box(i * s, j * s, -16, (i + 1) * s, (j + 1) * s, 0, sprintf("t%03d", i * n + j))
		box(-16, -16, -16, 0, w + 16, 272, "wall")
		box(w, -16, -16, w + 16, w + 16, 272, "wall")
		box(0, -16, -16, w, 0, 272, "wall")
		box(0, w, -16, w, w + 16, 272, "wall")
		box(0, 0, 256, w, w, 272, "ceiling")
		print "}"
		print "{\n\"classname\" \"info_player_start\"\n\"origin\" \"480 480 24\"\n}"
		print "{\n\"classname\" \"info_player_deathmatch\"\n\"origin\" \"480 480 24\"\n}"
	}' >"$1"
}

bigmap "$work/bigmap.map"
if ! build/qwmap -q "$work/bigmap.map" "$work/bigmap.bsp"; then
	echo "ezquake [bigmap]: qwmap could not compile the generated map"
	failed=$((failed + 1))
	finish
fi
echo "ezquake: bigmap.bsp is $(wc -c <"$work/bigmap.bsp") bytes"
if ! "$build/mkassets" "$work/generated-base" build/maps/small.bsp "$work/bigmap.bsp"; then
	echo "ezquake [generated]: mkassets failed"
	failed=$((failed + 1))
	finish
fi
cp -r "$work/generated-base" "$work/bigmap-base"
play generated "$work/generated-base" build/maps/small.bsp stock - "+set cl_pext_chunkeddownloads 0"
play bigmap "$work/bigmap-base" "$work/bigmap.bsp" chunked ezq.mvd "" 2

if [ -d "$assets/id1" ]; then
	mkdir -p "$work/shared-base"
	cp -r "$assets/id1" "$work/shared-base/"
	bsp=build/maps/small.bsp
	[ -f "$real/lqdm11.bsp" ] && bsp=$real/lqdm11.bsp
	# drate 10000 (80,000 bytes/s with 8 chunks for each the rate lets
	# through): lqdm11's 224 KB take about 3 s, so the console picture,
	# 1 s into the download, shows the download and not the game
	play shared "$work/shared-base" "$bsp" chunked - "+setinfo drate 10000"
	finish
fi
finish ", 1 skipped (the session on free client data: no $assets/id1; set QWD_CLIENT_ASSETS)"
