#!/bin/sh
# tests/interop/match-ktx.sh BUILD -- the same scripted duel and 2on2
# against qwd and against MVDSV+KTX: the same sequence of serverinfo
# status values, the same prints of ready, the timer, the start, the
# clock's seconds and the end, at the same times since the countdown, the
# same frags at the end, and KTX's JSON statistics file against qwd's.
#
# Design note: build/matchduel (tools/matchduel) connects the players of
# the project's client library (duel: alpha, beta; --mode 2on2: team red
# alpha, beta and team blue gamma, delta); all say "ready", alpha fires
# two shots at the sky once the match is on (the statistics' weapon
# members) and types "kill" (a frag and a death to compare), and it
# prints what alpha saw ("status ...", "print ...", "time S ..." since the
# countdown, "frags NAME N" at the end).  Four servers play at once, each
# on its own port and base directory (a minute's match each, about 70 s
# in all): qwd's duel and 2on2, MVDSV+KTX's duel and 2on2, all on the
# bundled map "small" with a 3 s countdown, a one-minute timelimit, no
# overtime, and a demo recorded per match with its JSON statistics.  qwd
# with +set k_defmode 1on1 or 2on2 (the user mode run on the first map,
# as KTX does), k_count 3 and demo_tmp_record 1 (the JSON is written
# beside the demo); MVDSV with KTX's configs copied (ktx.cfg: k_defmode,
# k_count 3, and sv_demotxt 2 with k_demotxt_format json, so that KTX,
# which records every match with its demo_tmp_record 1, writes
# demoinfo_IP_PORT.json in the game folder at the end).  On both, the
# user mode's configs/usermodes/MODE/default.cfg, run after the mode's
# settings, says timelimit 1, k_overtime 0.
# What is compared, per match: the status values in order (qwd folds two
# serverinfo changes of one frame into the last: KTX's "0 min left" and
# "Standby" of the same second reach a qwd client as "Standby", so "0 min
# left" is left out of both sides); the prints in order (KTX prints a
# matchtag note after "is ready" and more lines in the match's
# statistics: only the lines both list are compared; who is ready first
# is the network's choice, so "NAME is ready" reads "PLAYER is ready" and
# each server is checked to name every player); the times of the status
# changes and timed prints both have, within 0.15 s of each other plus
# 5 ms for every second since the countdown, KTX's timer drifting late
# (tests/interop/lib/match_compare.py says why); the frags at the end;
# and the two JSON files (match_compare.py json: key paths both ways and
# in order, value types, the header, the players' names, teams, frags,
# deaths, kills and suicides; and tests/match/stats_keys.txt against
# KTX's real duel file).
# Needs mvdsv and ktx (Debian packages); skipped, naming them, without.
# Prints "match-ktx: N passed, M failed[, K skipped (why)]" last.
# KEEP=1 keeps the work directory (its name is printed).
set -u

build=${1:-build}
suite=match-ktx
here=$(dirname "$0")
. "$here/lib/report.sh"
. "$here/lib/port.sh"
. "$here/lib/ktx.sh"

mvdsv=/usr/games/mvdsv
ktxdata=/usr/share/games/quake/ktx
compare="python3 $here/lib/match_compare.py"

missing=$(ktx_missing)
[ -z "$missing" ] || finish ", 1 skipped (needs$missing)"
need "$build/qwd" "$build/matchduel" "$build/maps/small.bsp"

work=$(mktemp -d)
servers=""
cleanup() {
	for p in $servers; do kill "$p" 2>/dev/null; done
	if [ -n "${KEEP:-}" ]; then echo "$suite: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
qwd=$(cd "$build" && pwd)/qwd
duel=$(cd "$build" && pwd)/matchduel
map=$(cd "$build" && pwd)/maps/small.bsp

# run_qwd NAME PORT MODE: qwd in $work/NAME playing the user mode MODE
# (k_defmode: run on the first map as KTX does, its default.cfg after)
run_qwd() {
	_b=$work/$1
	mkdir -p "$_b/id1/maps" "$_b/qw/configs/usermodes/$3"
	cp "$map" "$_b/id1/maps/"
	printf 'timelimit 1\nk_overtime 0\n' >"$_b/qw/configs/usermodes/$3/default.cfg"
	(cd "$_b" && exec "$qwd" -basedir "$_b" -ip 127.0.0.1 -port "$2" -noconsole \
		+set k_defmode "$3" +set k_count 3 +set demo_tmp_record 1 +map small \
		</dev/null >"$_b/server.log" 2>&1) &
	servers="$servers $!"
}

# run_mvdsv NAME PORT MODE: MVDSV+KTX in $work/NAME playing KTX's MODE
run_mvdsv() {
	_b=$work/$1
	ktx_base "$_b"
	rm -f "$_b/ktx/ktx.cfg" "$_b/ktx/configs"
	cp -r "$ktxdata/configs" "$_b/ktx/configs"
	printf 'timelimit 1\nk_overtime 0\n' >>"$_b/ktx/configs/usermodes/$3/default.cfg"
	_m=1
	[ "$3" = 1on1 ] || _m=2
	{
		sed -e 's/^set k_count .*/set k_count 3/' -e "s/^set k_mode .*/set k_mode $_m/" \
			-e "s/^set k_defmode .*/set k_defmode $3/" "$ktxdata/ktx.cfg"
		printf 'set sv_demotxt 2\nset k_demotxt_format json\n'
	} >"$_b/ktx/ktx.cfg"
	(cd "$_b" && exec "$mvdsv" -basedir "$_b" -game ktx -port "$2" +map small \
		</dev/null >"$_b/server.log" 2>&1) &
	servers="$servers $!"
}

p1=$(free_port)
p2=$(free_port)
p3=$(free_port)
p4=$(free_port)
run_qwd qwd-duel "$p1" 1on1
run_qwd qwd-2on2 "$p2" 2on2
run_mvdsv ktx-duel "$p3" 1on1
run_mvdsv ktx-2on2 "$p4" 2on2
for p in "$p1" "$p2" "$p3" "$p4"; do wait_udp "$p"; done

clients=""
play() { # play NAME PORT ARG...: matchduel's output in $work/NAME.txt
	_n=$1
	_p=$2
	shift 2
	timeout -k 5 150 "$duel" --server "127.0.0.1:$_p" --map "$map" --suicide \
		--timeout 140 "$@" >"$work/$_n.txt" 2>"$work/$_n.err" &
	clients="$clients $!"
}
play qwd-duel "$p1" --mode duel
play qwd-2on2 "$p2" --mode 2on2
play ktx-duel "$p3" --mode duel
play ktx-2on2 "$p4" --mode 2on2
for p in $clients; do wait "$p"; done
# KTX writes its statistics as the match ends, qwd too; a moment for the
# files to be closed before the servers go
sleep 1
for p in $servers; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
servers=""

for f in qwd-duel ktx-duel qwd-2on2 ktx-2on2; do
	echo "$suite: $f: $(grep -v '^time ' "$work/$f.txt" | tr '\n' '|')"
	sed -n 's/^status //p' "$work/$f.txt" | grep -v '^0 min left$' >"$work/$f.status"
	sed -n 's/^print //p' "$work/$f.txt" |
		sed 's/^[^ ]* is ready\( .*\)\{0,1\}$/PLAYER is ready/' >"$work/$f.prints"
	sed -n 's/^frags //p' "$work/$f.txt" >"$work/$f.frags"
done
# the JSON files: qwd's beside its demo, KTX's in its game folder
json() {
	case $1 in
	qwd-*) find "$work/$1" -name '*.json' | head -1 ;;
	*) find "$work/$1/ktx" -maxdepth 1 -name 'demoinfo_*.json' | head -1 ;;
	esac
}

for m in duel 2on2; do
	q=$work/qwd-$m
	k=$work/ktx-$m
	players="alpha beta"
	[ "$m" = duel ] || players="alpha beta gamma delta"
	check "$m: qwd: the match ran to its end" grep -q '^print The match is over$' "$q.txt"
	check "$m: MVDSV+KTX: the match ran to its end" grep -q '^print The match is over$' "$k.txt"
	check "$m: the same status values in order ($(tr '\n' ',' <"$q.status"))" \
		cmp -s "$q.status" "$k.status"
	check "$m: status Standby, Countdown, 1 min left, Standby on qwd" \
		test "$(tr '\n' ',' <"$q.status")" = "Standby,Countdown,1 min left,Standby,"
	# the prints both servers gave, in qwd's order (KTX's extras dropped)
	grep -Fxf "$q.prints" "$k.prints" >"$work/$m.common"
	check "$m: every print of qwd's is KTX's, in the same order" \
		cmp -s "$q.prints" "$work/$m.common"
	for s in qwd ktx; do
		n=0
		for p in $players; do
			grep -q "^print $p is ready\( .*\)\{0,1\}$" "$work/$s-$m.txt" && n=$((n + 1))
		done
		check "$m: $s: every player said to be ready" test "$n" -eq "$(echo $players | wc -w)"
	done
	check "$m: the clock's last-minute prints agree" \
		test "$(grep -c 'second' "$q.prints")" -eq "$(grep -c 'second' "$k.prints")"
	check "$m: the same frags at the end ($(tr '\n' ',' <"$q.frags"))" \
		cmp -s "$q.frags" "$k.frags"
	check "$m: the same times since the countdown (0.15 s + 5 ms/s)" \
		$compare times "$q.txt" "$k.txt"
	qj=$(json "qwd-$m")
	kj=$(json "ktx-$m")
	check "$m: qwd wrote its JSON statistics (${qj##*/})" test -n "$qj"
	check "$m: KTX wrote its JSON statistics (${kj##*/})" test -n "$kj"
	if [ -n "$qj" ] && [ -n "$kj" ]; then
		cp "$qj" "$work/qwd-$m.json"
		cp "$kj" "$work/ktx-$m.json"
		check "$m: the JSON files agree (keys, types, header, players, teams, frags, deaths)" \
			$compare json "$qj" "$kj" $players
	fi
done
kj=$(json ktx-duel)
[ -n "$kj" ] && check "tests/match/stats_keys.txt is KTX's real duel file's keys" \
	$compare keys "$here/../match/stats_keys.txt" "$kj"
finish
