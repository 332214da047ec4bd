#!/bin/sh
# tests/interop/qwbots-mvdsv.sh BUILD -- qwbots plays on MVDSV with KTX.
#
# Design note: the proof that the bots speak real QuakeWorld.  MVDSV 0.35
# with the KTX mod (Debian packages mvdsv and ktx, installed here when
# missing: Debian, root) serves a real map from ../shared/realmaps in a
# temporary base directory laid out as MVDSV wants it: id1/maps/<map>.bsp
# (with the b_*.bsp item models of ../shared/client-assets, which KTX
# precaches), and the game directory ktx/ holding links to the package's
# data (/usr/share/games/quake/ktx: configs, qwprogs.so -> the native
# module in /usr/lib/quakeworld/ktx).  KTX's stock configuration is used
# unchanged, sv_getrealip 2 included (the server stuffs "packet ... ip"
# and drops a client that does not answer it).
# Then 8 qwbots (stock protocol 28, the random walker, 30 requests/s)
# play 10 s.  Checked, one result each: qwbots exits 0 (every bot reached
# the game), the JSON shows 8 bots in the game, every bot moved, replies
# answered more than 90% of the requests, no reply failed to parse, and
# the bots saw each other.  The JSON is kept in build/artifacts/.
# Without ../shared the test is skipped.  Prints "qwbots-mvdsv: N passed,
# M failed" as its last line.
set -u

build=${1:-build}
real=${QWD_REALMAPS:-../shared/realmaps}
assets=${QWD_CLIENT_ASSETS:-../shared/client-assets}
map=lqdm1
bots=8
port=$((27900 + $$ % 90))
art=build/artifacts
mkdir -p "$art"
passed=0
failed=0

finish() {
	echo "qwbots-mvdsv: $passed passed, $failed failed"
	[ "$failed" -eq 0 ] && exit 0
	exit 1
}

check() {	# check NAME CONDITION-STATUS
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "qwbots-mvdsv: ok: $1"
	else
		failed=$((failed + 1))
		echo "qwbots-mvdsv: FAILED: $1"
	fi
}

[ -f "$real/$map.bsp" ] || {
	echo "qwbots-mvdsv: no $real/$map.bsp: skipped"
	echo "qwbots-mvdsv: 0 passed, 0 failed, 1 skipped"
	exit 0
}
[ -x "$build/qwbots" ] || { check "$build/qwbots exists (make first)" 1; finish; }

missing=""
[ -n "$(dpkg -L mvdsv 2>/dev/null | grep '/mvdsv$' | head -1)" ] || missing="$missing mvdsv"
[ -f /usr/lib/quakeworld/ktx/qwprogs.so ] || missing="$missing ktx"
if [ -n "$missing" ]; then
	echo "qwbots-mvdsv: installing$missing"
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		check "needs$missing (Debian packages)" 1
		finish
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null ||
		{ check "install$missing" 1; finish; }
fi
mvdsv=$(dpkg -L mvdsv | grep '/mvdsv$' | head -1)
ktxdata=/usr/share/games/quake/ktx

work=$(mktemp -d)
mvdsv_pid=""
trap '[ -n "$mvdsv_pid" ] && kill $mvdsv_pid 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/id1/maps" "$work/ktx"
cp "$real/$map.bsp" "$work/id1/maps/"
[ -d "$assets/id1/maps" ] && cp "$assets"/id1/maps/b_*.bsp "$work/id1/maps/" 2>/dev/null
for f in "$ktxdata"/*; do
	ln -s "$f" "$work/ktx/$(basename "$f")"
done
[ -e "$work/ktx/qwprogs.so" ] || ln -s /usr/lib/quakeworld/ktx/qwprogs.so "$work/ktx/qwprogs.so"

(cd "$work" && exec "$mvdsv" -basedir "$work" -game ktx -port $port +map $map \
	>"$work/mvdsv.log" 2>&1) &
mvdsv_pid=$!
sleep 2
kill -0 $mvdsv_pid 2>/dev/null || { cat "$work/mvdsv.log"; check "mvdsv starts" 1; finish; }

timeout -k 5 90 "$build/qwbots" --server 127.0.0.1:$port --bots $bots --rate 30 \
	--duration 10 --map "$work/id1/maps/$map.bsp" --qwdx off --seed 1 \
	--json "$work/mvdsv.json" --no-progress >"$work/qwbots.out" 2>&1
status=$?
kill $mvdsv_pid 2>/dev/null
wait $mvdsv_pid 2>/dev/null
mvdsv_pid=""
cat "$work/qwbots.out"
[ -f "$work/mvdsv.json" ] && cp "$work/mvdsv.json" "$art/qwbots-mvdsv.json"

# the first "key": number in the JSON (the totals come before the bots)
num() {
	sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p" "$work/mvdsv.json" 2>/dev/null | head -1
}
ge() {	# ge A B: A >= B (decimals)
	awk -v a="${1:-0}" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'
}

check "qwbots exits 0: every bot reached the game (status $status)" $([ $status -eq 0 ]; echo $?)
check "$bots bots in the game at the end ($(num bots_in_game))" $(ge "$(num bots_in_game)" $bots; echo $?)
stood=$(grep -c '"moved": 0,' "$work/mvdsv.json" 2>/dev/null)
check "every bot moved (${stood:-?} did not)" $([ -f "$work/mvdsv.json" ] && [ "${stood:-1}" -eq 0 ]; echo $?)
check "response rate $(num response_rate) > 0.9" $(ge "$(num response_rate)" 0.9; echo $?)
check "every reply parsed (bad replies: $(num bad_total))" $([ "$(num bad_total)" = 0 ]; echo $?)
check "bots saw each other (players per reply at most $(num players_max))" $(ge "$(num players_max)" 2; echo $?)
finish
