"""series.py -- qwbots' (and udpecho's) outputs read into numbers, and
what a scale.csv says: capacity, saturation, the floor's points.

Design note
  qwbots writes three things the runner reads (docs/qwbots.md):
    --series FILE  a CSV row every --series-interval seconds: t, phase,
                   in_game, requests_per_s, replies_per_s, response_rate,
                   rt_p50_ms, rt_p99_ms, rt_max_ms, bytes_in_per_s,
                   bytes_out_per_s, bad (the percentiles are qwbots' own,
                   over that row's interval; they are never recombined
                   here, since a percentile of percentiles is no
                   percentile)
    --json FILE    the window's totals ("totals": response_rate,
                   response_time_ms {p50, p99, ...}, bots_dropped, ...)
    exit status    0 all in the game, 1 some never joined, 2 usage,
                   3 the server dropped some
  udpecho --json has the same "totals" and "cpu" shape.  A figure is read
  by its dotted path ("totals.response_time_ms.p99"); a missing or null
  one is None, never 0, so a CSV gets an empty field for it.
  Capacity (the soak's load): the most players of a scale.csv whose
  response rate is at least 0.99 and whose p99 response time is under
  one time slot (1/rate: 33 ms at 30/s).  Saturation point (the scaling
  study's verdict, ../shared/BENCHMARKS.md): the fewest players at which
  the response rate falls below 0.95 or the p99 exceeds one time slot.
  Rows of a scale.csv are read as text (the file may come from an older
  run); a row whose replies_per_s is empty failed and is no point.
  A span of time that is not qwbots' window (the instruction count of
  qwexp compare: the runner's own window inside qwbots'): the requests
  and replies of the --series rows over it, each row's counts taken as
  spread evenly over the row (the time since the row before), and the
  row times placed in Unix time from the --json: the window opened
  --warmup seconds after the join ended (join_phase_s into the run), at
  window_start_unix.
"""

import csv
import json

SERIES_FIELDS = ("t", "phase", "in_game", "requests_per_s", "replies_per_s",
                 "response_rate", "rt_p50_ms", "rt_p99_ms", "rt_max_ms",
                 "bytes_in_per_s", "bytes_out_per_s", "bad")


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def read_series(path):
    """Rows of a qwbots --series CSV as dicts of numbers (phase stays
    text).  A cut last line (qwbots killed mid-write) is left out."""
    rows = []
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            return rows
        if tuple(header[:len(SERIES_FIELDS)]) != SERIES_FIELDS:
            raise ValueError("%s: not a qwbots series (header %r)" % (path, header))
        for fields in reader:
            if len(fields) != len(header):
                continue
            row = {}
            for k, v in zip(header, fields):
                row[k] = v if k == "phase" else number(v)
            if any(row[k] is None for k in header if k != "phase"):
                continue
            rows.append(row)
    return rows


def read_json(path):
    """The document of a --json report, or None when the file is missing
    or cut short."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def value(doc, path):
    """The figure at a dotted path of doc ("totals.response_time_ms.p99"),
    or None when any step is missing or the figure is null."""
    v = doc
    for k in path.split("."):
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return v


def series_start_unix(doc, warmup):
    """The Unix time of t = 0 of a qwbots --series (its start), from its
    --json document and its --warmup; None when a figure is missing."""
    start = value(doc or {}, "totals.window_start_unix")
    join = value(doc or {}, "totals.join_phase_s")
    if start is None or join is None:
        return None
    return start - join - float(warmup)


def counts_between(rows, a, b):
    """(requests, replies) the bots sent and received between a and b
    (seconds of the series: its t) from the --series rows, a row's counts
    (its rates times its span, from the row before or from 0) spread
    evenly over its span; None when the rows do not cover a..b."""
    if not rows or a < 0 or b < a or rows[-1]["t"] < b:
        return None
    requests = replies = 0.0
    start = 0.0
    for r in rows:
        lo, hi = max(start, a), min(r["t"], b)
        if hi > lo:
            requests += r["requests_per_s"] * (hi - lo)
            replies += r["replies_per_s"] * (hi - lo)
        start = r["t"]
    return requests, replies


def read_report(path):
    """The totals of a qwbots --json report (a dict), or None when the file
    is missing or cut short."""
    doc = read_json(path)
    return doc.get("totals") if isinstance(doc, dict) else None


def capacity(scale_rows, rate=30.0, min_rr=0.99):
    """The most players in scale_rows (dicts with players, response_rate,
    rt_p99_ms) that hold: response rate >= min_rr and p99 under 1/rate.
    0 when none holds."""
    slot_ms = 1000.0 / rate
    best = 0
    for r in scale_rows:
        n = number(r.get("players"))
        rr = number(r.get("response_rate"))
        p99 = number(r.get("rt_p99_ms"))
        if n is None or rr is None or p99 is None:
            continue
        if rr >= min_rr and p99 < slot_ms and n > best:
            best = int(n)
    return best


def _points(scale_rows):
    """(players, response_rate, p99, row) of the rows that measured."""
    out = []
    for r in scale_rows:
        if not r.get("replies_per_s"):
            continue
        n = number(r.get("players"))
        if n is None:
            continue
        out.append((int(n), number(r.get("response_rate")) or 0.0,
                    number(r.get("rt_p99_ms")) or 0.0, r))
    return out


def saturation(scale_rows, rate=30.0):
    """(players, why) of the first saturated point, why saying which
    criterion failed and which point before held; ("none", most players)
    when none saturated; None when no point was measured."""
    slot = 1000.0 / rate
    good = None
    last = None
    for n, rr, p99, _ in _points(scale_rows):
        last = n
        if rr < 0.95 or p99 > slot:
            why = []
            if rr < 0.95:
                why.append("response rate %.3f < 0.95" % rr)
            if p99 > slot:
                why.append("p99 %.1f ms > %.1f ms" % (p99, slot))
            why = " and ".join(why)
            if good is not None:
                why += "; %d players, the point before, held" % good
            return n, why
        good = n
    if last is None:
        return None
    return "none", last


def floor_players(scale_rows):
    """The player counts the network floor is measured at: 32 and 256
    where the scaling run measured them and they held (a saturated qwd
    has no CPU per request to compare), and the largest point that held;
    else the run's largest point; [] for no point."""
    held, picked, last = None, [], None
    for n, rr, p99, r in _points(scale_rows):
        last = n
        rate = number(r.get("rate")) or 30.0
        if rr >= 0.95 and p99 <= 1000.0 / rate:
            held = n
            if n in (32, 256):
                picked.append(n)
    if held is not None and held not in (32, 256):
        picked.append(held)
    if not picked and last is not None:
        picked = [last]
    return picked


def scale_row(scale_rows, players):
    """The row of a scale.csv for players, or None."""
    for r in scale_rows:
        if number(r.get("players")) == players:
            return r
    return None


def read_scale_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summary(rows, key):
    """(min, max) of key over rows, or (None, None)."""
    vals = [r[key] for r in rows if r.get(key) is not None]
    if not vals:
        return None, None
    return min(vals), max(vals)
