#!/bin/sh
# tests/interop/spectator.sh BUILD -- a stock client spectates a bot on qwd.
#
# Design note: what a caster does.  qwd serves the bundled map small with
# its console on a pipe; one qwbots walker (stock protocol 28: it walks,
# turns and fires its shotgun; mostly walking, --walker 2,20,5) plays; ezQuake (Debian package), under Xvfb
# with Mesa, on the client data build/mkassets makes, connects as a
# spectator (`spectator 1`), downloads the map and enters.  Then, as a
# person would:
#   1. free flight: a capture of the display (ImageMagick `import`);
#   2. F8, bound to "track bot0000" on its command line and pressed with
#      xdotool: ezQuake sends "ptrack 0" and from then on its chase
#      camera's clc_tmove in its reliable stream; two captures, 3 s apart;
#      between them the console is asked "status", which lists where each
#      client is and whom a spectator tracks, with the stats it was last
#      sent;
#   3. F10, bound to quit; "status" and "quit" on qwd's console.
# Checked:
#   - the server's record: the spectator tracks slot 0 and was sent the
#     bot's health and ammo (not 0: a spectator's own); its origin (placed by clc_tmove) is
#     within 100 units of the bot's (ezQuake's chase camera sends the
#     player's own origin), in both listings;
#   - the status bar: the band at the bottom of the display (640x48 at
#     0,432) changes when tracking begins; its health digits (140x48 at
#     280,432) are drawn in the bright digits (health over 25, the bot's: at
#     least 300 pixels of their colour,
#     where free flight has none and a spectator's own empty bar
#     (what it would get if the bot's stats were not sent: health 0, as
#     under MVDSV and KTX) has a low "0"; and when the server sent a
#     different ammo count at the two listings (the bot fires), the ammo
#     digits (100x48 at 500,432) differ between the two tracked captures;
#   - the view is the bot's: the view above the bar while tracking differs
#     from free flight's, or the two tracked captures from each other, in
#     at least half its pixels (no input is given, so a free camera would
#     stand still); and the bot walked
#     at least 100 units between the two listings (the spectator with it);
#   - no datagram from the client counted malformed (the server's counts
#     of bad message bytes, truncated messages and bad strings, logged at
#     shutdown, are absent), no player tmove ignored (the spectator's
#     were all taken), and the client left by itself.
# The captures and the server's log are kept in build/artifacts/spectator-*.
# Needs: ezquake xvfb xauth imagemagick xdotool libgl1-mesa-dri (the
# Debian packages ezquake.sh installs); skipped, naming them, without.
# Prints "spectator: N passed, M failed[, K skipped (why)]" last.
set -u

build=${1:-build}
suite=spectator
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/port.sh"

ez=/usr/lib/games/ezquake/ezquake
art=build/artifacts
bar=640x48+0+432
view=640x300+0+60
health=140x48+280+432	# ezQuake's status bar at 640x480: the health digits
ammo=100x48+500+432	# the current ammo's
yellow='#DDBF3C'	# the digits' colours (gfx.wad's num_ and anum_ of
red='#CE382D'		# build/mkassets, as ezQuake draws them)
min_bar_pixels=300

. "$(dirname "$0")/lib/xclient.sh"
missing=$(xclient_missing "$ez")
[ -z "$missing" ] || finish ", 1 skipped (needs the Debian packages$missing; tests/interop/ezquake.sh installs them)"
need "$build/qwd" "$build/qwbots" "$build/mkassets" build/maps/small.bsp

# session DIR BASE PORT (on the Xvfb display): the spectator's client,
# the captures, the console's listings in between
session() {
	"$ez" -basedir "$2" -nosound -window -clientport 0 +set vid_xpos 0 +set vid_ypos 0 \
		+set cl_onload none +name caster +spectator 1 +rate 100000 \
		+bind F8 track bot0000 +bind F10 quit \
		+connect "127.0.0.1:$3" >"$1/client.log" 2>&1 &
	echo $! >"$1/ez.pid"
	if wait_for "$1/qwd.log" '"caster" entered the game' 90; then
		sleep 3
		import -window root "$1/free.png"
		xdotool key F8
		sleep 3
		echo status >"$1/console"
		sleep 1
		import -window root "$1/tracked1.png"
		sleep 3
		import -window root "$1/tracked2.png"
		echo status >"$1/console"
		sleep 1
	fi
	ez_quit "$1/ez.pid"
}

if [ "${2:-}" = --session ]; then
	session "$3" "$4" "$5"
	exit 0
fi

mkdir -p "$art"
work=$(mktemp -d)
qwd_pid="" bots_pid=""
cleanup() {
	[ -n "$bots_pid" ] && kill "$bots_pid" 2>/dev/null
	[ -n "$qwd_pid" ] && kill "$qwd_pid" 2>/dev/null
	ez_kill "$work/ez.pid"
	rm -rf "$work"
}
trap cleanup EXIT

port=$(free_port)
if ! "$build/mkassets" "$work/base" build/maps/small.bsp >"$work/mkassets.log" 2>&1; then
	cat "$work/mkassets.log"
	echo "spectator: mkassets failed"
	failed=1
	finish
fi

mkdir -p "$work/server"
mkfifo "$work/console"
"$build/qwd" -basedir "$work/server" -port "$port" -ip 127.0.0.1 -seed "$game_seed" +map small \
	+set hostname spectator +set sv_maxrate 0 <"$work/console" >"$work/qwd.log" 2>&1 &
qwd_pid=$!
exec 3>"$work/console"
if ! wait_for "$work/qwd.log" "listening on" 10; then
	cat "$work/qwd.log"
	echo "spectator: qwd did not start"
	failed=1
	finish
fi
"$build/qwbots" --server "127.0.0.1:$port" --bots 1 --rate 30 --duration 90 \
	--walker 2,20,5 --qwdx off --name bot --map build/maps/small.bsp >"$work/qwbots.log" 2>&1 &
bots_pid=$!
wait_for "$work/qwd.log" '"bot0000" entered the game' 10

timeout 200 xvfb-run -a -s "-screen 0 640x480x24" sh "$0" "$build" --session "$work" "$work/base" "$port"
ez_kill "$work/ez.pid"
kill "$bots_pid" 2>/dev/null
wait "$bots_pid" 2>/dev/null
bots_pid=""
sleep 1
echo status >&3
sleep 1
echo quit >&3
exec 3>&-
i=0
while [ $i -lt 10 ] && kill -0 "$qwd_pid" 2>/dev/null; do
	sleep 1
	i=$((i + 1))
done
wait "$qwd_pid" 2>/dev/null
qwd_pid=""
cp "$work/qwd.log" "$art/spectator-qwd.log"
for shot in free tracked1 tracked2; do
	[ -f "$work/$shot.png" ] && cp "$work/$shot.png" "$art/spectator-$shot.png"
done

# the console's listings while tracking: "at X Y Z" for the bot and the
# spectator, "spectator tracking 0 (health H, armor A, ammo N)"
listings=$(grep -c "spectator tracking" "$work/qwd.log")
check "the server lists the spectator tracking the bot twice ($listings)" [ "$listings" -ge 2 ]
grep "spectator tracking 0 (health [1-9][0-9]*, armor [0-9]*, ammo [1-9][0-9]*)" "$work/qwd.log" | head -1 >"$work/tracking"
check "the bot's health and ammo were sent to the spectator: $(sed 's/.*tracking/tracking/' "$work/tracking")" test -s "$work/tracking"
# distance between the spectator and the bot in each listing, and how far
# the bot went between them
awk '$3 == "bot0000" && / at / { for (i = 1; i <= NF; i++) if ($i == "at") { bx = $(i+1); by = $(i+2); bz = $(i+3) } }
	$3 == "caster" && /spectator tracking/ {
		for (i = 1; i <= NF; i++) if ($i == "at") { x = $(i+1); y = $(i+2); z = $(i+3) }
		d = sqrt((x-bx)^2 + (y-by)^2 + (z-bz)^2); n++
		printf "listing %d: spectator at %s %s %s, bot at %s %s %s, %.0f apart\n", n, x, y, z, bx, by, bz, d
		if (n == 1) { fx = bx; fy = by } else moved = sqrt((bx-fx)^2 + (by-fy)^2)
	}
	END { printf "the bot moved %.0f units between the listings\n", moved }' "$work/qwd.log" >"$work/follow"
sed 's/^/spectator: /' "$work/follow"
far=$(awk '/apart/ { if ($(NF-1) > 100) n++ } END { print n + 0 }' "$work/follow")
near=$(grep -c apart "$work/follow")
moved=$(awk '/moved/ { print int($4) }' "$work/follow")
check "the spectator's origin (clc_tmove) is with the bot in every listing" [ "$near" -ge 2 -a "$far" -eq 0 ]
check "the bot walked between the listings, so the view followed it (${moved:-0} units)" [ "${moved:-0}" -ge 100 ]

# pixels of IMAGE's REGION within 6% of COLOUR
colour_pixels() {
	convert "$1" -crop "$2" +repage -fuzz 6% -fill black +opaque "$3" \
		-fill white -opaque "$3" -format '%[fx:int(mean*w*h+0.5)]' info: 2>/dev/null
}

if [ -f "$work/free.png" ] && [ -f "$work/tracked1.png" ] && [ -f "$work/tracked2.png" ]; then
	barpix=$(compare -metric AE -fuzz 10% "$work/free.png[$bar]" "$work/tracked1.png[$bar]" null: 2>&1 | awk '{printf "%d", $1}')
	viewpix=$(compare -metric AE -fuzz 10% "$work/free.png[$view]" "$work/tracked1.png[$view]" null: 2>&1 | awk '{printf "%d", $1}')
	free_yellow=$(colour_pixels "$work/free.png" "$health" "$yellow")
	bright=$(colour_pixels "$work/tracked1.png" "$health" "$yellow")
	low=$(colour_pixels "$work/tracked1.png" "$health" "$red")
	echo "spectator: status bar band: ${barpix:-0} pixels differ between free flight and tracking; health digits ($health): ${bright:-0} pixels of the bright digits' $yellow while tracking (${low:-0} of the low digits' $red), ${free_yellow:-0} in free flight; view: ${viewpix:-0} of 192000 pixels differ between free flight and tracking"
	check "the status bar changed when tracking began" [ "${barpix:-0}" -ge $min_bar_pixels ]
	# a health over 25 is drawn in bright digits; a spectator's own empty bar
	# (health 0, what it would show if the bot's stats were not sent)
	# in the low ones, and free flight has no numbers there.  The low
	# digits' count is only reported: the bar has no background here, and
	# the small map's red walls behind it share the low digits' colour
	check "the status bar shows the bot's health (bright digits, not an empty bar's low 0)" \
		[ "${bright:-0}" -ge 300 -a "${free_yellow:-0}" -lt 100 ]
	# the bot fires: its shells go down, and the bar's ammo with them
	ammo1=$(grep -o "spectator tracking 0 (health [0-9]*, armor [0-9]*, ammo [0-9]*)" "$work/qwd.log" | sed -n '1s/.*ammo \([0-9]*\))/\1/p')
	ammo2=$(grep -o "spectator tracking 0 (health [0-9]*, armor [0-9]*, ammo [0-9]*)" "$work/qwd.log" | sed -n '2s/.*ammo \([0-9]*\))/\1/p')
	ammopix=$(compare -metric AE -fuzz 10% "$work/tracked1.png[$ammo]" "$work/tracked2.png[$ammo]" null: 2>&1 | awk '{printf "%d", $1}')
	if [ -n "$ammo1" ] && [ -n "$ammo2" ] && [ "$ammo1" != "$ammo2" ]; then
		check "the bar's ammo changed with the bot's ($ammo1 -> $ammo2: ${ammopix:-0} pixels of $ammo)" \
			[ "${ammopix:-0}" -ge 100 ]
	else
		echo "spectator: the bot's ammo was ${ammo1:-?} at both listings: the ammo digits are not compared"
	fi
	# the client is given no input: a free-flying camera stands still, so
	# a view that left free flight's, or that changed between the two
	# tracked captures (the bot walked on), is the bot's camera; either
	# alone can be small when the bot stands near the free camera's spot
	# or faces the same kind of wall twice.  A quarter of the pixels: a
	# camera that stayed free differs by next to none (it stands still);
	# a tracked one measured 25-56% on a busy machine, where the bot's
	# place at each capture varies with the timing
	movepix=$(compare -metric AE -fuzz 10% "$work/tracked1.png[$view]" "$work/tracked2.png[$view]" null: 2>&1 | awk '{printf "%d", $1}')
	echo "spectator: view: ${movepix:-0} of 192000 pixels differ between the two tracked captures"
	check "the view left free flight for the bot's" \
		[ $((${viewpix:-0} * 4)) -ge 192000 -o $((${movepix:-0} * 4)) -ge 192000 ]
else
	check "the display was captured free and tracking" false
fi

malformed=$(grep "malformed input dropped" "$work/qwd.log" | grep -E "bad message byte|truncated message|bad string")
check "no datagram counted malformed${malformed:+ ($malformed)}" [ -z "$malformed" ]
check "no tmove counted as a player's" grep -q "player tmoves ignored 0," "$work/qwd.log"
check "the client left by itself" grep -q '"caster" dropped: disconnected' "$work/qwd.log"
if [ "$failed" -gt 0 ]; then
	echo "--- server log"
	grep -v "download sound/" "$work/qwd.log" | tail -60
	echo "--- client output"
	tail -30 "$work/client.log"
fi
finish
