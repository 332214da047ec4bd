"""measure.py -- the figures of one finished run, and the rows of the
scaling study's CSVs (scale.csv, compare.csv, compare-callgrind.csv,
overhead.csv, floor.csv).

Design note
  A run is a server and a load generator; the figures come from three
  places:
    the client side   qwbots' --json window totals (requests, replies,
                      response time, bytes, chokes...) and its own CPU;
    /proc             the sampler's samples: the server's CPU over the
                      window, its peak RSS, the machine's busy and steal
                      jiffies (what else ran), the load generator's RSS;
    the server        qwd's stats intervals inside the window
                      (qwdstats.window).
  The window is the last window_s seconds (qwbots' figure) before the
  sample taken when qwbots exited: qwbots leaves and writes its report
  milliseconds after its window ends.  A counter's growth over the window
  is interpolated between the samples around its ends (proc.growth).
  The instruction count of the comparison (compare-callgrind.csv) is the
  exception: its window is the runner's own (valgrind's counters zeroed,
  then dumped, inside qwbots' window), its requests and replies what the
  bots' --series rows give over that span (series.counts_between).  A
  server kept up when it answered at least KEEP_UP of the requests
  there: a server that falls behind merges requests into fewer replies,
  and its instructions per reply would be a figure of another workload.
  Derived figures are None when an input is missing (an empty CSV field),
  never 0.  The rows are lists of text in the CSVs' column order, numbers
  written as the runner's first version wrote them (report.num), so the
  columns of old result folders (docs/results/) stay readable alongside.
"""

from . import proc
from .report import num
from .series import number, value

SCALE_HEADER = (
    "players,rate,map,window_s,in_game,join_s,status,offered_per_s,requests_per_s,"
    "replies_per_s,response_rate,rt_mean_ms,rt_p50_ms,rt_p90_ms,rt_p99_ms,rt_max_ms,"
    "client_in_Bps,client_out_Bps,request_bytes,reply_bytes,players_per_reply,"
    "entities_per_reply,chokes,lost,bad,srv_cpu_s,srv_cpu_pct,srv_cpu_ticks_s,"
    "srv_us_per_request,srv_cpu_s_per_1000_replies,srv_rss_kb,cli_cpu_s,cli_cpu_pct,"
    "cli_rss_kb,srv_intervals,srv_fps,share_world,share_receive,share_execute,"
    "share_reply,share_idle,srv_requests_per_frame,srv_rt_mean_us,srv_rt_p50_us,"
    "srv_rt_p99_us,srv_rt_max_us,srv_reply_bytes_mean,srv_reply_bytes_p99,"
    "srv_reply_bytes_max,srv_busy_us_mean,srv_in_Bps,srv_out_Bps,srv_client_in_Bps,"
    "srv_client_out_Bps,host_busy_cpus,other_cpus,steal_pct")

COMPARE_HEADER = (
    "server,repeat,players,map,window_s,in_game,status,requests_per_s,replies_per_s,"
    "response_rate,rt_mean_ms,rt_p50_ms,rt_p90_ms,rt_p99_ms,rt_max_ms,client_in_Bps,"
    "client_out_Bps,reply_bytes,players_per_reply,entities_per_reply,srv_cpu_s,"
    "srv_cpu_ticks_s,srv_cpu_pct,srv_cpu_s_per_1000_replies,srv_us_per_request,"
    "srv_rss_kb,cli_cpu_pct,host_busy_cpus,other_cpus,steal_pct,srv_user_s,srv_sys_s,"
    "srv_user_us_per_reply,srv_sys_us_per_reply")

OVERHEAD_HEADER = (
    "config,repeat,order,players,rate,map,window_s,in_game,status,requests_per_s,"
    "replies_per_s,response_rate,rt_p99_ms,srv_cpu_s,srv_cpu_pct,"
    "srv_cpu_s_per_1000_replies,srv_us_per_request,srv_fps,srv_requests_per_frame,"
    "timers,counter_mode,srv_rss_kb,other_cpus,steal_pct")

FLOOR_HEADER = (
    "players,rate,size_in,size_out,window_s,requests_per_s,replies_per_s,"
    "response_rate,rt_mean_ms,rt_p50_ms,rt_p99_ms,rt_max_ms,echo_cpu_s,echo_cpu_pct,"
    "echo_us_per_request,sender_us_per_request,qwd_us_per_request,multiple")


COMPARE_CALLGRIND_HEADER = (
    "server,players,in_game,rate,map,window_s,requests,replies,response_rate,kept_up,"
    "instructions,instructions_per_reply,control_ms")

CALLGRIND_OBJECTS_HEADER = "server,object,instructions,share_pct"

KEEP_UP = 0.99


def ratio(a, b, scale=1.0):
    """scale * a / b, None when an input is missing or b is 0."""
    if a is None or b is None or b == 0:
        return None
    return scale * a / b


def client_figures(doc):
    """The client side of a run from qwbots' --json document (None: the
    report is missing): a dict of numbers, None where not measured."""
    doc = doc or {}

    def t(k):
        return value(doc, "totals." + k)

    c = {k: t(k) for k in ("bots_in_game", "join_max_s", "requests_per_s", "replies_per_s",
                           "replies", "requests", "response_rate", "players_per_reply",
                           "entities_per_reply", "chokes", "lost", "bad_total", "window_s")}
    for k in ("mean", "p50", "p90", "p99", "max"):
        c["rt_" + k] = t("response_time_ms." + k)
    bin_, bout = t("bytes_in_per_s"), t("bytes_out_per_s")
    c["in_per_client"] = ratio(bin_, c["bots_in_game"])
    c["out_per_client"] = ratio(bout, c["bots_in_game"])
    c["request_bytes"] = ratio(bout, c["requests_per_s"])
    c["reply_bytes"] = ratio(bin_, c["replies_per_s"])
    ticks = value(doc, "cpu.server_s")
    c["srv_cpu_ticks_s"] = ticks if ticks is not None and ticks >= 0 else None
    user, sys_ = value(doc, "cpu.user_s"), value(doc, "cpu.sys_s")
    c["cpu_s"] = user + sys_ if user is not None and sys_ is not None else None
    c["cpu_pct"] = value(doc, "cpu.percent")
    return c


def window_figures(samples, win_s):
    """/proc figures over the last win_s seconds before the last sample
    (processes: 0 the server, 1 the load generator): a dict with ws, we
    (the window's ends, time.monotonic()), srv_cpu_s, srv_user_s,
    srv_sys_s, srv_hwm_kb (peak of every sample), cli_hwm_kb (its last),
    host_busy_cpus (the machine, in CPUs busy) and steal_pct."""
    w = {"ws": None, "we": None, "srv_cpu_s": None, "srv_user_s": None, "srv_sys_s": None,
         "host_busy_cpus": None, "steal_pct": None}
    srv = [s.procs[0] for s in samples if s.procs and s.procs[0] is not None]
    cli = [s.procs[1] for s in samples if len(s.procs) > 1 and s.procs[1] is not None]
    w["srv_hwm_kb"] = max(p.hwm_kb for p in srv) if srv else None
    w["cli_hwm_kb"] = cli[-1].hwm_kb if cli else None
    if not samples or win_s is None or win_s <= 0:
        return w
    we = samples[-1].t
    ws = we - win_s
    w["ws"], w["we"] = ws, we
    for key, field in (("srv_cpu_s", "cpu_s"), ("srv_user_s", "user_s"), ("srv_sys_s", "sys_s")):
        w[key] = proc.growth(proc.points(samples, proc.proc_field(0, field)), ws, we)
    busy = proc.growth(proc.points(samples, proc.machine_field("busy")), ws, we)
    steal = proc.growth(proc.points(samples, proc.machine_field("steal")), ws, we)
    w["host_busy_cpus"] = ratio(busy, win_s * proc.CLK_TCK)
    w["steal_pct"] = ratio(steal, win_s * proc.CLK_TCK, 100.0)
    return w


def other_cpus(w, c):
    """CPUs used by everything but the server and the load generator over
    the window (other jobs on the machine: noise), at least 0."""
    h, s, cc, win = w.get("host_busy_cpus"), w.get("srv_cpu_s"), c.get("cpu_s"), c.get("window_s")
    if h is None or s is None or cc is None or not win or win <= 0:
        return None
    return max(0.0, h - (s + cc) / win)


def _cells(values):
    return [v if isinstance(v, str) else num(v) for v in values]


def scale_row(players, rate, map_name, status, c, w, k):
    """A scale.csv row: c client_figures, w window_figures, k
    qwdstats.window."""
    win = c["window_s"]
    return _cells([
        players, rate, map_name, c["window_s"], c["bots_in_game"], c["join_max_s"], status,
        players * rate, c["requests_per_s"], c["replies_per_s"], c["response_rate"],
        c["rt_mean"], c["rt_p50"], c["rt_p90"], c["rt_p99"], c["rt_max"],
        num(c["in_per_client"], "%.9g"), num(c["out_per_client"], "%.9g"),
        num(c["request_bytes"], "%.9g"), num(c["reply_bytes"], "%.9g"),
        c["players_per_reply"], c["entities_per_reply"], c["chokes"], c["lost"],
        c["bad_total"], num(w["srv_cpu_s"], "%.6f"), ratio(w["srv_cpu_s"], win, 100.0),
        c["srv_cpu_ticks_s"], ratio(w["srv_cpu_s"], c["requests"], 1e6),
        ratio(w["srv_cpu_s"], c["replies"], 1e3), w["srv_hwm_kb"], c["cpu_s"],
        c["cpu_pct"], w["cli_hwm_kb"], k.get("intervals"), k.get("fps"),
        k.get("share_world"), k.get("share_receive"), k.get("share_execute"),
        k.get("share_reply"), k.get("share_idle"), k.get("requests_per_frame"),
        k.get("request_time_us_mean"), k.get("request_time_us_p50"),
        k.get("request_time_us_p99"), k.get("request_time_us_max"),
        k.get("reply_bytes_mean"), k.get("reply_bytes_p99"), k.get("reply_bytes_max"),
        k.get("frame_busy_us_mean"), k.get("in_Bps"), k.get("out_Bps"),
        k.get("client_in_Bps"), k.get("client_out_Bps"),
        num(w["host_busy_cpus"], "%.9g"), num(other_cpus(w, c), "%.3f"), w["steal_pct"]])


def compare_row(server, repeat, players, map_name, status, c, w):
    win = c["window_s"]
    return _cells([
        server, repeat, players, map_name, c["window_s"], c["bots_in_game"], status,
        c["requests_per_s"], c["replies_per_s"], c["response_rate"], c["rt_mean"],
        c["rt_p50"], c["rt_p90"], c["rt_p99"], c["rt_max"],
        num(c["in_per_client"], "%.9g"), num(c["out_per_client"], "%.9g"),
        num(c["reply_bytes"], "%.9g"), c["players_per_reply"], c["entities_per_reply"],
        num(w["srv_cpu_s"], "%.6f"), c["srv_cpu_ticks_s"], ratio(w["srv_cpu_s"], win, 100.0),
        ratio(w["srv_cpu_s"], c["replies"], 1e3), ratio(w["srv_cpu_s"], c["requests"], 1e6),
        w["srv_hwm_kb"], c["cpu_pct"], num(w["host_busy_cpus"], "%.9g"),
        num(other_cpus(w, c), "%.3f"), w["steal_pct"], num(w["srv_user_s"], "%.6f"),
        num(w["srv_sys_s"], "%.6f"), ratio(w["srv_user_s"], c["replies"], 1e6),
        ratio(w["srv_sys_s"], c["replies"], 1e6)])


def overhead_row(config, repeat, order, players, rate, map_name, status, c, w, k,
                 timers, counter_mode):
    win = c["window_s"]
    return _cells([
        config, repeat, order, players, rate, map_name, c["window_s"], c["bots_in_game"],
        status, c["requests_per_s"], c["replies_per_s"], c["response_rate"], c["rt_p99"],
        num(w["srv_cpu_s"], "%.6f"), ratio(w["srv_cpu_s"], win, 100.0),
        ratio(w["srv_cpu_s"], c["replies"], 1e3), ratio(w["srv_cpu_s"], c["requests"], 1e6),
        k.get("fps"), k.get("requests_per_frame"), timers, counter_mode, w["srv_hwm_kb"],
        num(other_cpus(w, c), "%.3f"), w["steal_pct"]])


def floor_row(players, rate, size_in, size_out, doc, qwd_us):
    """A floor.csv row from udpecho's --json document; qwd_us: qwd's CPU
    per request at the same point, as scale.csv has it (None or "": not
    measured, or qwd saturated)."""
    doc = doc or {}
    echo_us = value(doc, "cpu.server_us_per_request")
    qwd_us = qwd_us or None
    return _cells([
        players, rate, size_in, size_out,
        value(doc, "totals.window_s"), value(doc, "totals.requests_per_s"),
        value(doc, "totals.replies_per_s"), value(doc, "totals.response_rate"),
        value(doc, "totals.response_time_ms.mean"), value(doc, "totals.response_time_ms.p50"),
        value(doc, "totals.response_time_ms.p99"), value(doc, "totals.response_time_ms.max"),
        value(doc, "cpu.server_s"), value(doc, "cpu.server_percent"), echo_us,
        value(doc, "cpu.client_us_per_request"), qwd_us,
        num(ratio(number(qwd_us), echo_us), "%.9g")])


def compare_callgrind_row(server, players, in_game, rate, map_name, window_s, counts,
                          instructions, control_ms):
    """A compare-callgrind.csv row: counts the (requests, replies) of
    the window (None: not measured), instructions callgrind's total over
    it, control_ms the longest of the two valgrind commands that opened
    and closed it (how far its ends are uncertain)."""
    requests, replies = counts if counts else (None, None)
    rr = ratio(replies, requests)
    kept = None if rr is None else ("yes" if rr >= KEEP_UP else "no")
    return _cells([
        server, players, in_game, rate, map_name, num(window_s, "%.3f"), num(requests, "%.0f"),
        num(replies, "%.0f"), num(rr, "%.4f"), kept, instructions,
        num(ratio(instructions, replies), "%.0f"), num(control_ms, "%.0f")])


def callgrind_object_rows(server, objects, total):
    """compare-callgrind-objects.csv rows: objects the (object, cost)
    pairs of valgrind.object_costs, each with its share of total."""
    return [_cells([server, name, cost, num(ratio(cost, total, 100.0), "%.2f")])
            for name, cost in objects]


def failed_row(header, lead):
    """The row of a point whose server did not start: lead in the first
    columns, "server-failed" in status, the rest empty."""
    cols = header.split(",")
    row = [num(v) for v in lead] + [""] * (len(cols) - len(lead))
    row[cols.index("status")] = "server-failed"
    return row
