"""studyreport.py -- report.md of a scaling-study folder, from its CSVs.

Design note
  The report is made from whatever the folder holds (scale.csv,
  compare.csv, compare-callgrind.csv, floor.csv, overhead.csv,
  overhead-callgrind.csv, env.txt, fig-*.png), so `qwexp.py report DIR`
  remakes it for any folder, old ones included (the CSVs of the first,
  shell version of the runner have the same columns).  Sections: the
  test description (hardware, OS, pinning, workload, timing, settings:
  ../shared/BENCHMARKS.md asks each figure to carry them), then one per
  CSV found, then the list of files.
  A figure not measured (empty field) is written "-"; a column an older
  CSV lacks reads as not measured.
  params: the run's parameters (rate, duration, warmup, join_rate,
  behaviour, repeat, seed, maxrate, server_cpu, client_cpu), from the
  command line, or from env.txt when only remaking the report.
"""

import csv
import glob
import os
import re

from . import measure, series, stats
from .report import num

FIGURES = (
    ("fig-response-rate.png", "Response rate: replies/s received by the bots, with the "
     "offered request rate (players x {rate}/s) and the requests actually sent for reference."),
    ("fig-response-time.png", "Response time seen by the bots (request sent to the first "
     "reply acknowledging it): mean, p99, max; the dashed line is one time slot ({slot} ms)."),
    ("fig-bandwidth.png", "Bandwidth per client: server to client (replies, in) and client "
     "to server (requests, out), UDP payload bytes/s."),
    ("fig-reply-size.png", "Reply size: qwd's reply datagrams (mean, p99, max, netchan header "
     "included) and the mean seen by the bots; request size for reference."),
    ("fig-breakdown.png", "Server execution-time breakdown: share of wall time per frame "
     "phase (docs/instrumentation.md): world, receive, execute, reply, idle."),
    ("fig-request-time.png", "Request processing time inside qwd (batch receive of a request "
     "to its reply queued): mean, p99 (count-weighted mean of the 1 s intervals' p99), max."),
    ("fig-cpu.png", "Server CPU: share of one CPU over the window, and CPU time per request."),
)

OVERHEAD_LABELS = {
    "off": "(a) instruments off (-notimers)",
    "timers": "(b) phase timers (default)",
    "counters": "(c) timers + counters (-counters)",
}
OVERHEAD_SHORT = {
    "off": "(a) off (-notimers)",
    "timers": "(b) timers (default)",
    "counters": "(c) timers + counters",
}


def read_csv(path):
    """Rows of a CSV as dicts of text ("" for a missing field); [] when
    the file is missing."""
    try:
        with open(path, newline="") as f:
            return [{k: (v or "") for k, v in r.items() if k is not None}
                    for r in csv.DictReader(f)]
    except OSError:
        return []


def _v(row, key):
    """The field as a number, None when empty or absent."""
    return series.number(row.get(key, ""))


def f(row, key, spec, scale=1.0):
    """spec % the field (divided by scale), "-" when not measured."""
    x = _v(row, key)
    if x is None:
        return "-"
    x /= scale
    return spec % (int(x) if spec == "%d" else x)


def pct(row, key):
    x = _v(row, key)
    return "-" if x is None else "%.1f" % (100 * x)


def cmd_warmup(env, key, params):
    """The --warmup of the mode's command line in env.txt (the modes of
    one folder may have used different ones), else the run's."""
    m = re.search(r"--warmup ([0-9.]+)", env.get(key, ""))
    return m.group(1) if m else num(params["warmup"])


def hw_short(env):
    return "%s, %s CPUs (%s)" % (env.get("cpu_model", ""), env.get("cpus", ""),
                                 env.get("virt", ""))


def threads_text(p):
    """How the server ran: qwd's sequential frame, or its parallel frame
    with -threads N (older folders have no threads parameter)."""
    n = int(p.get("threads") or 1)
    return "one thread" if n <= 1 else "%d threads (-threads %d: docs/parallel.md)" % (n, n)


def make(out, env, params):
    """The text of report.md for the folder out."""
    p = params
    have = {name: os.path.isfile(os.path.join(out, name + ".csv"))
            for name in ("scale", "compare", "floor", "overhead")}
    title = "qwd scaling study"
    if have["overhead"] and not have["scale"]:
        title = "qwd instrumentation overhead"
    w = []
    w.append("# %s: %s, %s" % (title, env.get("date", ""), env.get("machine_short", "")))
    w.append("")
    w.append("Made by `tools/experiment/qwexp.py` (the method: `../shared/BENCHMARKS.md`).")
    w.append("Commands of this run:")
    w.append("")
    for k in ("scale_cmd", "scale_cmd_append", "compare_cmd", "floor_cmd", "overhead_cmd"):
        if env.get(k):
            w.append("    tools/experiment/" + env[k])
    w.append("")
    hw = "%s, %s CPUs, %s RAM, %s, virtualisation: %s" % (
        env.get("cpu_model", ""), env.get("cpus", ""), env.get("mem", ""),
        env.get("kernel", ""), env.get("virt", ""))
    mv = ("; MVDSV: KTX stock configs, free-for-all, sv_maxrate 500000 (KTX's)"
          if have["compare"] else "")
    w += [
        "## Test description",
        "",
        "| what | value |",
        "|---|---|",
        "| hardware | %s |" % hw,
        "| OS, compiler | %s, gcc %s (-O2) |" % (env.get("os", ""), env.get("gcc", "")),
        "| server | qwd %s, one process, %s, pinned to CPU %s (taskset) |"
        % (env.get("qwd_rev", ""), threads_text(p), p["server_cpu"]),
        "| load generator | qwbots: every bot of a point in one process and one thread, "
        "pinned to CPU %s; requests and replies over loopback (127.0.0.1, one source "
        "address per bot) |" % p["client_cpu"],
        "| workload | %s bots (docs/qwbots.md: stand 10 frames, walk 5, one random action "
        "(jump, fire, turn), walk 5), %s requests/s per player (jitter 10%%); protocol 28 "
        "up to 32 players, qwd's extension (QWDX) above |" % (p["behaviour"], num(p["rate"])),
        "| time per point | join at %s bots/s, %s s warm-up, then the measured window "
        "(column window_s); server figures from qwd's stats intervals (1 s; 0.5 s for "
        "windows under 10 s) whose middle lies inside the window |"
        % (num(p["join_rate"]), cmd_warmup(env, "scale_cmd", p)),
        "| server settings | qwd: -maxclients max(32, players), sv_maxrate %s (0: no cap; "
        "the bots ask for rate 100000)%s |" % (p["maxrate"], mv),
        "| machine load | other jobs (CPUs): what everything but the server and the load "
        "generator used over the window, from /proc/stat; this VM is shared with other "
        "work, so a point with other jobs near 1 CPU or more is disturbed |",
        "| CPU, RAM | server CPU over the window from /proc/PID/task/*/schedstat (ns), "
        "interpolated at the window's ends; qwbots' own tick-based figure in the CSV as "
        "srv_cpu_ticks_s; RAM = peak RSS (VmHWM) |",
        "",
    ]
    if have["scale"]:
        w += scale_section(out, env, p)
    if have["compare"]:
        w += compare_section(out, env, p)
    if have["floor"]:
        w += floor_section(out, env, p)
    if have["overhead"]:
        w += overhead_section(out, env, p)
    w += [
        "## Files",
        "",
        "CSV: `scale.csv` (one row per player count), `compare.csv` (one row per server "
        "and run),",
        "`compare-summary.csv` (medians), `floor.csv`, `overhead.csv` (one row per "
        "configuration and run),",
        "`overhead-summary.csv`, `overhead-callgrind.csv`; `env.txt` (the machine). The raw "
        "outputs",
        "(qwbots JSON, per-bot CSV and per-second series, qwd's stats lines and log, CPU "
        "samples)",
        "stay in the run folder's `scale/`, `compare/` and `floor/`.",
    ]
    if os.path.isfile(os.path.join(out, "compare-callgrind.csv")):
        w += ["`compare-callgrind.csv` (instructions per reply, one row per server) and "
              "`compare-callgrind-objects.csv` (their instructions by object); callgrind's "
              "dump, its functions (`functions.txt`) and the bots' outputs in "
              "`compare/callgrind-<server>/`."]
    return "\n".join(w) + "\n"


def first_value(rows, key, spec=None):
    if not rows:
        return ""
    v = rows[0].get(key, "")
    if spec is None:
        return v
    x = series.number(v)
    return spec % (x if x is not None else 0)


# ---- scale ------------------------------------------------------------------

def scale_ranges(rows, env, rate):
    """One sentence with the ranges every scaling figure needs."""
    got = [r for r in rows if r.get("replies_per_s")]
    lo, hi = {}, {}
    for r in got:
        for k in ("request_bytes", "reply_bytes", "client_in_Bps", "client_out_Bps",
                  "srv_cpu_pct", "srv_rss_kb"):
            x = _v(r, k)
            if x is None:
                continue
            lo[k] = x if k not in lo else min(lo[k], x)
            hi[k] = x if k not in hi else max(hi[k], x)

    def rng(k, spec, scale=1.0):
        return "%s-%s" % (spec % (lo.get(k, 0) / scale), spec % (hi.get(k, 0) / scale))

    n1 = got[0]["players"] if got else ""
    n2 = got[-1]["players"] if got else ""
    win = _v(got[-1], "window_s") if got else None
    return ("players (CCU) %s to %s; %s requests/s per player; requests %s B, replies %s B "
            "(UDP payload); per-client bandwidth in %s B/s, out %s B/s; server CPU %s%% of "
            "one CPU, peak RSS %s MB; %s; %.0f s measured per point." % (
                n1, n2, num(rate), rng("request_bytes", "%.0f"), rng("reply_bytes", "%.0f"),
                rng("client_in_Bps", "%.0f"), rng("client_out_Bps", "%.0f"),
                rng("srv_cpu_pct", "%.1f"), rng("srv_rss_kb", "%.1f", 1024.0),
                hw_short(env), win or 0))


def scale_section(out, env, p):
    rows = read_csv(os.path.join(out, "scale.csv"))
    rate = float(p["rate"])
    slot = 1000.0 / rate
    sat = series.saturation(rows, rate)
    last = rows[-1]["players"] if rows else ""
    w = ["## Scaling: players 1 to %s on map %s" % (last, first_value(rows, "map")), ""]
    if sat is None:
        w.append("**Saturation point: unknown** (no point measured).")
    elif sat[0] == "none":
        w.append("**Saturation point: not reached** up to %s players (response rate stayed "
                 "at or above 95%% of the request rate and p99 at or below one time slot, "
                 "%.1f ms)." % (sat[1], slot))
    else:
        w.append("**Saturation point: %s players** (%s; criterion: response rate below 95%% "
                 "of the request rate, or p99 above one time slot, %.1f ms)."
                 % (sat[0], sat[1], slot))
    w.append("")
    other = [_v(r, "other_cpus") for r in rows if _v(r, "other_cpus") is not None]
    if other and max(other) > 0.2:
        w.append("**Noise:** other jobs on this machine used %.2f CPUs on average (up to "
                 "%.2f) during the windows (column other jobs); this 2-CPU VM was shared, "
                 "so the figures are disturbed and the saturation point is a lower bound "
                 "for an idle machine." % (sum(other) / len(other), max(other)))
        w.append("")
    w.append("| players | in game | requests/s | replies/s | response rate | rt mean / p99 / "
             "max (ms) | per client in / out (B/s) | request / reply (B) | server CPU (%) | "
             "CPU per request (us) | server RSS (MB) | qwbots CPU (%) | other jobs (CPUs) |")
    w.append("|---:|---:|---:|---:|---:|---|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        if not r.get("replies_per_s"):
            w.append("| %s | failed: %s |||||||||||" % (r["players"], r.get("status", "")))
            continue
        rr, p99 = _v(r, "response_rate") or 0, _v(r, "rt_p99_ms") or 0
        flag = " **sat**" if rr < 0.95 or p99 > slot else ""
        sent = _v(r, "requests_per_s") or 0
        offered = 0.95 * (_v(r, "in_game") or 0) * (_v(r, "rate") or 0)
        gen = " (generator behind)" if sent < offered else ""
        w.append("| %s%s | %s | %s%s | %s | %s | %s / %s / %s | %s / %s | %s / %s | %s | %s "
                 "| %s | %s | %s |" % (
                     r["players"], flag, f(r, "in_game", "%d"), f(r, "requests_per_s", "%.0f"),
                     gen, f(r, "replies_per_s", "%.0f"), f(r, "response_rate", "%.4f"),
                     f(r, "rt_mean_ms", "%.2f"), f(r, "rt_p99_ms", "%.2f"),
                     f(r, "rt_max_ms", "%.1f"), f(r, "client_in_Bps", "%.0f"),
                     f(r, "client_out_Bps", "%.0f"), f(r, "request_bytes", "%.0f"),
                     f(r, "reply_bytes", "%.0f"), f(r, "srv_cpu_pct", "%.1f"),
                     f(r, "srv_us_per_request", "%.1f"), f(r, "srv_rss_kb", "%.1f", 1024.0),
                     f(r, "cli_cpu_pct", "%.1f"), f(r, "other_cpus", "%.2f")))
    w += ["", "Server's own figures (qwd -stats, intervals inside the window):", ""]
    w.append("| players | frames/s | requests/frame | world / receive / execute / reply / "
             "idle (%) | request time mean / p99 / max (us) | reply bytes mean / max | busy "
             "per frame (us) |")
    w.append("|---:|---:|---:|---|---|---|---:|")
    for r in rows:
        if not _v(r, "srv_intervals"):
            w.append("| %s | no interval inside the window |||||" % r["players"])
            continue
        w.append("| %s | %s | %s | %s / %s / %s / %s / %s | %s / %s / %s | %s / %s | %s |" % (
            r["players"], f(r, "srv_fps", "%.0f"), f(r, "srv_requests_per_frame", "%.2f"),
            pct(r, "share_world"), pct(r, "share_receive"), pct(r, "share_execute"),
            pct(r, "share_reply"), pct(r, "share_idle"), f(r, "srv_rt_mean_us", "%.1f"),
            f(r, "srv_rt_p99_us", "%.1f"), f(r, "srv_rt_max_us", "%.0f"),
            f(r, "srv_reply_bytes_mean", "%.0f"), f(r, "srv_reply_bytes_max", "%.0f"),
            f(r, "srv_busy_us_mean", "%.1f")))
    w += ["", "Every figure below: " + scale_ranges(rows, env, p["rate"]), ""]
    for png, caption in FIGURES:
        if not os.path.isfile(os.path.join(out, png)):
            continue
        text = caption.format(rate=num(p["rate"]), slot="%.1f" % slot)
        w += ["![%s](%s)" % (text, png), "", "*%s*" % text, ""]
    return w


# ---- compare ----------------------------------------------------------------

COMPARE_FIGURES = (
    ("cpu_s_per_1000_replies", "server CPU-seconds per 1000 replies", "%.4f"),
    ("us_per_request", "server CPU per request (us)", "%.1f"),
    ("rt_p50_ms", "response time p50 (ms)", "%.3f"),
    ("rt_p90_ms", "response time p90 (ms)", "%.3f"),
    ("rt_p99_ms", "response time p99 (ms)", "%.3f"),
    ("rt_max_ms", "response time max (ms)", "%.2f"),
    ("response_rate", "response rate", "%.4f"),
    ("replies_per_s", "replies/s", "%.0f"),
    ("rss_kb", "server peak RSS (MB)", "%.1f"),
    ("reply_bytes", "reply size (B)", "%.0f"),
    ("entities_per_reply", "entities per reply", "%.1f"),
    ("user_us_per_reply", "server user-mode CPU per reply (us, tick-sampled)", "%.1f"),
    ("sys_us_per_reply", "server kernel-mode CPU per reply (us, tick-sampled)", "%.1f"),
)


def write_compare_summary(out):
    """compare-summary.csv from compare.csv; its rows as dicts."""
    path = os.path.join(out, "compare.csv")
    rows = read_csv(path)
    with open(path, newline="") as fh:
        header = next(csv.reader(fh), [])
    lines = stats.compare_summary(rows, header)
    with open(os.path.join(out, "compare-summary.csv"), "w") as fh:
        fh.write(stats.COMPARE_SUMMARY_HEADER + "\n")
        for line in lines:
            fh.write(",".join(line) + "\n")
    return read_csv(os.path.join(out, "compare-summary.csv"))


def mvdsv_error(out):
    """"TEXT (N runs)" of the first (sorted) ERROR line in MVDSV's logs."""
    count = {}
    for log in sorted(glob.glob(os.path.join(out, "compare", "mvdsv-*", "server.log"))):
        try:
            with open(log, errors="replace") as fh:
                for line in fh:
                    if "ERROR:" not in line:
                        continue
                    text = " ".join(re.sub(r"^\[[^]]*\] ", "", line.rstrip("\n")).split())
                    count[text] = count.get(text, 0) + 1
        except OSError:
            continue
    if not count:
        return ""
    first = sorted(count)[0]
    return "%s (%d runs)" % (first, count[first])


def compare_section(out, env, p):
    rows = read_csv(os.path.join(out, "compare.csv"))
    summary = (read_csv(os.path.join(out, "compare-summary.csv"))
               if os.path.isfile(os.path.join(out, "compare-summary.csv"))
               else write_compare_summary(out))
    np_ = first_value(rows, "players")
    m = first_value(rows, "map")
    win = first_value(rows, "window_s", "%.0f")
    w = ["## qwd against MVDSV + KTX", ""]
    w.append("Same real map (%s), same workload (%s %s bots at %s requests/s, stock protocol "
             "28, qwbots --qwdx off), the two servers alternating within one run (which goes "
             "first alternates too), %s runs each, %s s window, %s s warm-up, server on CPU %s "
             "and bots on CPU %s. MVDSV %s runs KTX %s in free-for-all mode with its stock "
             "configuration otherwise (maxclients raised to %s: KTX caps ffa at 26). Medians "
             "over the runs; ratio = MVDSV / qwd." % (
                 m, np_, p["behaviour"], num(p["rate"]), num(len(rows) / 2), win,
                 cmd_warmup(env, "compare_cmd", p), p["server_cpu"], p["client_cpu"],
                 env.get("mvdsv", ""), env.get("ktx", ""), np_))
    w.append("")
    by = {r.get("server"): r for r in summary}
    q, mv = by.get("qwd", {}), by.get("mvdsv", {})
    w.append("| figure (median) | qwd | MVDSV + KTX | MVDSV / qwd |")
    w.append("|---|---:|---:|---:|")
    for key, label, spec in COMPARE_FIGURES:
        sc = 1024.0 if key == "rss_kb" else 1.0
        a, b = _v(q, key), _v(mv, key)
        ratio = "%.2f" % (b / a) if a is not None and b is not None and a != 0 else "-"
        w.append("| %s | %s | %s | %s |" % (label, f(q, key, spec, sc), f(mv, key, spec, sc),
                                           ratio))
    w += ["", "Every run:", ""]
    w.append("| server | run | in game | replies/s | response rate | rt p50 / p99 / max (ms) "
             "| server CPU (s) | CPU-s / 1000 replies | RSS (MB) | other jobs (CPUs) |")
    w.append("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for r in rows:
        w.append("| %s | %s | %s | %s | %s | %s / %s / %s | %s | %s | %s | %s |" % (
            r.get("server", ""), r.get("repeat", ""), f(r, "in_game", "%d"),
            f(r, "replies_per_s", "%.0f"), f(r, "response_rate", "%.4f"),
            f(r, "rt_p50_ms", "%.3f"), f(r, "rt_p99_ms", "%.2f"), f(r, "rt_max_ms", "%.1f"),
            f(r, "srv_cpu_s", "%.3f"), f(r, "srv_cpu_s_per_1000_replies", "%.4f"),
            f(r, "srv_rss_kb", "%.1f", 1024.0), f(r, "other_cpus", "%.2f")))
    w.append("")
    err = mvdsv_error(out)
    if err:
        w.append("MVDSV stopped with `%s` when the bots left, after the window (KTX resetting "
                 "its mode as the last player goes); its peak RSS comes from the sampler's "
                 "last reading before that. The figures are not affected." % err)
        w.append("")
    w.append("Note: both servers run a deathmatch game on the map (KTX's, and qwd's native "
             "one: items, weapons, doors), each with its own rules and its own choice of what "
             "a reply carries (players and entities per reply above). User-mode CPU is the "
             "servers' own code (parsing, physics, game, replies); kernel-mode CPU is mostly "
             "the network path (the wakeup, recvmmsg or recvfrom, sendmmsg or sendto), which "
             "the bare UDP echo of `qwexp.py floor` measures alone.")
    w.append("")
    if os.path.isfile(os.path.join(out, "fig-compare.png")):
        w += ["![qwd vs MVDSV+KTX](fig-compare.png)", "",
              "*Server CPU per 1000 replies and response-time percentiles, medians; %s players "
              "(CCU), %s requests/s each, map %s, %s s per run; %s.*"
              % (np_, num(p["rate"]), m, win, hw_short(env)), ""]
    cg = read_csv(os.path.join(out, "compare-callgrind.csv"))
    if cg:
        w += compare_callgrind_section(out, cg, env, p)
    return w


SERVER_NAMES = {"qwd": "qwd", "mvdsv": "MVDSV + KTX"}


def compare_callgrind_verdict(rows):
    """(qwd's instructions per reply / MVDSV + KTX's, or None when they
    are not comparable; one sentence with both figures and the ratio, or
    why there is none) of compare-callgrind.csv's rows."""
    by = {r.get("server"): r for r in rows}
    missing = [SERVER_NAMES[k] for k in ("qwd", "mvdsv")
               if _v(by.get(k, {}), "instructions_per_reply") is None]
    if missing:
        return None, "no instructions per reply for %s" % " and ".join(missing)
    q, m = by["qwd"], by["mvdsv"]
    text = ("qwd %.0f instructions per reply (response rate %s), MVDSV + KTX %.0f (response "
            "rate %s)" % (_v(q, "instructions_per_reply"), f(q, "response_rate", "%.4f"),
                          _v(m, "instructions_per_reply"), f(m, "response_rate", "%.4f")))
    behind = [SERVER_NAMES[k] for k in ("qwd", "mvdsv") if by[k].get("kept_up") != "yes"]
    if behind:
        return None, "%s; %s did not keep up (response rate under %.2f): no ratio" % (
            text, " and ".join(behind), measure.KEEP_UP)
    ratio = _v(q, "instructions_per_reply") / _v(m, "instructions_per_reply")
    return ratio, "%s: qwd / MVDSV + KTX = %.3f" % (text, ratio)


def compare_callgrind_section(out, rows, env, p):
    first = rows[0]
    w = ["### Instructions per reply (callgrind)", ""]
    w.append("Each server once under `valgrind --tool=callgrind`, counting the whole process "
             "(every thread and every object it runs: for MVDSV, the KTX game module it loads, "
             "qwprogs.so), with one load: %s %s bots at %s requests/s, stock protocol 28, seed "
             "%s, map %s. qwbots joins them, warms up for %s s and measures, writing a row of "
             "figures a second; just after its second row, the runner zeroes callgrind's "
             "counters (valgrind's monitor command `zero`, sent with vgdb), and just after the "
             "row that ends the window it has them written out (`dump`): instructions = the "
             "total of that dump; requests and replies = what the bots sent and received over "
             "the same span (their per-second rows, pro-rated at the ends). The server kept "
             "up when it answered at least %.0f%% of the requests there: one that falls behind "
             "merges requests into fewer replies, which makes its figure another workload's. "
             "Under callgrind the servers run some 50 times slower, hence a lighter load than "
             "the runs above." % (
                 first.get("players", ""), p["behaviour"], first.get("rate", ""), p["seed"],
                 first.get("map", ""), cmd_warmup(env, "compare_cmd", p),
                 100 * measure.KEEP_UP))
    w.append("")
    w.append("| server | players | requests/s each | window (s) | requests | replies | response "
             "rate | kept up | instructions | instructions per reply |")
    w.append("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    for r in rows:
        w.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            SERVER_NAMES.get(r.get("server"), r.get("server", "")), r.get("players", ""),
            r.get("rate", ""), f(r, "window_s", "%.1f"), f(r, "requests", "%d"),
            f(r, "replies", "%d"), f(r, "response_rate", "%.4f"),
            r.get("kept_up") or "-", f(r, "instructions", "%d"),
            f(r, "instructions_per_reply", "%.0f")))
    w.append("")
    ratio, text = compare_callgrind_verdict(rows)
    if ratio is None:
        w.append("**Not comparable:** %s." % text)
    else:
        by = {r.get("server"): r for r in rows}
        w.append("**qwd / MVDSV + KTX, instructions per reply: %.3f** (%s / %s, both kept up)."
                 % (ratio, f(by["qwd"], "instructions_per_reply", "%.0f"),
                    f(by["mvdsv"], "instructions_per_reply", "%.0f")))
    w.append("")
    objects = read_csv(os.path.join(out, "compare-callgrind-objects.csv"))
    for key in ("qwd", "mvdsv"):
        mine = [o for o in objects if o.get("server") == key]
        if mine:
            w.append("- %s, by object: %s." % (SERVER_NAMES[key], ", ".join(
                "%s %s%%" % (os.path.basename(o.get("object", "")), f(o, "share_pct", "%.1f"))
                for o in mine[:5])))
    if objects:
        w.append("")
    w.append("Caveats: callgrind counts instructions, not cycles (nor cache misses), and only in "
             "user space: the kernel's part of each system call (the network path, which `qwexp."
             "py floor` measures) is not counted, and under valgrind a clock read is a system "
             "call instead of a vDSO read. Each valgrind command stops the server for tens of "
             "milliseconds; the stop after `zero` falls inside the window and shows in its "
             "response rate. One run per server: the walkers' game differs from run to run "
             "(their moves follow the replies), so the figures do too by a few percent; rerun "
             "for a spread. Each server's functions, the largest first, are in "
             "`compare/callgrind-<server>/functions.txt` (MVDSV's binary is stripped: "
             "addresses).")
    w.append("")
    return w


# ---- floor ------------------------------------------------------------------

def floor_section(out, env, p):
    rows = read_csv(os.path.join(out, "floor.csv"))
    w = ["## Network floor: a bare UDP echo", ""]
    w.append("`tools/udpecho`: a server that only echoes (poll, recvmmsg 64 at a time, "
             "sendmmsg: the system calls qwd's frame makes) and a sender of N clients at %s "
             "requests/s each, with each point's mean request and reply sizes from the scaling "
             "run, pinned like qwd and qwbots, %s s window. Multiple = qwd's CPU per request / "
             "the echo's CPU per request: what qwd costs beyond what the kernel alone costs to "
             "carry the same datagrams." % (num(p["rate"]), num(p["duration"])))
    w.append("")
    w.append("| clients | request / reply (B) | requests/s | response rate | echo rt mean / p99 "
             "(ms) | echo server CPU (%) | echo CPU per request (us) | qwd CPU per request (us) "
             "| multiple |")
    w.append("|---:|---|---:|---:|---|---:|---:|---:|---:|")
    for r in rows:
        w.append("| %s | %s / %s | %s | %s | %s / %s | %s | %s | %s | %s |" % (
            r.get("players", ""), r.get("size_in", ""), r.get("size_out", ""),
            f(r, "requests_per_s", "%.0f"), f(r, "response_rate", "%.4f"),
            f(r, "rt_mean_ms", "%.3f"), f(r, "rt_p99_ms", "%.2f"), f(r, "echo_cpu_pct", "%.1f"),
            f(r, "echo_us_per_request", "%.2f"), f(r, "qwd_us_per_request", "%.2f"),
            f(r, "multiple", "%.1fx")))
    w.append("")
    if os.path.isfile(os.path.join(out, "fig-floor.png")):
        w += ["![qwd vs the network floor](fig-floor.png)", "",
              "*CPU time per request of qwd and of the bare echo, same clients, rate and "
              "datagram sizes; %s; %s s per point.*" % (hw_short(env), num(p["duration"])), ""]
    return w


# ---- overhead ---------------------------------------------------------------

def write_overhead_summary(out):
    rows = read_csv(os.path.join(out, "overhead.csv"))
    with open(os.path.join(out, "overhead-summary.csv"), "w") as fh:
        fh.write(stats.OVERHEAD_SUMMARY_HEADER + "\n")
        for line in stats.overhead_summary(rows):
            fh.write(",".join(line) + "\n")


def overhead_section(out, env, p):
    if not os.path.isfile(os.path.join(out, "overhead-summary.csv")):
        write_overhead_summary(out)
    rows = read_csv(os.path.join(out, "overhead.csv"))
    summary = read_csv(os.path.join(out, "overhead-summary.csv"))
    np_, m = first_value(rows, "players"), first_value(rows, "map")
    win = first_value(rows, "window_s", "%.0f")
    w = ["## Instrumentation overhead: %s players on %s" % (np_, m), ""]
    w.append("The same load (%s %s bots at %s requests/s each, %s s warm-up, %s s window, "
             "seed %s) on qwd in three configurations: %s, %s, %s. Each repeat runs the three "
             "back to back, the order rotating from one repeat to the next (a b c, b c a, c a "
             "b) so a drift of the machine falls on every configuration alike; %d runs in all. "
             "All three write qwd's stats file (one JSON line a second): the runs differ only "
             "in the timers and counters. Figure: server CPU time over the window (schedstat) "
             "per 1000 replies the bots received; overhead = (configuration - (a)) / (a). "
             "Paired: the same ratio within each repeat, then averaged. Spread: one standard "
             "deviation of (a) plus one of the configuration, relative to (a)'s mean; a "
             "difference smaller than that is within the run-to-run noise. The goal of the "
             "issue: under 2%% of server CPU at 256 players." % (
                 np_, p["behaviour"], num(p["rate"]), cmd_warmup(env, "overhead_cmd", p), win,
                 p["seed"], OVERHEAD_LABELS["off"], OVERHEAD_LABELS["timers"],
                 OVERHEAD_LABELS["counters"], len(rows)))
    w.append("")
    w.append("| configuration | runs | CPU-s per 1000 replies: mean +- sd (min - max) | median "
             "| overhead vs (a) | paired overhead: mean +- sd, median | spread | within spread |")
    w.append("|---|---:|---|---:|---:|---|---:|---|")
    for s in summary:
        w.append("| %s | %s | %s +- %s (%s - %s) | %s | %s | %s +- %s, %s | %s | %s |" % (
            OVERHEAD_SHORT.get(s["config"], s["config"]), f(s, "runs", "%d"),
            f(s, "cpu_s_per_1000_replies_mean", "%.4f"), f(s, "cpu_s_per_1000_replies_sd", "%.4f"),
            f(s, "cpu_s_per_1000_replies_min", "%.4f"), f(s, "cpu_s_per_1000_replies_max", "%.4f"),
            f(s, "cpu_s_per_1000_replies_median", "%.4f"), f(s, "overhead_pct", "%+.2f%%"),
            f(s, "paired_overhead_pct_mean", "%+.2f%%"), f(s, "paired_overhead_pct_sd", "%.2f%%"),
            f(s, "paired_overhead_pct_median", "%+.2f%%"), f(s, "spread_pct", "%.2f%%"),
            s.get("within_spread") or "-"))
    w.append("")
    for s in summary:
        ov = _v(s, "overhead_pct")
        if s["config"] == "off" or ov is None:
            continue
        what = "The phase timers" if s["config"] == "timers" else "Timers and counters together"
        if s.get("within_spread") == "yes":
            w.append("- %s: %+.2f%% of server CPU, **within the run-to-run spread** (%.2f%%): "
                     "no difference measurable with %d runs."
                     % (what, ov, _v(s, "spread_pct"), _v(s, "runs")))
        elif s.get("within_spread") == "no":
            w.append("- %s: %+.2f%% of server CPU, larger than the run-to-run spread (%.2f%%)%s."
                     % (what, ov, _v(s, "spread_pct"),
                        "; under the 2% goal" if ov < 2 else "; **over the 2% goal**"))
        else:
            w.append("- %s: %+.2f%% of server CPU (one run each: the spread is unknown)."
                     % (what, ov))
    mode = next((s.get("counter_mode", "") for s in summary if s["config"] == "counters"), "")
    if mode == "software":
        w.append("- Counters: this machine has no hardware events (a VM without a PMU), so "
                 "qwd's counters degraded to the software group (task-clock, context-switches, "
                 "page-faults): configuration (c) measures that, not the hardware groups, whose "
                 "reads cost about as much per group (one read(2) each) but come in up to three "
                 "groups.")
    elif mode in ("all", "rotating"):
        w.append("- Counters: hardware groups were counted (mode %s)." % mode)
    else:
        w.append("- Counters: mode %s (see the runs' server.log)." % (mode or "unknown"))
    w += ["", "Every run:", ""]
    w.append("| configuration | repeat | order | in game | replies/s | response rate | rt p99 "
             "(ms) | server CPU (%) | CPU-s / 1000 replies | frames/s | timers | counters | "
             "other jobs (CPUs) |")
    w.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|")
    for r in rows:
        w.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r.get("config", ""), r.get("repeat", ""), r.get("order", ""), f(r, "in_game", "%d"),
            f(r, "replies_per_s", "%.0f"), f(r, "response_rate", "%.4f"),
            f(r, "rt_p99_ms", "%.2f"), f(r, "srv_cpu_pct", "%.1f"),
            f(r, "srv_cpu_s_per_1000_replies", "%.4f"), f(r, "srv_fps", "%.0f"),
            r.get("timers") or "-", r.get("counter_mode") or "-", f(r, "other_cpus", "%.2f")))
    w.append("")
    cg = read_csv(os.path.join(out, "overhead-callgrind.csv"))
    if cg:
        w += callgrind_section(cg, p)
    return w


def callgrind_section(cg, p):
    first = cg[0]
    w = ["### Instructions (callgrind): a figure noise cannot hide", ""]
    w.append("qwd under `valgrind --tool=callgrind --toggle-collect=server_frame` (user-space "
             "instructions executed inside the frame function, everything it calls included) "
             "with a fixed small load: %s %s bots at %s requests/s, %.0f s window (what qwd "
             "sustains under valgrind), seed %s, join and 2 s warm-up included, one run per "
             "configuration. Instructions are divided by the replies qwd sent over the whole "
             "run (its stats lines). Profiler = the self cost of every function in src/prof/ "
             "plus clock_gettime." % (first.get("bots", ""), p["behaviour"], first.get("rate", ""),
                                      _v(first, "window_s") or 0, p["seed"]))
    w.append("")
    base = next((_v(r, "ir_per_reply") for r in cg if r.get("config") == "off"), None)
    w.append("| configuration | frames | replies | instructions per reply | of which profiler "
             "| profiler share | vs (a): instructions per reply |")
    w.append("|---|---:|---:|---:|---:|---:|---:|")
    for r in cg:
        ir = _v(r, "ir_per_reply") or 0
        d = "-"
        if base is not None and r.get("config") != "off":
            d = "%+.0f (%+.2f%%)" % (ir - base, 100 * (ir - base) / base)
        w.append("| %s | %d | %d | %.0f | %.0f | %.2f%% | %s |" % (
            OVERHEAD_SHORT.get(r.get("config"), r.get("config")), _v(r, "frames") or 0,
            _v(r, "replies") or 0, ir, _v(r, "prof_ir_per_reply") or 0,
            _v(r, "prof_share_pct") or 0, d))
    w.append("")
    bullets = []
    off = next((r for r in cg if r.get("config") == "off"), None)
    if off is not None and (_v(off, "ir_per_reply") or 0) > 0:
        b = _v(off, "ir_per_reply")
        for r in cg:
            if r.get("config") == "off":
                continue
            ir = _v(r, "ir_per_reply") or 0
            rel = 100 * (ir - b) / b
            bullets.append(
                "- %s: %+.0f instructions per reply against (a), %+.2f%% of (a)%s; the "
                "profiler's own instructions go from %.0f to %.0f per reply." % (
                    "(b) timers" if r.get("config") == "timers" else "(c) timers + counters",
                    ir - b, rel, ", under the 2% goal" if rel < 2 else ", over the 2% goal",
                    _v(off, "prof_ir_per_reply") or 0, _v(r, "prof_ir_per_reply") or 0))
    w += sorted(bullets)
    w.append("")
    w.append("Caveats: callgrind counts instructions, not cycles, and only in user space. Under "
             "valgrind the vDSO is not used, so each clock read is a clock_gettime system call "
             "whose kernel part is not counted (natively it is a vDSO read of a few tens of "
             "instructions); the counters' read(2) calls run in the kernel too. The difference "
             "in instructions per reply between configurations also carries the load's own "
             "variation (frames batch a different number of requests from run to run); the "
             "profiler's own share does not.")
    w.append("")
    return w
