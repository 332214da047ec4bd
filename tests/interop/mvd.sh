#!/bin/sh
# tests/interop/mvd.sh BUILD -- qwd's demos and live stream against the
# real peers: ezQuake plays a demo qwd recorded and watches qwd's QTV
# stream; the same viewing checked against MVDSV+KTX, whose demo our
# reader reads too.
#
# Design note: the tests an operator would do.  qwd runs in a temporary
# folder with its console on a FIFO, qtv_streamport on its own port number
# (TCP) and qtv_password set; 6 qwbots walkers (stock protocol 28) play.
# Then, one result each:
#   record   "record interop" on the console, 16 s, "stop": the log says
#            the demo was written; build/mvdcheck reads qw/demos/interop.mvd
#            to EndOfDemo without a fault, all 6 players in a frame, at
#            least 200 frames
#   stream   build/mvdcheck --qtv with the password (the SHA3_512
#            challenge, as ezQuake answers it) reads 5 s of the live stream
#            without a fault, the 6 players in it; a wrong password gets
#            MVDSV's "Bad password."
#   playdemo ezQuake (under Xvfb, the client data of build/mkassets, the
#            bundled maps in id1/maps) plays the demo: +playdemo
#            demos/interop.mvd from its qw/; once the client draws (the
#            session polls for it: a loaded machine starts it slowly),
#            five captures 2 s apart, at least two of which must draw
#            the world (at least 64 colours in the band ezquake.sh uses:
#            440x100 at 100,280; a close wall of the generated data has
#            fewer) and two consecutive drawn ones differ (the tracked
#            player moves: at least 5% of the band's pixels); its console
#            log (-condebug, qw/qconsole.log) says "Playing demo" and has
#            no Host_Error, "Unexpected end of demo", "Corrupted demo",
#            no entity-list warning
#   qtvplay  ezQuake watches the live stream with "qtvplay HOST:PORT
#            PASSWORD", the same captures and the same console checks;
#            qwd's log shows the stream started
#   MVDSV    the same qtvplay checks against MVDSV 0.35 with KTX
#            (qtv_streamport, qtv_password; tests/interop/qwbots-mvdsv.sh
#            lays out its folder): the procedure that passes on qwd
#            passes on the reference server (the client data then holds a
#            box for each model KTX precaches: mkassets makes the progs/
#            names it is given); and MVDSV's own demo of the bots
#            ("record ref") is read by build/mvdcheck to EndOfDemo
#   mvdparser  the community's parser (QW-Group/mvdparser) reads our demo
#            and names the 6 players: only where $MVDPARSER names its
#            binary (it is no Debian package; its fragfile.dat and
#            template.dat are looked for in $MVDPARSER_DATA, else in src/
#            beside or above the binary); otherwise skipped, saying so
# Captures, logs and the demos are kept in build/artifacts/mvd-*.
# ezQuake ignores SIGTERM: it is stopped with SIGKILL (as ezquake.sh).
# Needs what ezquake.sh needs, and mvdsv, ktx for the reference runs
# (installed when missing, Debian, root; else skipped saying which).
# Prints "mvd: N passed, M failed[, K skipped (why)]" as its last line
# (tests/interop/lib/report.sh).
set -u

build=${1:-build}
ez=/usr/lib/games/ezquake/ezquake
art=build/artifacts
region=440x100+100+280
region_pixels=44000
min_colours=64
bots=6
skipped=0
why=""
suite=mvd
. tests/interop/lib/report.sh
. tests/interop/lib/ktx.sh

# the tally's last line, with the skips and why
done_all() {
	if [ "$skipped" -gt 0 ]; then
		finish ", $skipped skipped ($why)"
	fi
	finish
}

skip() {	# skip N WHY
	skipped=$((skipped + $1))
	why="${why:+$why; }$2"
	echo "mvd: skipped $1: $2"
}

# wait_for FILE PATTERN SECONDS: until PATTERN is in FILE
wait_for() {
	_i=0
	while [ $_i -lt $(($3 * 10)) ] && ! grep -qs "$2" "$1"; do
		sleep 0.1
		_i=$((_i + 1))
	done
	grep -qs "$2" "$1"
}

# session DIR BASE ARGS...: ezQuake (on the Xvfb display) with ARGS;
# from 6 s on, once the view band shows the world (polled each second for
# up to 30 s more: a loaded machine starts the client slowly, which is no
# failure), five captures 2 s apart, then SIGKILL
session() {
	dir=$1 base=$2
	shift 2
	"$ez" -basedir "$base" -nosound -window -condebug -clientport 0 \
		+set vid_xpos 0 +set vid_ypos 0 +set cl_onload none "$@" \
		>"$dir/client.log" 2>&1 &
	echo $! >"$dir/ez.pid"
	sleep 6
	_i=0
	while [ $_i -lt 30 ]; do
		import -window root "$dir/probe.png" 2>/dev/null
		_n=$(identify -format '%k' "$dir/probe.png[$region]" 2>/dev/null)
		[ "${_n:-0}" -ge $min_colours ] && break
		sleep 1
		_i=$((_i + 1))
	done
	for shot in a b c d e; do
		import -window root "$dir/$shot.png"
		sleep 2
	done
	kill -9 "$(cat "$dir/ez.pid")" 2>/dev/null
}

if [ "${1:-}" = --session ]; then
	shift
	session "$@"
	exit 0
fi

# view NAME DIR BASE ARGS...: a session, then its pictures and console
# judged; one result
view() {
	name=$1 dir=$2 base=$3
	shift 3
	mkdir -p "$dir"
	rm -f "$base/qw/qconsole.log"
	timeout 90 xvfb-run -a -s "-screen 0 640x480x24" sh "$0" --session "$dir" "$base" "$@"
	kill -9 "$(cat "$dir/ez.pid" 2>/dev/null)" 2>/dev/null
	fails=""
	picture=""
	colours=""
	drawn=0
	moved=0
	prev=""
	for shot in a b c d e; do
		[ -f "$dir/$shot.png" ] || continue
		cp "$dir/$shot.png" "$art/mvd-$name-$shot.png"
		n=$(identify -format '%k' "$dir/$shot.png[$region]" 2>/dev/null)
		colours="$colours ${n:-0}"
		if [ "${n:-0}" -lt $min_colours ]; then
			prev=""	# not drawn (yet): no pair with it
			continue
		fi
		drawn=$((drawn + 1))
		if [ -n "$prev" ]; then
			c=$(compare -metric AE -fuzz 10% "$dir/$prev.png[$region]" \
				"$dir/$shot.png[$region]" null: 2>&1 | awk '{printf "%d", $1}')
			[ "${c:-0}" -gt "$moved" ] && moved=${c:-0}
		fi
		prev=$shot
	done
	picture="band:$colours colours, at most $moved of $region_pixels pixels changed in 2 s"
	[ $drawn -ge 2 ] || fails="$fails [fewer than 2 captures drew the world]"
	# a frozen picture fails; a tracked player standing 2 s does not
	[ $((moved * 20)) -ge $region_pixels ] || fails="$fails [the view did not move]"
	con="$base/qw/qconsole.log"
	if [ -f "$con" ]; then
		cp "$con" "$art/mvd-$name-console.log"
		grep -aq "$want_console" "$con" || fails="$fails [no \"$want_console\" on its console]"
		bad=$(grep -a -e "Host_Error" -e "Unexpected end of demo" -e "Corrupted demo" \
			-e "oldcopy on full update" -e "delta on full update" \
			-e "U_REMOVE on full update" -e "newindex == MAX_PACKET_ENTITIES" \
			-e "Illegible server message" -e "Non-standard disconnect" "$con" | head -3)
		[ -z "$bad" ] || fails="$fails [console: $bad]"
	else
		fails="$fails [no console log]"
	fi
	if [ -n "$fails" ]; then
		cat "$dir/client.log"
		check "$name: ezQuake:$fails; $picture" false
	else
		check "$name: ezQuake drew it, the view moved, no error on its console; $picture" true
	fi
}

for f in "$build/qwd" "$build/qwbots" "$build/mvdcheck" "$build/mkassets" build/maps/small.bsp; do
	[ -e "$f" ] || { check "$f exists (make)" false; done_all; }
done

have() {
	case $1 in
	ezquake) [ -x "$ez" ] ;;
	xvfb) command -v Xvfb >/dev/null ;;
	xauth) command -v xauth >/dev/null ;;
	imagemagick) command -v import >/dev/null && command -v compare >/dev/null ;;
	libgl1-mesa-dri) ls /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1 ;;
	mvdsv) [ -n "$(mvdsv_binary)" ] ;;
	ktx) [ -f /usr/lib/quakeworld/ktx/qwprogs.so ] ;;
	esac
}
missing=""
for p in ezquake xvfb xauth imagemagick libgl1-mesa-dri mvdsv ktx; do
	have $p || missing="$missing $p"
done
if [ -n "$missing" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
	echo "mvd: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null
fi
viewer=yes
for p in ezquake xvfb xauth imagemagick libgl1-mesa-dri; do
	have $p || viewer=""
done
reference=yes
for p in mvdsv ktx; do
	have $p || reference=""
done

mkdir -p "$art"
work=$(mktemp -d)
qwd_pid=""
mvdsv_pid=""
bots_pid=""
cleanup() {
	exec 3>&- 2>/dev/null
	exec 4>&- 2>/dev/null
	[ -n "$bots_pid" ] && kill "$bots_pid" 2>/dev/null
	[ -n "$qwd_pid" ] && kill "$qwd_pid" 2>/dev/null
	[ -n "$mvdsv_pid" ] && kill "$mvdsv_pid" 2>/dev/null
	for p in "$work"/*/ez.pid; do
		[ -f "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. tests/interop/lib/port.sh	# free_port: free for UDP and TCP

# the client's base: generated data, the bundled maps, a demos folder
base=$work/client
if ! "$build/mkassets" "$base" build/maps/small.bsp >/dev/null; then
	check "mkassets makes the client data" false
	done_all
fi
mkdir -p "$base/id1/maps" "$base/qw/demos"
cp build/maps/*.bsp "$base/id1/maps/"

# ---- qwd: record, stream --------------------------------------------------
port=$(free_port)
srv=$work/qwd
mkdir -p "$srv"
mkfifo "$srv/console"
qwd=$(cd "$(dirname "$build/qwd")" && pwd)/qwd
(cd "$srv" && exec "$qwd" -seed "$game_seed" -port "$port" +set qtv_streamport "$port" \
	+set qtv_password secret +map small <"$srv/console" >"$srv/qwd.log" 2>&1) &
qwd_pid=$!
exec 3>"$srv/console"
wait_for "$srv/qwd.log" "QTV: listening" 10
check "qwd starts, QTV listening on TCP $port" [ $? -eq 0 ]

"$build/qwbots" --server "127.0.0.1:$port" --bots $bots --rate 30 --duration 90 \
	--map build/maps/small.bsp --qwdx off --no-progress --quiet >"$srv/bots.log" 2>&1 &
bots_pid=$!
wait_for "$srv/qwd.log" "bot000$((bots - 1))\" entered the game" 20
sleep 1

echo "record interop" >&3
sleep 16
echo "stop" >&3
wait_for "$srv/qwd.log" "demo interop.mvd written" 5
check "record interop ... stop: the demo is written" [ $? -eq 0 ]
demo=$srv/qw/demos/interop.mvd
cp "$demo" "$art/mvd-interop.mvd" 2>/dev/null
"$build/mvdcheck" "$demo" >"$srv/check.txt" 2>&1
rc=$?
cat "$srv/check.txt"
val() { sed -n "s/^$1  *//p" "$2" | cut -d' ' -f1; }
frames=$(val frames "$srv/check.txt")
inframe=$(val players_in_frame "$srv/check.txt")
[ $rc -eq 0 ] && [ "$(val end "$srv/check.txt")" = EndOfDemo ] &&
	[ "${inframe:-0}" -eq $bots ] && [ "${frames:-0}" -ge 200 ]
check "mvdcheck reads the demo to EndOfDemo ($frames frames, $inframe players in a frame)" [ $? -eq 0 ]

"$build/mvdcheck" --qtv "127.0.0.1:$port" --password secret --seconds 5 >"$srv/stream.txt" 2>&1
rc=$?
cat "$srv/stream.txt"
frames=$(val frames "$srv/stream.txt")
[ $rc -eq 0 ] && grep -q "^result *ok" "$srv/stream.txt" &&
	[ "$(val players_in_frame "$srv/stream.txt")" = $bots ] && [ "${frames:-0}" -ge 50 ]
check "mvdcheck --qtv (SHA3_512 challenge) reads the live stream ($frames frames in 5 s)" [ $? -eq 0 ]
"$build/mvdcheck" --qtv "127.0.0.1:$port" --password wrong --seconds 3 >"$srv/wrong.txt" 2>&1
said=$(sed -n 's/^result *//p' "$srv/wrong.txt")
check "a wrong QTV password: \"$said\"" grep -q "refused: Bad password." "$srv/wrong.txt"

if [ -n "$viewer" ]; then
	cp "$demo" "$base/qw/demos/interop.mvd"
	want_console="Playing demo from interop.mvd"
	view playdemo "$work/playdemo" "$base" +playdemo demos/interop.mvd
	streams=$(grep -c "QTV stream [0-9]* to .* started" "$srv/qwd.log")
	want_console="qwd small: nine rooms"
	view qtvplay "$work/qtvplay" "$base" +qtvplay "127.0.0.1:$port" secret
	[ "$(grep -c "QTV stream [0-9]* to .* started" "$srv/qwd.log")" -gt "$streams" ]
	check "qwd's log shows ezQuake's stream" [ $? -eq 0 ]
else
	skip 3 "ezQuake under Xvfb: missing packages$missing"
fi
echo "quit" >&3
exec 3>&-
kill "$bots_pid" 2>/dev/null
wait "$qwd_pid" 2>/dev/null
qwd_pid=""
cp "$srv/qwd.log" "$art/mvd-qwd.log"

# ---- the reference: MVDSV with KTX -------------------------------------------
if [ -n "$reference" ]; then
	mvdsv=$(mvdsv_binary)
	ref=$work/mvdsv
	ktx_base "$ref"
	mkfifo "$ref/console"
	# not qwd's port: its connections may still hold it (TIME_WAIT)
	port=$(free_port)
	(cd "$ref" && exec "$mvdsv" -basedir "$ref" -game ktx -port "$port" \
		+set qtv_streamport "$port" +map small \
		<"$ref/console" >"$ref/mvdsv.log" 2>&1) &
	mvdsv_pid=$!
	exec 4>"$ref/console"
	sleep 2
	# KTX's pwd.cfg sets its own when the map loads
	echo "qtv_password secret" >&4
	"$build/qwbots" --server "127.0.0.1:$port" --bots $bots --rate 30 --duration 60 \
		--map build/maps/small.bsp --qwdx off --no-progress --quiet >"$ref/bots.log" 2>&1 &
	bots_pid=$!
	wait_for "$ref/mvdsv.log" "bot000$((bots - 1)) entered the game" 20
	echo "record ref" >&4
	sleep 8
	echo "stop" >&4
	wait_for "$ref/mvdsv.log" "Server recording completed" 5
	"$build/mvdcheck" "$ref/ktx/demos/ref.mvd" >"$ref/check.txt" 2>&1
	rc=$?
	cat "$ref/check.txt"
	[ $rc -eq 0 ] && [ "$(val end "$ref/check.txt")" = EndOfDemo ] &&
		[ "$(val players_in_frame "$ref/check.txt")" = $bots ]
	check "mvdcheck reads MVDSV's own demo to EndOfDemo" [ $? -eq 0 ]
	if [ -n "$viewer" ]; then
		# KTX precaches models our game does not: a box for each
		ktxbase=$work/client-ktx
		ktx_client_data "$build" "$ktxbase"
		want_console="small: nine rooms"
		view mvdsv-qtvplay "$work/mvdsv-qtvplay" "$ktxbase" +qtvplay "127.0.0.1:$port" secret
	else
		skip 1 "ezQuake under Xvfb: missing packages$missing"
	fi
	echo "quit" >&4
	exec 4>&-
	kill "$bots_pid" 2>/dev/null
	kill "$mvdsv_pid" 2>/dev/null
	wait "$mvdsv_pid" 2>/dev/null
	mvdsv_pid=""
	cp "$ref/mvdsv.log" "$art/mvd-mvdsv.log"
else
	skip 2 "MVDSV+KTX reference: missing packages$missing"
fi

# ---- the community's parser ------------------------------------------------------
parser=${MVDPARSER:-$(command -v mvdparser 2>/dev/null)}
if [ -n "$parser" ] && [ -x "$parser" ]; then
	dir=$(dirname "$parser")
	mkdir -p "$work/parse"
	cp "$art/mvd-interop.mvd" "$work/parse/interop.mvd"
	# its fragfile.dat and template.dat: the repository's src/
	data=""
	for d in "${MVDPARSER_DATA:-}" "$dir/src" "$dir/../src"; do
		[ -n "$d" ] && [ -f "$d/fragfile.dat" ] && { data=$d; break; }
	done
	(cd "$work/parse" && "$parser" -f "$data/fragfile.dat" -t "$data/template.dat" \
		interop.mvd >parse.log 2>&1)
	rc=$?
	named=$(grep -c '"name_raw": "bot' "$work/parse/interop.mvd.json" 2>/dev/null)
	cp "$work/parse/interop.mvd.json" "$art/mvd-interop.mvd.json" 2>/dev/null
	[ $rc -eq 0 ] && [ "${named:-0}" -eq $bots ]
	check "mvdparser reads the demo (status $rc, ${named:-0} players named)" [ $? -eq 0 ]
else
	skip 1 "no mvdparser (QW-Group/mvdparser is not packaged; set \$MVDPARSER to its binary)"
fi
done_all
