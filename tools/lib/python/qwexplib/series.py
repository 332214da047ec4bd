"""series.py -- qwbots' outputs read into numbers, and capacity.

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
  Capacity, as ../shared/BENCHMARKS.md defines saturation: the most
  players of a scale.csv whose response rate is at least 0.99 and whose
  p99 response time is under one time slot (1/rate: 33 ms at 30/s).
"""

import csv
import json

SERIES_FIELDS = ("t", "phase", "in_game", "requests_per_s", "replies_per_s",
                 "response_rate", "rt_p50_ms", "rt_p99_ms", "rt_max_ms",
                 "bytes_in_per_s", "bytes_out_per_s", "bad")


def _number(text):
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
                row[k] = v if k == "phase" else _number(v)
            if any(row[k] is None for k in header if k != "phase"):
                continue
            rows.append(row)
    return rows


def read_report(path):
    """The totals of a qwbots --json report (a dict), or None when the file
    is missing or cut short."""
    try:
        with open(path) as f:
            return json.load(f).get("totals")
    except (OSError, ValueError):
        return None


def capacity(scale_rows, rate=30.0, min_rr=0.99):
    """The most players in scale_rows (dicts with players, response_rate,
    rt_p99_ms) that hold: response rate >= min_rr and p99 under 1/rate.
    0 when none holds."""
    slot_ms = 1000.0 / rate
    best = 0
    for r in scale_rows:
        n = _number(r.get("players"))
        rr = _number(r.get("response_rate"))
        p99 = _number(r.get("rt_p99_ms"))
        if n is None or rr is None or p99 is None:
            continue
        if rr >= min_rr and p99 < slot_ms and n > best:
            best = int(n)
    return best


def read_scale_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summary(rows, key):
    """(min, max) of key over rows, or (None, None)."""
    vals = [r[key] for r in rows if r.get(key) is not None]
    if not vals:
        return None, None
    return min(vals), max(vals)
