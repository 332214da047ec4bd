#!/usr/bin/env python3
"""summary.py [REP...]: the tables of README.md and the plot's data, from
run.sh's raw/REP/NAME folders beside this file (default: every REP).

Time is run time: seconds since the first wave (a) started.  A qwbots
--series row at t covers the second before it; each wave's rows are moved
by its start (starts.txt) and binned to the nearest whole second, so a
second's row sums the three waves.  Per second:
  bots      the waves' bots in the game, summed
  req, rep  requests and replies per second, summed
  p99       the largest of the waves' p99 response times that second: every
            wave has 99% of its replies at or below its own p99, so the
            largest is an upper bound of the p99 over all the bots
  active    the pool's workers from qwd's console ("threads", once a
            second from the first wave's start: line i is second i)
  need, predicted   the same line's figures (-threads auto)
  busy      1 - the idle share of qwd's frame thread (qwd -stats, per second)
  reply     the REPLY phase's share of the frame thread's time (the same)
The phase windows leave out the seconds of a wave's join and leave.
Writes timeline-REP-NAME.csv beside this file (the plot's input, waves.gp) and
prints the tables in Markdown."""
import gzip
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RAW = os.path.join(HERE, "raw")
ORDER = ["t1", "t2", "auto"]
LABEL = {"t1": "-threads 1", "t2": "-threads 2", "auto": "auto, 0.75/0.5"}
# (phase, first second, last second): rows whose second is in [first, last]
PHASES = [("500 up", 5, 20), ("1000 up", 25, 40), ("1500", 45, 60),
          ("1000 down", 66, 80), ("500 down", 86, 100)]
AUTO = re.compile(r"threads: auto, (\d+) active of \d+, need ([\d.]+) predicted ([\d.]+)")
FIXED = re.compile(r"^threads: (\d+) \(")
CHANGE = re.compile(r"^(\S+)T(\d+):(\d+):([\d.]+)Z INFO threads: need ([\d.]+), "
                    r"predicted ([\d.]+): (\d+) -> (\d+) workers")


def configs(rep):
    names = sorted(os.listdir(f"{RAW}/{rep}"))
    return [n for n in ORDER if n in names] + [n for n in names if n not in ORDER]


def label(name):
    if name in LABEL:
        return LABEL[name]
    m = re.match(r"auto([\d.]+)-([\d.]+)$", name)
    return f"auto, {m.group(1)}/{m.group(2)}" if m else name


def read_run(d):
    starts = {}
    with open(f"{d}/starts.txt") as f:
        for line in f:
            k, v = line.split()
            starts[k] = float(v)
    t0 = starts["a"]
    sec = {}

    def at(s):
        return sec.setdefault(s, {"bots": 0, "req": 0.0, "rep": 0.0, "p99": None,
                                  "active": None, "need": None, "pred": None,
                                  "busy": None, "reply": None})

    for w in "abc":
        with open(f"{d}/{w}.csv") as f:
            head = f.readline().strip().split(",")
            for line in f:
                r = dict(zip(head, line.strip().split(",")))
                s = at(round(starts[w] - t0 + float(r["t"])))
                s["bots"] += int(r["in_game"])
                s["req"] += float(r["requests_per_s"])
                s["rep"] += float(r["replies_per_s"])
                if float(r["replies_per_s"]) > 0:
                    p = float(r["rt_p99_ms"])
                    s["p99"] = p if s["p99"] is None else max(s["p99"], p)
    tick0 = starts["ticker"] - t0
    changes = []
    with open(f"{d}/threads.txt") as f:
        i = 0
        for line in f:
            c = CHANGE.match(line)
            if c:
                hms = int(c.group(2)) * 3600 + int(c.group(3)) * 60 + float(c.group(4))
                changes.append((hms, c.group(5), c.group(6), c.group(7), c.group(8)))
                continue
            m, fx = AUTO.search(line), FIXED.match(line)
            if not (m or fx):
                continue
            s = at(round(tick0 + i))
            i += 1
            if m:
                s["active"], s["need"], s["pred"] = int(m.group(1)), float(m.group(2)), float(m.group(3))
            else:
                s["active"] = int(fx.group(1))
    # the change lines carry the wall clock (UTC); the run's start in it
    day = t0 % 86400
    changes = [(hms - day, need, pred, a, b) for hms, need, pred, a, b in changes]
    with gzip.open(f"{d}/stats.jsonl.gz", "rt") as f:
        for line in f:
            j = json.loads(line)
            if j["interval_s"] < 0.5:
                continue
            s = at(round(j["time"] - t0))
            s["busy"] = 1 - j["phase_share"]["idle"]
            s["reply"] = j["phase_share"]["reply"]
    return sec, changes


def wave_totals(d):
    out = {}
    for w in "abc":
        with open(f"{d}/{w}.txt") as f:
            text = f.read()
        m = re.search(r"(\d+)/(\d+) bots reached the game.*?(\d+) dropped; window ([\d.]+) s", text)
        r = re.search(r"response rate ([\d.]+)", text)
        p = re.search(r"p50 ([\d.]+), p99 ([\d.]+), max ([\d.]+) ms", text)
        refused = text.count("never reached the game: refused")
        out[w] = (m.group(1), refused, m.group(3), m.group(4), r.group(1), p.group(2), p.group(3))
    return out


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def main(rep):
    print(f"### repetition {rep}")
    print()
    runs = configs(rep)
    print("| configuration | phase | window (s) | bots in game | requests/s | replies/s "
          "| response rate | p99 ms: median s / worst s | active workers | need | frame thread busy | REPLY share |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    data = {}
    for name in runs:
        sec, changes = read_run(f"{RAW}/{rep}/{name}")
        data[name] = (sec, changes)
        for phase, lo, hi in PHASES:
            rows = [sec[s] for s in range(lo, hi + 1) if s in sec]
            req = sum(r["req"] for r in rows)
            replies = sum(r["rep"] for r in rows)
            p99 = [r["p99"] for r in rows if r["p99"] is not None]
            act = [r["active"] for r in rows if r["active"] is not None]
            busy = [r["busy"] for r in rows if r["busy"] is not None]
            need = [r["need"] for r in rows if r["need"] is not None]
            reply = [r["reply"] for r in rows if r["reply"] is not None]
            print(f"| {label(name)} | {phase} | {lo - 1}-{hi} | {statistics.mean(r['bots'] for r in rows):.0f} "
                  f"| {req / len(rows):.0f} | {replies / len(rows):.0f} | {replies / req:.4f} "
                  f"| {statistics.median(p99):.2f} / {max(p99):.1f} "
                  f"| {fmt(statistics.mean(act) if act else None, '.2f')} "
                  f"| {fmt(statistics.mean(need) if need else None, '.2f')} "
                  f"| {fmt(statistics.mean(busy) if busy else None, '.0%')} "
                  f"| {fmt(statistics.mean(reply) if reply else None, '.0%')} |")
        with open(os.path.join(HERE, f"timeline-{rep}-{name}.csv"), "w") as f:
            f.write("t,bots,requests_per_s,replies_per_s,p99_ms,active,need,predicted,busy\n")
            for s in sorted(sec):
                r = sec[s]
                f.write(f"{s},{r['bots']},{r['req']:.0f},{r['rep']:.0f},{fmt(r['p99'], '.3f')},"
                        f"{fmt(r['active'], 'd')},{fmt(r['need'], '.3f')},"
                        f"{fmt(r['pred'], '.3f')},{fmt(r['busy'], '.3f')}\n")
    print()
    print("| configuration | wave | window (s) | bots reached | refused (busy) | dropped "
          "| response rate | p99 ms | max ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in runs:
        for w, (reached, refused, drop, window, rate, p99, mx) in wave_totals(f"{RAW}/{rep}/{name}").items():
            print(f"| {label(name)} | {w} | {float(window):.0f} | {reached} | {refused} | {drop} "
                  f"| {rate} | {p99} | {mx} |")
    print()
    for name in runs:
        changes = data[name][1]
        if not changes:
            continue
        print(f"{label(name)}: " + "; ".join(
            f"{t:.1f} s {a}->{b} (need {n}, predicted {p})" for t, n, p, a, b in changes))
    print()


for r in sys.argv[1:] or sorted(os.listdir(RAW)):
    main(r)
