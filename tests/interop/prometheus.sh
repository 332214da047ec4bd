#!/bin/sh
# tests/interop/prometheus.sh BUILD -- Prometheus scrapes qwd's metrics.
#
# Design note: the proof that qwd's page (qwd -metrics, docs/metrics.md)
# is what a real Prometheus reads, end to end: Debian's prometheus server
# (the package also brings promtool; scripts/deps.sh interop installs it)
# scrapes a running qwd every second while 4 qwbots play, and the values
# are read back through Prometheus' own HTTP API (/api/v1/query), not from
# the page.  Checked, one line each:
#   - promtool check metrics has nothing to say about the live page, and
#     docs/metrics.md names every family on it;
#   - Prometheus' target is up (its scrape parsed the page);
#   - qwd_players through Prometheus is the bot count, which is what qwd's
#     own page says at that moment (and 0 before the bots came);
#   - the counters moved: qwd_requests_total and the request-time
#     histogram's _count are above 0, and histogram_quantile over its
#     buckets gives a time (Prometheus reads the buckets as cumulative);
#   - the endpoint counted the scrapes (qwd_metrics_requests_total ok).
# Ports from lib/port.sh (qwd's game port, its metrics port, Prometheus'
# web port), temporary folders for Prometheus' data; everything stops on
# exit.  Bounded: each wait has a deadline, about 30 s in all.
# Without the prometheus binary the checks are skipped and say so.
set -u

build=${1:-build}
suite=prometheus
bots=4
. "$(dirname "$0")/lib/report.sh"
. "$(dirname "$0")/lib/port.sh"
. "$(dirname "$0")/lib/wait.sh"

if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
	echo "$suite: prometheus/promtool not installed (Debian's prometheus; scripts/deps.sh interop)"
	finish ", 8 skipped (prometheus not installed)"
fi
[ -x "$build/qwd" ] && [ -x "$build/qwbots" ] || { check "$build/qwd and qwbots exist (make first)" false; finish; }
[ -f build/maps/small.bsp ] || { check "build/maps/small.bsp exists (make maps)" false; finish; }
command -v curl >/dev/null 2>&1 || { check "curl is installed" false; finish; }

work=$(mktemp -d)
qwd_pid=""
prom_pid=""
bots_pid=""
cleanup() {
	for p in $bots_pid $prom_pid $qwd_pid; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT

port=$(free_port)
mport=$(free_port)
pport=$(free_port)

"$build/qwd" -port "$port" -noconsole -metrics "127.0.0.1:$mport" \
	>"$work/qwd.log" 2>&1 &
qwd_pid=$!

# GET PATH from qwd's endpoint into FILE
page() {
	curl -s -m 5 -o "$2" "http://127.0.0.1:$mport$1"
}
# the value of a sample on qwd's own page
on_page() {
	awk -v n="$1" '$1 == n { print $2 }' "$work/page.txt"
}
# an instant query's first value through Prometheus' API ("" if none)
query() {
	curl -s -m 5 -G "http://127.0.0.1:$pport/api/v1/query" \
		--data-urlencode "query=$1" >"$work/q.json" || return 0
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d.get("data", {}).get("result", [])
print(r[0]["value"][1] if d.get("status") == "success" and r else "")
' "$work/q.json" 2>/dev/null
}
wait_until 10 page /healthz "$work/health.txt"
page /metrics "$work/page.txt"
promtool check metrics <"$work/page.txt" >"$work/promtool.txt" 2>&1
status=$?
cat "$work/promtool.txt"
check "promtool check metrics: silent on the live page ($(wc -l <"$work/page.txt") lines, status $status)" \
	test $status -eq 0 -a ! -s "$work/promtool.txt"
undocumented=""
for f in $(awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$work/page.txt"); do
	grep -q "\`$f[\`{]" docs/metrics.md || undocumented="$undocumented $f"
done
check "every family on the page is in docs/metrics.md (missing:${undocumented:- none})" \
	test -z "$undocumented"

cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: qwd
    static_configs:
      - targets: ['127.0.0.1:$mport']
EOF
prometheus --config.file="$work/prometheus.yml" \
	--storage.tsdb.path="$work/data" \
	--web.listen-address="127.0.0.1:$pport" >"$work/prometheus.log" 2>&1 &
prom_pid=$!

up_is_1() { [ "$(query 'up{job="qwd"}')" = 1 ]; }
wait_until 20 up_is_1
check "Prometheus scrapes qwd: up{job=\"qwd\"} = $(query 'up{job="qwd"}')" up_is_1
before=$(query qwd_players)

timeout -k 5 40 "$build/qwbots" --server "127.0.0.1:$port" --bots $bots --rate 20 \
	--duration 30 --map build/maps/small.bsp --seed 1 --no-progress \
	>"$work/qwbots.out" 2>&1 &
bots_pid=$!

# the bots are in when qwd's page says so; then Prometheus' next scrape
bots_in() { page /metrics "$work/page.txt" && [ "$(on_page qwd_players)" = $bots ]; }
wait_until 15 bots_in
players_seen() { [ "$(query qwd_players)" = $bots ]; }
wait_until 10 players_seen
page /metrics "$work/page.txt"
seen=$(query qwd_players)
check "qwd_players through Prometheus: $seen, the bots $bots, qwd's page $(on_page qwd_players) (before the bots: $before)" \
	test "$seen" = $bots -a "$(on_page qwd_players)" = $bots -a "$before" = 0

positive() { awk -v v="${1:-0}" 'BEGIN { exit !(v + 0 > 0) }'; }
moved() { positive "$(query qwd_requests_total)" && positive "$(query qwd_request_duration_seconds_count)"; }
wait_until 5 moved
check "counters through Prometheus: qwd_requests_total $(query qwd_requests_total), request-time histogram count $(query qwd_request_duration_seconds_count)" moved
p99=$(query 'histogram_quantile(0.99, qwd_request_duration_seconds_bucket)')
check "histogram_quantile(0.99) of the request time: $p99 s" positive "$p99"
reply_p50=$(query 'histogram_quantile(0.5, qwd_reply_size_bytes_bucket)')
check "histogram_quantile(0.5) of the reply size: $reply_p50 bytes" positive "$reply_p50"
scrapes=$(query 'qwd_metrics_requests_total{result="ok"}')
check "the endpoint counted the scrapes: $scrapes" positive "$scrapes"

if [ "$failed" -gt 0 ]; then
	echo "--- qwd.log"; tail -n 20 "$work/qwd.log"
	echo "--- prometheus.log"; tail -n 20 "$work/prometheus.log"
	echo "--- qwbots"; tail -n 20 "$work/qwbots.out"
fi
finish
