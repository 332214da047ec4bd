"""stats.py -- the summaries of repeated runs: medians of the comparison,
means, spreads and paired overheads of the instrumentation benchmark.

Design note
  Inputs are the rows of a run's CSV as text (csv.DictReader), so a
  summary can be remade from an old folder; an empty field is a figure
  not measured and is left out, never counted as 0.  Outputs are rows of
  text in the columns the first version of the runner wrote, so the
  summaries of old and new folders read alike.
    compare: per server, the median of each figure over its runs.
    overhead: per configuration, the mean, sample standard deviation,
    min, max and median of server CPU-seconds per 1000 replies; the
    overhead against "off" (the instruments off); the paired overhead
    (the same ratio within each repeat, whose configurations ran back to
    back, so a drift of the machine between repeats cancels); the
    run-to-run spread (one sd of "off" plus one of the configuration,
    over "off"'s mean) and whether the overhead lies within it.
"""

import math

from .report import num
from .series import number


def median(values):
    """The median of the numbers in values (None left out), or None."""
    xs = sorted(v for v in values if v is not None)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def mean(values):
    xs = [v for v in values if v is not None]
    return sum(xs) / len(xs) if xs else None


def sd(values):
    """The sample standard deviation (n - 1), or None under two values."""
    xs = [v for v in values if v is not None]
    n = len(xs)
    if n < 2:
        return None
    mu = sum(xs) / n
    return math.sqrt(max(0.0, sum((x - mu) ** 2 for x in xs) / (n - 1)))


COMPARE_SUMMARY_HEADER = (
    "server,runs,cpu_s_per_1000_replies,us_per_request,rt_p50_ms,rt_p90_ms,"
    "rt_p99_ms,rt_max_ms,response_rate,replies_per_s,rss_kb,reply_bytes,"
    "entities_per_reply,user_us_per_reply,sys_us_per_reply")
# the summary's columns after "runs", from these columns of compare.csv
COMPARE_SOURCES = (
    "srv_cpu_s_per_1000_replies", "srv_us_per_request", "rt_p50_ms", "rt_p90_ms",
    "rt_p99_ms", "rt_max_ms", "response_rate", "replies_per_s", "srv_rss_kb",
    "reply_bytes", "entities_per_reply", "srv_user_us_per_reply",
    "srv_sys_us_per_reply")


def compare_summary(rows, header=None):
    """Rows (lists of text) of compare-summary.csv: per server (qwd, then
    mvdsv) that has measured runs, the medians.  header: the columns of
    compare.csv (a column it lacks gives an empty field)."""
    header = header if header is not None else (list(rows[0].keys()) if rows else [])
    out = []
    for server in ("qwd", "mvdsv"):
        runs = [r for r in rows if r.get("server") == server and r.get("replies_per_s")]
        if not runs:
            continue
        line = [server, str(len(runs))]
        for col in COMPARE_SOURCES:
            line.append(num(median(number(r.get(col)) for r in runs))
                        if col in header else "")
        out.append(line)
    return out


OVERHEAD_CONFIGS = ("off", "timers", "counters")
OVERHEAD_SUMMARY_HEADER = (
    "config,runs,cpu_s_per_1000_replies_mean,cpu_s_per_1000_replies_sd,"
    "cpu_s_per_1000_replies_min,cpu_s_per_1000_replies_max,overhead_pct,"
    "paired_overhead_pct_mean,paired_overhead_pct_sd,spread_pct,within_spread,"
    "counter_mode,cpu_s_per_1000_replies_median,paired_overhead_pct_median")


def _f(spec, v):
    return "" if v is None else spec % v


def overhead_summary(rows):
    """Rows (lists of text) of overhead-summary.csv from overhead.csv's."""
    by = {}
    mode = {}
    for r in rows:
        x = number(r.get("srv_cpu_s_per_1000_replies"))
        if x is None or r.get("status") == "server-failed":
            continue
        k = r.get("config")
        by.setdefault(k, {})[r.get("repeat")] = x
        mode[k] = r.get("counter_mode", "")
    out = []
    if "off" not in by:
        for k in OVERHEAD_CONFIGS:
            if k in by:
                xs = list(by[k].values())
                out.append([k, str(len(xs)), "%.6f" % mean(xs), "", "%.6f" % min(xs),
                            "%.6f" % max(xs), "", "", "", "", "unknown", mode[k], "", ""])
        return out
    base_vals = list(by["off"].values())
    base, sb = mean(base_vals), sd(base_vals)
    for k in OVERHEAD_CONFIGS:
        if k not in by:
            continue
        xs = list(by[k].values())
        mu, sk = mean(xs), sd(xs)
        ov = pm = ps = pmd = None
        if k != "off":
            ov = 100 * (mu - base) / base
            paired = [100 * (x - by["off"][rep]) / by["off"][rep]
                      for rep, x in by[k].items()
                      if rep in by["off"] and by["off"][rep] > 0]
            pm, ps, pmd = mean(paired), sd(paired), median(paired)
        spread = 100 * (sb + sk) / base if sb is not None and sk is not None else None
        if k == "off":
            within = ""
        elif spread is None:
            within = "unknown"
        else:
            within = "yes" if abs(round(ov, 3)) <= spread else "no"
        out.append([k, str(len(xs)), "%.6f" % mu, _f("%.6f", sk), "%.6f" % min(xs),
                    "%.6f" % max(xs), _f("%.3f", ov), _f("%.3f", pm), _f("%.3f", ps),
                    _f("%.3f", spread), within, mode[k], "%.6f" % median(xs),
                    _f("%.3f", pmd)])
    return out
