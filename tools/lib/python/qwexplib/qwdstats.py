"""qwdstats.py -- qwd's own figures (qwd -stats FILE) over a window.

Design note
  qwd writes one "qwd-stats/1" JSON object per interval, one line each
  (docs/instrumentation.md, section 4); its "time" is the Unix time at the
  interval's end.  The runner starts qwd with a short interval (1 s) and
  keeps the intervals whose middle lies inside the load generator's
  measurement window [ws, we] (Unix seconds).  The interval qwd writes as
  it shuts down (cut short, and holding the bots' departure) is left out:
  with the time the runner asked it to stop, any interval ending after
  that is not counted.
    Counts and times are summed, so shares, rates and means are exact over
    the kept intervals.  Percentiles cannot be merged exactly from
    per-interval summaries: p50 and p99 here are the means of the
    intervals' percentiles weighted by their counts; max is the largest
    max.  A null figure (nothing measured) adds nothing.  With no interval
    inside the window, "intervals" is 0 and every other figure is absent:
    the CSV gets empty fields, never zeros.
  A line that does not parse (the last one, cut by a kill) is left out.
"""

import json

PHASES = ("world", "receive", "execute", "reply", "idle")
HISTOGRAMS = ("request_time_us", "reply_bytes", "frame_busy_us")


def parse_lines(lines):
    """The stats objects of an iterable of lines."""
    out = []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def read(path):
    """The stats objects of a file; [] when it is missing."""
    try:
        with open(path, errors="replace") as f:
            return parse_lines(f)
    except OSError:
        return []


def _num(obj, *keys):
    v = obj
    for k in keys:
        if not isinstance(v, dict):
            return None
        v = v.get(k)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return v


def window(records, ws, we, stop=None):
    """qwd's figures over the intervals whose middle lies in [ws, we] and
    that ended before stop (Unix time qwd was told to stop; None: no such
    limit): a
    dict with "intervals" and, when there is one, seconds, fps,
    requests_per_s, replies_per_s, requests_per_frame, share_<phase>,
    in_Bps, out_Bps, client_in_Bps, client_out_Bps and, for each
    histogram h, h_mean, h_p50, h_p99, h_max.  A figure with nothing to
    divide by is None."""
    n = 0
    secs = frames = req = rep = bin_ = bout = cin = cout = 0.0
    pns = dict.fromkeys(PHASES, 0.0)
    hc = dict.fromkeys(HISTOGRAMS, 0.0)
    hsum = {h: {"mean": 0.0, "p50": 0.0, "p99": 0.0} for h in HISTOGRAMS}
    hmax = {}
    for r in records:
        t, length = _num(r, "time"), _num(r, "interval_s")
        if t is None or length is None or length <= 0:
            continue
        mid = t - length / 2
        if mid < ws or mid > we or (stop is not None and t > stop):
            continue
        n += 1
        secs += length
        frames += _num(r, "frames") or 0
        req += _num(r, "requests") or 0
        rep += _num(r, "replies") or 0
        for p in PHASES:
            pns[p] += _num(r, "phase_ns", p) or 0
        bin_ += _num(r, "net", "bytes_in") or 0
        bout += _num(r, "net", "bytes_out") or 0
        cin += length * (_num(r, "clients", "in_Bps_mean") or 0)
        cout += length * (_num(r, "clients", "out_Bps_mean") or 0)
        for h in HISTOGRAMS:
            c = _num(r, h, "count")
            if not c or _num(r, h, "mean") is None:
                continue
            hc[h] += c
            for k in ("mean", "p50", "p99"):
                hsum[h][k] += c * (_num(r, h, k) or 0)
            mx = _num(r, h, "max")
            if mx is not None and (h not in hmax or mx > hmax[h]):
                hmax[h] = mx
    out = {"intervals": n}
    if n == 0 or secs <= 0:
        return out

    def ratio(a, b):
        return a / b if b > 0 else None

    total = sum(pns.values())
    out.update({
        "seconds": secs,
        "fps": ratio(frames, secs),
        "requests_per_s": ratio(req, secs),
        "replies_per_s": ratio(rep, secs),
        "requests_per_frame": ratio(req, frames),
        "in_Bps": ratio(bin_, secs),
        "out_Bps": ratio(bout, secs),
        "client_in_Bps": ratio(cin, secs),
        "client_out_Bps": ratio(cout, secs),
    })
    for p in PHASES:
        out["share_" + p] = ratio(pns[p], total)
    for h in HISTOGRAMS:
        for k in ("mean", "p50", "p99"):
            out["%s_%s" % (h, k)] = ratio(hsum[h][k], hc[h])
        out[h + "_max"] = hmax.get(h)
    return out


def timers(records):
    """"off" when some interval ran with the phase timers off, "on" when
    the lines say they ran, "" when the lines do not say."""
    flags = [r.get("timers") for r in records if isinstance(r.get("timers"), bool)]
    if False in flags:
        return "off"
    return "on" if flags else ""


def counter_mode(records):
    """The counter mode of the last interval: "off" (counters null),
    "none", "software", "all", "rotating"; "" when unknown."""
    if not records:
        return ""
    c = records[-1].get("counters", "")
    if c is None:
        return "off"
    if isinstance(c, dict) and isinstance(c.get("mode"), str):
        return c["mode"]
    return ""


def total(records, key):
    """The sum of a count (frames, replies) over every interval."""
    return sum(_num(r, key) or 0 for r in records)
