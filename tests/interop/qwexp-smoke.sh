#!/bin/sh
# tests/interop/qwexp-smoke.sh BUILD -- the experiment runner end to end, small.
#
# Design note: tools/experiment/qwexp.py drives qwd and qwbots through a whole
# scaling study; this runs the smallest one that still goes through every
# step (2 player counts, 2 s windows, then a 1 s network-floor point with
# tools/udpecho) into a temporary folder and checks what a reader of the
# results would check: the runner exits 0; scale.csv has a row per player
# count with every bot in the game, replies close to the offered rate
# (players x 30/s), a response time, a server CPU figure, a peak RSS, qwd's
# own stats intervals inside the window, and phase shares adding up to 1;
# report.md names the saturation point and carries the test description;
# floor.csv has the echo's CPU per request and, where qwd's point held,
# the multiple (none where it did not: the runner's rule).  When gnuplot
# is there (qwexp.py installs gnuplot-nox itself when root), the seven scaling
# figures must be real PNG files under 100 KB; without it those checks are
# skipped.  Then the fleet experiment, smallest (2 servers of 2 players,
# pinned): a row alone and one per server together, each sane, and the
# report's ratios.  Bounded: about 30 s.  The report and CSVs are kept in
# build/artifacts/qwexp-smoke/.
# Prints "qwexp-smoke: N passed, M failed" as its last line.
set -u

build=${1:-build}
passed=0
failed=0
skipped=0
art=build/artifacts/qwexp-smoke

finish() {
	if [ "$skipped" -gt 0 ]; then
		echo "qwexp-smoke: $passed passed, $failed failed, $skipped skipped"
	else
		echo "qwexp-smoke: $passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
	exit
}

check() {	# check NAME STATUS
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "qwexp-smoke: ok: $1"
	else
		failed=$((failed + 1))
		echo "qwexp-smoke: FAILED: $1"
	fi
}

for p in qwd qwbots udpecho; do
	[ -x "$build/$p" ] || { check "$build/$p exists (make first)" 1; finish; }
done
command -v taskset >/dev/null 2>&1 || { check "taskset (util-linux) is installed" 1; finish; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 tools/experiment/qwexp.py scale --players 1,4 --duration 2 --warmup 1 \
	--build "$build" --out "$work" >"$work/qwexp.log" 2>&1
status=$?
cat "$work/qwexp.log"
check "qwexp scale exits 0 (status $status)" $status

csv=$work/scale.csv
check "scale.csv has a header and 2 rows" \
	"$([ -f "$csv" ] && [ "$(wc -l <"$csv")" -eq 3 ]; echo $?)"

# row_ok N: every figure of the row of N players within sane bounds
row_ok() {
	awk -F, -v n="$1" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		function v(k) { return $(c[k]) }
		$1 == n {
			found = 1
			bad = ""
			if (v("in_game") != n) bad = bad " in_game=" v("in_game")
			# plausible figures, not a performance bar: a loaded
			# machine may answer less, a broken runner gives nothing
			if (v("replies_per_s") < 0.5 * n * 30) bad = bad " replies_per_s=" v("replies_per_s")
			if (v("response_rate") < 0.5 || v("response_rate") > 1.05) bad = bad " response_rate=" v("response_rate")
			if (v("rt_p99_ms") == "" || v("rt_p99_ms") <= 0 || v("rt_p99_ms") > 1000) bad = bad " rt_p99_ms=" v("rt_p99_ms")
			if (v("rt_mean_ms") > v("rt_max_ms")) bad = bad " mean>max"
			if (v("srv_cpu_s") == "" || v("srv_cpu_s") < 0 || v("srv_cpu_s") > 3) bad = bad " srv_cpu_s=" v("srv_cpu_s")
			if (v("srv_rss_kb") < 500 || v("srv_rss_kb") > 1048576) bad = bad " srv_rss_kb=" v("srv_rss_kb")
			if (v("srv_intervals") < 1) bad = bad " srv_intervals=" v("srv_intervals")
			s = v("share_world") + v("share_receive") + v("share_execute") + v("share_reply") + v("share_idle")
			if (s < 0.99 || s > 1.01) bad = bad " shares_sum=" s
			if (v("reply_bytes") < 8 || v("request_bytes") < 8) bad = bad " sizes=" v("request_bytes") "/" v("reply_bytes")
			if (v("srv_rt_mean_us") == "" || v("srv_rt_mean_us") <= 0) bad = bad " srv_rt_mean_us=" v("srv_rt_mean_us")
		}
		END {
			if (!found) { print "no row"; exit 1 }
			if (bad != "") { print bad; exit 1 }
		}' "$csv"
}
for n in 1 4; do
	why=$(row_ok $n 2>&1)
	check "row of $n players is sane${why:+ ($why)}" "$([ -z "$why" ]; echo $?)"
done

rep=$work/report.md
check "report.md names the saturation point" \
	"$(grep -q '^\*\*Saturation point' "$rep" 2>/dev/null; echo $?)"
check "report.md states hardware, workload, duration and the figures' ranges" \
	"$(grep -q '^| hardware |' "$rep" && grep -q '^| workload |' "$rep" &&
		grep -q 'requests/s per player' "$rep" && grep -q 's measured per point' "$rep"; echo $?)"

# the network floor: one point, from the sizes just measured
python3 tools/experiment/qwexp.py floor --players 4 --duration 1 --warmup 0.5 \
	--build "$build" --out "$work" >"$work/floor.log" 2>&1
status=$?
cat "$work/floor.log"
check "qwexp floor exits 0 (status $status)" $status
# the multiple is qwd's CPU per request over the echo's, given only where
# qwd's point held (response rate >= 0.95: a saturated qwd did not answer
# all it was sent); on a busy machine the 4-player point may not
rr4=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$1 == 4 { print $(c["response_rate"]) }' "$work/scale.csv" 2>/dev/null)
fl=$(awk -F, -v rr="$rr4" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$1 == 4 && $(c["echo_us_per_request"]) > 0 && $(c["response_rate"]) > 0.5 {
		m = $(c["multiple"]); q = $(c["qwd_us_per_request"])
		if (rr != "" && rr + 0 >= 0.95) ok = (m > 0 && q > 0)
		else ok = (m == "" && q == "")
	}
	END { print ok + 0 }' "$work/floor.csv" 2>/dev/null)
check "floor.csv: the echo's CPU per request, and the multiple where qwd held (rr ${rr4:-?})" \
	"$([ "$fl" = 1 ]; echo $?)"

if command -v gnuplot >/dev/null 2>&1; then
	for f in response-rate response-time bandwidth reply-size breakdown request-time cpu; do
		png=$work/fig-$f.png
		magic=$(od -An -c -N4 "$png" 2>/dev/null | tr -d ' ')
		size=$(wc -c <"$png" 2>/dev/null || echo 0)
		check "fig-$f.png is a PNG under 100 KB ($size bytes)" \
			"$([ "$magic" = "211PNG" ] && [ "$size" -gt 1000 ] && [ "$size" -lt 102400 ]; echo $?)"
	done
else
	echo "qwexp-smoke: gnuplot missing and not installable here: figure checks skipped"
	skipped=7
fi

# the fleet experiment, smallest: 2 servers of 2 players, pinned only
fw=$work/fleet
python3 tools/experiment/qwexp.py fleet --servers 2 --players 4 --duration 2 --warmup 1 \
	--pin pinned --build "$build" --out "$fw" >"$work/fleet.log" 2>&1
status=$?
[ $status -eq 0 ] || tail -5 "$work/fleet.log"
check "qwexp fleet exits 0 (status $status)" $status
# a row for the server alone and one per server together, each with every
# bot in the game, replies near 2 x 30/s, a p99 and a CPU per reply
bad=$(awk -F, 'NR > 1 && !($6 == 2 && $7 > 50 && $7 < 70 && $10 > 0 && $12 > 0) {print NR}' \
	"$fw/fleet.csv" 2>/dev/null | tr '\n' ' ')
rows=$(($(wc -l <"$fw/fleet.csv" 2>/dev/null || echo 1) - 1))
check "fleet.csv: 3 rows (alone, 2 together), each sane${bad:+ (bad rows: $bad)}" \
	"$([ "$rows" -eq 3 ] && [ -z "$bad" ]; echo $?)"
grep -q "^- pinned: alone .* us of CPU per reply.* 2 together: " "$fw/report.md" 2>/dev/null
check "the fleet report gives alone and together with their ratios" $?

mkdir -p "$art"
cp "$work"/*.csv "$work/report.md" "$art/" 2>/dev/null
cp "$fw/fleet.csv" "$art/" 2>/dev/null
finish
