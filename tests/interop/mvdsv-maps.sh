#!/bin/sh
# tests/interop/mvdsv-maps.sh BUILD -- MVDSV with KTX runs the project's maps.
#
# Design note: our maps must be ordinary QuakeWorld maps, not maps only qwd
# accepts.  MVDSV 0.35 (Debian package mvdsv) with the KTX game (package
# ktx: /usr/lib/quakeworld/ktx/qwprogs.so) is started in an empty base
# directory holding only id1/maps/small.bsp and large.bsp (from build/maps,
# made by `make maps`; $QWD_MAPS_DIR overrides) and a four-line server.cfg
# that loads KTX as a native library (sv_progtype 1) with deathmatch 1, on
# a free loopback port.  KTX's own configs are left out on purpose: they
# change to dm3 on start.  The server starts with `+map small`; the console
# (a FIFO on its stdin) then gets `map large`.  Each map passes when a
# status query (quakestat -qws, package qstat) shows the server running
# it within 20 s, and fails on any error MVDSV or KTX prints while loading
# it: SV_Error (CM_LoadMap's checks of every lump), Host_Error, "Can't
# find maps/", "Couldn't spawn", "ERROR:".  KTX spawns the item boxes
# (maps/b_*.bsp) by name only: MVDSV never opened those files in our runs,
# so none are copied in.  Without the packages (and not root to install
# them) the test is skipped.
# Prints "mvdsv-maps: N passed, M failed" as its last line.
set -u

build=${1:-build}
maps=${QWD_MAPS_DIR:-build/maps}
limit=20
passed=0
failed=0

finish() {
	echo "mvdsv-maps: $passed passed, $failed failed$1"
	[ "$failed" -eq 0 ] && exit 0
	exit 1
}

missing=""
for p in mvdsv:/usr/games/mvdsv ktx:/usr/lib/quakeworld/ktx/qwprogs.so \
	qstat:/usr/bin/quakestat; do
	[ -e "${p#*:}" ] || missing="$missing ${p%%:*}"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		echo "mvdsv-maps: needs$missing (Debian packages): skipped"
		finish ", 2 skipped"
	fi
	echo "mvdsv-maps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	if ! { apt-get update -qq >/dev/null &&
		apt-get install -y -qq $missing >/dev/null; }; then
		echo "mvdsv-maps: could not install$missing"
		failed=2
		finish ""
	fi
fi
mvdsv=$(dpkg -L mvdsv 2>/dev/null | grep -m1 '/mvdsv$')
[ -x "${mvdsv:-}" ] || mvdsv=/usr/games/mvdsv
progs=$(dpkg -L ktx 2>/dev/null | grep -m1 'qwprogs\.so$')
[ -f "${progs:-}" ] || progs=/usr/lib/quakeworld/ktx/qwprogs.so

for m in small large; do
	if [ ! -f "$maps/$m.bsp" ]; then
		echo "mvdsv-maps: no $maps/$m.bsp (make maps)"
		failed=2
		finish ""
	fi
done

. "$(dirname "$0")/lib/port.sh"
port=$(free_port)

work=$(mktemp -d)
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/id1/maps" "$work/ktx"
cp "$maps/small.bsp" "$maps/large.bsp" "$work/id1/maps/"
ln -s "$progs" "$work/ktx/qwprogs.so"
printf 'sv_progtype 1\nsv_progsname qwprogs\ndeathmatch 1\nmaxclients 8\ndeveloper 1\n' \
	>"$work/ktx/server.cfg"
mkfifo "$work/console"
# held open read-write, so writes never block and never raise SIGPIPE even
# if the server has died
exec 3<>"$work/console"

(cd "$work" && exec "$mvdsv" -basedir "$work" -game ktx -ip 127.0.0.1 \
	-port "$port" +map small) <&3 >"$work/log" 2>&1 &
pid=$!

# lines of the log that report a failure to load or run the level
errors() {
	grep -E "SV_Error|Host_Error|Can't find maps/|Couldn't spawn|ERROR:|has wrong version|invalid lump|bad map|checksum" \
		"$work/log"
}

# wait until a status reply names the map; 0 when it did in time
running() {
	i=0
	while [ $i -lt $limit ]; do
		kill -0 "$pid" 2>/dev/null || return 1
		[ -n "$(errors)" ] && return 1
		st=$(quakestat -raw , -qws "127.0.0.1:$port" 2>/dev/null)
		case "$st" in
		*",$1,"*) return 0 ;;
		esac
		sleep 1
		i=$((i + 1))
	done
	return 1
}

check() {
	if running "$1" && [ -z "$(errors)" ]; then
		echo "mvdsv-maps: $1: running (status: $st)"
		passed=$((passed + 1))
	else
		echo "mvdsv-maps: $1: FAILED (status: ${st:-no reply})"
		errors | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}

st=""
check small
echo "map large" >&3
st=""
check large

echo "quit" >&3
i=0
while [ $i -lt 5 ] && kill -0 "$pid" 2>/dev/null; do
	sleep 1
	i=$((i + 1))
done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=""
echo "--- mvdsv log (level loading)"
grep -E "SpawnServer|Server spawned|Error|ERROR|Can.t find|Couldn.t spawn" "$work/log"
echo "---"
finish ""
