#!/usr/bin/env python3
"""qwexp.py -- the experiments on qwd, each in one command: the scaling
study (scale, compare, floor, all), the cost of qwd's instruments
(overhead), and two robustness benchmarks (soak, storm).

Design note
  The method is ../shared/BENCHMARKS.md: automated players (qwbots, the
  random walker) load the server; it is judged by what the clients see
  (response rate, response time) and by its own figures (qwd -stats);
  server and load generator run pinned to different CPUs (taskset:
  server CPU 0, bots CPU 1), and the runner itself stays on the bots'
  CPU, so nothing of it runs where the server is measured; every figure
  carries players, message rate and size, bandwidth, CPU, RAM, hardware
  and duration.  Saturation point: the fewest players at which the
  response rate falls below 95% of the request rate or the p99 response
  time exceeds one time slot (1/rate: 33 ms at 30 requests/s).

  Modes of the study (each writes CSVs into the run folder, then remakes
  the figures and report.md from every CSV found there):
    scale    for each player count: start qwd, qwbots joins the bots,
             warms up, measures; stop both; one row of scale.csv
    compare  MVDSV+KTX and qwd, same real map, same workload (stock
             protocol 28, 32 players), alternating, --repeat times;
             server CPU-seconds per 1000 replies and response times;
             then each once under callgrind with a lighter load (both
             must keep up there): instructions per reply, counted the
             same way for both (below)
    floor    the network floor: tools/udpecho (a bare recvmmsg/sendmmsg
             echo) with the request and reply sizes and rates of the
             scale points; qwd's CPU per request over the echo's
    all      scale, compare, floor, in that order, into one folder
    overhead the cost of qwd's own instruments: the same load on qwd
             with (a) the phase timers off (-notimers), (b) the timers
             on (the default), (c) timers and counters (-counters), the
             three alternating within each repeat, the order rotating;
             then each once under callgrind (instructions: noise cannot
             hide a difference there)
    report   remake the figures and report.md of an existing folder
  Robustness benchmarks (their own folder, CSV and report):
    soak     a steady load (by default 80% of a measured capacity) for
             --minutes; per interval: players in the game, replies/s,
             response rate, p50/p99/max (qwbots' own, --series-interval),
             the server's RSS and CPU share.  Does anything drift?
    storm    --observers stock players measured every second while waves
             of --bots QWDX bots join and vanish at once, alternately
             killed (the server times them all out together) and stopped
             (they leave together).  Are the observers kept?
  The fleet experiment (the virtualised-server study's question):
    fleet    --servers N qwd instances on one host, --players split over
             them (a qwbots each, on the bots' CPU): one server alone,
             then all N at once, pinned round robin to the servers' CPUs
             and unpinned; per instance the response rate, p99 and CPU
             per reply, and their ratios to one alone (the interference)

  Measurements per point (qwexplib.measure): the client side from
  qwbots --json; the server's CPU over the window from a sampler thread
  that reads /proc every 0.5 s at a fixed cost (qwexplib.proc) and once
  more when qwbots exits, the window being the last window_s seconds
  before that exit, its ends interpolated; peak RSS (VmHWM); the
  machine's load from /proc/stat; qwd's own figures from its stats
  intervals inside the window (qwexplib.qwdstats).
  Instructions per reply (compare): each server runs under callgrind as
  a whole process (every object it runs: KTX's qwprogs.so inside MVDSV
  too; neither forks), instrumented from its start, so the code of the
  window is translated already; just after the second --series row of
  qwbots' window, vgdb sends "zero", and just after the row
  --callgrind-duration seconds (whole) later, "dump": the dump's total
  over the replies of the bots' series rows over the same span
  (series.counts_between; the span placed in the series' time by
  qwbots' --json).  Both servers are thus counted by one clock and one
  client-side count.  A row whose response rate is under
  measure.KEEP_UP did not keep up and gives no ratio.
  Bounded: every load generator has a deadline; servers get SIGTERM,
  then SIGKILL after 5 s; everything started is stopped on exit or
  interruption, by pid.  Only 127.0.0.1 is ever a target.
  Python standard library; gnuplot (gnuplot-nox) draws the PNGs with the
  scripts beside this file and is installed with apt-get when missing
  and the runner is root.
"""

import argparse
import datetime
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "lib", "python"))

from qwexplib import (measure, netfilter, plots, proc, qwdstats, report, runs,  # noqa: E402
                      series, studyreport, valgrind)

DEFAULT_PLAYERS = "1,2,4,8,16,32,64,128,256,512,1024"
OVERHEAD_OPTIONS = {"off": ["-notimers"], "timers": [], "counters": ["-counters"]}


def say(text):
    print("qwexp: " + text, flush=True)


def exit_status(rc):
    """A process's exit status as a shell would give it (128 + signal)."""
    return 128 - rc if rc is not None and rc < 0 else rc


def append_line(path, fields):
    with open(path, "a") as f:
        f.write(",".join(fields) + "\n")


# ---- the scaling study --------------------------------------------------------

class Study:
    """One run folder of the scaling study: its options, its processes,
    its env.txt."""

    def __init__(self, args):
        self.a = args
        os.chdir(ROOT)
        self.out = os.path.abspath(args.out or os.path.join(
            "build", "experiments", datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")))
        os.makedirs(self.out, exist_ok=True)
        self.ctl = runs.Ctl(ROOT, args.build)
        self.map_path = self.map_name = None
        self.env_path = os.path.join(self.out, "env.txt")
        self.notrack = "no (the host's rules apply)"

    def params(self):
        a = self.a
        return {"rate": a.rate, "duration": a.duration, "warmup": a.warmup,
                "join_rate": a.join_rate, "behaviour": a.behaviour, "repeat": a.repeat,
                "seed": a.seed, "maxrate": a.maxrate, "server_cpu": a.server_cpu,
                "client_cpu": a.client_cpu, "threads": a.threads,
                "qwd_set": "; ".join("%s %s" % kv for kv in a.qwd_set) or "none"}

    def write_env(self):
        """The machine and the parameters, once per folder."""
        if os.path.isfile(self.env_path):
            return
        a = self.a
        env = report.machine(ROOT)
        env["pinning"] = "server CPU %s, load generator CPU %s (taskset)" % (
            a.server_cpu, a.client_cpu)
        for k in ("rate", "duration", "warmup", "join_rate", "behaviour", "repeat", "seed",
                  "maxrate", "server_cpu", "client_cpu", "threads"):
            env[k] = getattr(a, k)
        env["notrack"] = self.notrack
        report.write_env(self.env_path, env)

    def use_map(self, name):
        found = runs.resolve_map(name, ROOT, self.ctl.build)
        if not found:
            raise runs.RunError("map '%s' not found (%s/maps, %s, or a .bsp path)"
                                % (name, self.a.build, runs.realmaps_dir(ROOT)))
        self.map_path, self.map_name = found

    def start_qwd(self, d, port, maxclients, stats_interval, options=(), wrapper=(),
                  timeout=10):
        a = self.a
        return self.ctl.start_qwd(
            d, port, self.map_name, maxclients, cpu=a.server_cpu,
            # the study measures every player count, past saturation too:
            # the admission and shedding of overload.c are off
            sets=[("sv_maxrate", a.maxrate), ("sv_maxload", 0), ("sv_overloaddrop", 0)]
            + list(a.qwd_set),
            stats_interval=stats_interval, timeout=timeout,
            # the parallel frame's workers (docs/parallel.md); 1: qwd's
            # sequential frame, the default, given no option
            options=(["-threads", str(a.threads)] if a.threads > 1 else [])
            + (["-net", a.net] if a.net != "auto" else []) + list(options),
            wrapper=wrapper,
            basedir=runs.qwd_basedir(self.out, self.map_path, self.map_name))

    def run_bots(self, d, srv, port, n, qwdx):
        """qwbots against the server, sampled; the server is stopped after.
        Returns (status, client figures, window figures, (the window's
        ends and the server's stop in Unix time) or None)."""
        a = self.a
        deadline = (time.monotonic() + n / float(a.join_rate) + 30 + float(a.warmup)
                    + float(a.duration) + 60)
        bots = self.ctl.start_bots(
            d, "qwbots", port, n, a.duration, self.map_path, cpu=a.client_cpu, qwdx=qwdx,
            rate=a.rate,
            extra=["--warmup", a.warmup, "--join-rate", a.join_rate, "--seed", a.seed,
                   "--behaviour", a.behaviour, "--server-pid", str(srv.pid)],
            files={"--json": os.path.join(d, "qwbots.json"),
                   "--csv": os.path.join(d, "qwbots.csv"),
                   "--series": os.path.join(d, "series.csv")})
        sampler = proc.Sampler([srv.pid, bots.pid], 0.5, machine=True).start()
        status = exit_status(self.ctl.wait(bots, deadline, say))
        samples = sampler.stop(final=True)
        stop = time.time()
        self.ctl.stop(srv)
        write_samples(os.path.join(d, "cpu-samples.txt"), samples, sampler.unix_offset)
        c = measure.client_figures(series.read_json(os.path.join(d, "qwbots.json")))
        w = measure.window_figures(samples, c["window_s"])
        unix = None
        if w["ws"] is not None:
            unix = (w["ws"] + sampler.unix_offset, w["we"] + sampler.unix_offset, stop)
        return status, c, w, unix

    def server_window(self, d, unix):
        """qwd's figures over the window, also kept as server-window.txt."""
        recs = qwdstats.read(os.path.join(d, "qwd-stats.jsonl"))
        k = qwdstats.window(recs, *unix) if unix else {"intervals": 0}
        with open(os.path.join(d, "server-window.txt"), "w") as f:
            for key, v in k.items():
                f.write("%s=%s\n" % (key, report.num(v)))
        return k, recs

    def point_dir(self, *parts):
        d = os.path.join(self.out, *parts)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d


def write_samples(path, samples, offset):
    """The sampler's readings, one line each, for the record."""
    with open(path, "w") as f:
        f.write("# unix_s srv_cpu_s srv_user_s srv_sys_s srv_rss_kb srv_hwm_kb "
                "cli_cpu_s cli_hwm_kb busy idle steal (jiffies)\n")
        for s in samples:
            srv = s.procs[0]
            cli = s.procs[1] if len(s.procs) > 1 else None
            m = s.machine
            f.write(" ".join([
                "%.6f" % (s.t + offset),
                *(("%.9f" % srv.cpu_s, "%.2f" % srv.user_s, "%.2f" % srv.sys_s,
                   str(srv.rss_kb), str(srv.hwm_kb)) if srv else ("-",) * 5),
                *(("%.9f" % cli.cpu_s, str(cli.hwm_kb)) if cli else ("-",) * 2),
                *((str(m.busy), str(m.idle), str(m.steal)) if m else ("-",) * 3)]) + "\n")


def fmt_list(players):
    return ",".join(str(n) for n in players)


# ---- scale ----

def scale_point(st, n):
    a = st.a
    d = st.point_dir("scale", "n%d" % n)
    port = st.ctl.free_port()
    say("scale: %d players on %s, port %d (join, %s s warm-up, %s s window)"
        % (n, st.map_name, port, a.warmup, a.duration))
    csv_path = os.path.join(st.out, "scale.csv")
    try:
        srv = st.start_qwd(d, port, max(32, n), 0.5 if float(a.duration) < 10 else 1)
    except runs.RunError as e:
        say(str(e))
        append_line(csv_path, measure.failed_row(measure.SCALE_HEADER,
                                                 [n, float(a.rate), st.map_name]))
        return
    status, c, w, unix = st.run_bots(d, srv, port, n, "on" if n > 32 else "off")
    k, _ = st.server_window(d, unix)
    row = measure.scale_row(n, float(a.rate), st.map_name, status, c, w, k)
    append_line(csv_path, row)
    r = dict(zip(measure.SCALE_HEADER.split(","), row))
    say("scale: %d players: %s in the game, replies %s/s of %s offered, response rate %s, "
        "p99 %s ms, server CPU %s s, RSS %s kB (qwbots exit %s)" % (
            n, r["in_game"], r["replies_per_s"], r["offered_per_s"], r["response_rate"],
            r["rt_p99_ms"], r["srv_cpu_s"] or "?", r["srv_rss_kb"] or "?", status))


def run_scale(st):
    a = st.a
    st.use_map(a.map or "small")
    st.ctl.ensure_built(["qwd", "qwbots"], os.path.join(st.out, "make.log"), say)
    st.write_env()
    csv_path = os.path.join(st.out, "scale.csv")
    players = a.players or [int(x) for x in DEFAULT_PLAYERS.split(",")]
    if a.append and os.path.isfile(csv_path):
        with open(csv_path) as f:
            if f.readline().rstrip("\n") != measure.SCALE_HEADER:
                raise runs.RunError("--append: %s has other columns" % csv_path)
        report.write_env(st.env_path, [("scale_cmd_append", "qwexp.py scale --append "
                                        "--players " + fmt_list(players))])
        for n in players:
            scale_point(st, n)
        with open(csv_path) as f:
            lines = f.read().splitlines()
        body = sorted(lines[1:], key=lambda line: float(line.split(",")[0] or 0))
        with open(csv_path, "w") as f:
            f.write("\n".join([lines[0]] + body) + "\n")
        return
    with open(csv_path, "w") as f:
        f.write(measure.SCALE_HEADER + "\n")
    report.write_env(st.env_path, [("scale_cmd", "qwexp.py scale --map %s --players %s --rate %s "
                                    "--duration %s --warmup %s --join-rate %s --behaviour %s%s" % (
                                        st.map_name, fmt_list(players), a.rate, a.duration,
                                        a.warmup, a.join_rate, a.behaviour,
                                        threads_options(a) + qwd_set_options(a)))])
    for n in players:
        scale_point(st, n)


# ---- compare: MVDSV + KTX against qwd ----

def compare_run(st, server, rep, n):
    a = st.a
    d = st.point_dir("compare", "%s-%d" % (server, rep))
    port = st.ctl.free_port()
    say("compare: %s, run %d of %d, %d players on %s, port %d"
        % (server, rep, a.repeat, n, st.map_name, port))
    csv_path = os.path.join(st.out, "compare.csv")
    try:
        if server == "qwd":
            srv = st.start_qwd(d, port, max(32, n), 1)
        else:
            base = runs.mvdsv_basedir(st.out, ROOT, st.ctl.build, st.map_path, st.map_name, n)
            srv = st.ctl.start_mvdsv(d, port, st.map_name, base, cpu=a.server_cpu)
    except runs.RunError as e:
        say(str(e))
        append_line(csv_path, measure.failed_row(measure.COMPARE_HEADER,
                                                 [server, rep, n, st.map_name]))
        return
    status, c, w, _ = st.run_bots(d, srv, port, n, "off")
    row = measure.compare_row(server, rep, n, st.map_name, status, c, w)
    append_line(csv_path, row)
    r = dict(zip(measure.COMPARE_HEADER.split(","), row))
    say("compare: %s run %d: replies %s/s, p99 %s ms, server CPU %s s, %s CPU-s per 1000 "
        "replies (user %s us, system %s us per reply)" % (
            server, rep, r["replies_per_s"], r["rt_p99_ms"], r["srv_cpu_s"] or "?",
            r["srv_cpu_s_per_1000_replies"], r["srv_user_us_per_reply"],
            r["srv_sys_us_per_reply"]))


def run_compare(st, in_all):
    a = st.a
    name = "lqdm1" if in_all or not a.map else a.map
    if not runs.ensure_packages(["mvdsv", "ktx"], runs.mvdsv_installed, say):
        say("compare: MVDSV with KTX is not installed (Debian packages mvdsv, ktx): skipped")
        return 0 if in_all else 1
    if runs.resolve_map(name, ROOT, st.ctl.build) is None:
        say("compare: no map %s (%s): skipped" % (name, runs.realmaps_dir(ROOT)))
        return 0 if in_all else 1
    st.use_map(name)
    st.ctl.ensure_built(["qwd", "qwbots"], os.path.join(st.out, "make.log"), say)
    st.write_env()
    players = [32] if in_all or not a.players else a.players
    if len(players) != 1:
        raise runs.RunError("compare takes one player count")
    n = players[0]
    if n > 32:
        raise runs.RunError("compare: MVDSV speaks protocol 28, at most 32 players")
    callgrind_defaults(a, n, "20", "20")
    if a.callgrind and a.callgrind_bots > 32:
        raise runs.RunError("compare: --callgrind-bots %d: stock protocol, at most 32"
                            % a.callgrind_bots)
    with open(os.path.join(st.out, "compare.csv"), "w") as f:
        f.write(measure.COMPARE_HEADER + "\n")
    report.write_env(st.env_path, [("compare_cmd", "qwexp.py compare --map %s --players %d "
                                    "--repeat %d --rate %s --duration %s --warmup %s%s" % (
                                        st.map_name, n, a.repeat, a.rate, a.duration,
                                        a.warmup, callgrind_options(a) + qwd_set_options(a)))])
    for rep in range(1, a.repeat + 1):
        # alternate which goes first, so a drift of the machine hits both
        order = ("qwd", "mvdsv") if rep % 2 else ("mvdsv", "qwd")
        for server in order:
            compare_run(st, server, rep, n)
    if a.callgrind:
        run_compare_callgrind(st)
    return 0


# qwbots measures this many seconds more than compare's callgrind pass
# counts: the counting opens at the second --series row of qwbots' window
# (up to 2 s in) and closes a row or so late, so it ends inside qwbots'
CG_TAIL = 4


def callgrind_defaults(a, bots, rate, duration):
    """The mode's sizes of its callgrind pass where the options gave none."""
    a.callgrind_bots = a.callgrind_bots or bots
    a.callgrind_rate = a.callgrind_rate or rate
    a.callgrind_duration = a.callgrind_duration or duration


def callgrind_options(a):
    return (" --callgrind-bots %d --callgrind-rate %s --callgrind-duration %s" % (
        a.callgrind_bots, a.callgrind_rate, a.callgrind_duration)
        if a.callgrind else " --no-callgrind")


def wait_for_measure(path, bots, deadline):
    """True once qwbots' --series has a row of its measure phase; False
    when qwbots exits or the deadline passes first."""
    while time.monotonic() < deadline and bots.poll() is None:
        try:
            rows = series.read_series(path) if os.path.isfile(path) else []
        except (OSError, ValueError):
            rows = []
        if any(r["phase"] == "measure" for r in rows):
            return True
        time.sleep(0.1)
    return False


def series_lines(path):
    try:
        with open(path) as f:
            return f.read().count("\n")
    except OSError:
        return 0


def next_series_row(path, bots, deadline):
    """Waits for qwbots' next --series row (one a second); True when it
    came.  The valgrind commands go out just after a row: the server's
    stop each causes (40-120 ms, see the README) then falls in one row,
    on the side of the window's end where it belongs, and the rows' even
    split moves little of it across."""
    n = series_lines(path)
    while time.monotonic() < deadline and bots.poll() is None:
        if series_lines(path) > n:
            return True
        time.sleep(0.01)
    return False


def compare_callgrind_run(st, server):
    """One server under callgrind (whole process) with the callgrind
    load; its row of compare-callgrind.csv and its objects' rows."""
    a = st.a
    n = a.callgrind_bots
    d = st.point_dir("compare", "callgrind-" + server)
    port = st.ctl.free_port()
    out_file = os.path.join(d, "callgrind.out")
    wrapper = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out_file]
    say("compare: callgrind, %s: %d bots at %s requests/s, %s s counted, port %d"
        % (server, n, a.callgrind_rate, a.callgrind_duration, port))
    try:
        if server == "qwd":
            srv = st.start_qwd(d, port, max(32, n), None, wrapper=wrapper, timeout=120)
        else:
            base = runs.mvdsv_basedir(st.out, ROOT, st.ctl.build, st.map_path, st.map_name, n)
            srv = st.ctl.start_mvdsv(d, port, st.map_name, base, cpu=a.server_cpu,
                                     wrapper=wrapper, timeout=120)
    except runs.RunError as e:
        say("compare: callgrind: " + str(e))
        return
    series_path = os.path.join(d, "series.csv")
    json_path = os.path.join(d, "qwbots.json")
    rows_counted = max(1, int(math.ceil(float(a.callgrind_duration))))
    bots = st.ctl.start_bots(
        d, "qwbots", port, n, rows_counted + CG_TAIL, st.map_path,
        cpu=a.client_cpu, qwdx="off", rate=a.callgrind_rate,
        extra=["--warmup", a.warmup, "--join-rate", "20", "--join-timeout", "120",
               "--seed", a.seed, "--behaviour", a.behaviour, "--quiet"],
        files={"--json": json_path, "--series": series_path})
    deadline = (time.monotonic() + n / 20.0 + 120 + float(a.warmup) + rows_counted + CG_TAIL
                + 60)
    marks = None
    # from the row after the first of qwbots' window (whose start it may
    # straddle) to the row rows_counted later
    if (wait_for_measure(series_path, bots, deadline)
            and next_series_row(series_path, bots, deadline)):
        try:
            zero = runs.vgdb(srv.pid, "zero")
            time.sleep(rows_counted - 0.5)
            if next_series_row(series_path, bots, deadline):
                marks = (zero, runs.vgdb(srv.pid, "dump"))
        except runs.RunError as e:
            say("compare: callgrind: " + str(e))
    status = exit_status(st.ctl.wait(bots, deadline, say))
    st.ctl.stop(srv, grace=60)
    dump = out_file + ".1"
    if marks is None or not os.path.isfile(dump):
        say("compare: callgrind, %s: no count (qwbots exit %s; see %s)"
            % (server, status, os.path.join(d, "server.log")))
        return
    cg = valgrind.parse_callgrind(valgrind.read_text(dump))
    doc = series.read_json(json_path)
    t0 = series.series_start_unix(doc, a.warmup)
    ws = series.value(doc or {}, "totals.window_start_unix")
    we = series.value(doc or {}, "totals.window_end_unix")
    (za, zb), (da, db) = marks
    if cg is None or t0 is None or ws is None or we is None:
        say("compare: callgrind, %s: no totals (%s, %s)" % (server, dump, json_path))
        return
    with open(os.path.join(d, "functions.txt"), "w") as f:
        f.write(valgrind.listing(cg))
    if za < ws or db > we:
        say("compare: callgrind, %s: the counting window is not inside qwbots' (qwbots exit "
            "%s): no row" % (server, status))
        return
    a_t, b_t = (za + zb) / 2 - t0, (da + db) / 2 - t0
    counts = series.counts_between(series.read_series(series_path), a_t, b_t)
    row = measure.compare_callgrind_row(
        server, n, series.value(doc, "totals.bots_in_game"), float(a.callgrind_rate),
        st.map_name, b_t - a_t, counts, cg["summary"], 1000 * max(zb - za, db - da))
    append_line(os.path.join(st.out, "compare-callgrind.csv"), row)
    for line in measure.callgrind_object_rows(server, valgrind.object_costs(cg["entries"]),
                                              cg["totals"]):
        append_line(os.path.join(st.out, "compare-callgrind-objects.csv"), line)
    r = dict(zip(measure.COMPARE_CALLGRIND_HEADER.split(","), row))
    say("compare: callgrind, %s: %s instructions over %s replies in %s s: %s per reply, "
        "response rate %s%s" % (server, r["instructions"], r["replies"] or "?", r["window_s"],
                                r["instructions_per_reply"] or "?", r["response_rate"] or "?",
                                "" if r["kept_up"] == "yes" else " (did not keep up)"))


def run_compare_callgrind(st):
    """qwd, then MVDSV + KTX, under callgrind; the ratio of their
    instructions per reply."""
    def installed():
        return all(shutil.which(x) for x in ("valgrind", "vgdb"))

    if not runs.ensure_packages(["valgrind"], installed, say):
        say("compare: valgrind (callgrind, vgdb) is not installed: no instruction counts "
            "(Debian: apt-get install valgrind)")
        return
    for name, header in (("compare-callgrind.csv", measure.COMPARE_CALLGRIND_HEADER),
                         ("compare-callgrind-objects.csv", measure.CALLGRIND_OBJECTS_HEADER)):
        with open(os.path.join(st.out, name), "w") as f:
            f.write(header + "\n")
    version = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout
    report.write_env(st.env_path, [("valgrind", version.strip())])
    for server in ("qwd", "mvdsv"):
        compare_callgrind_run(st, server)
    _, text = studyreport.compare_callgrind_verdict(
        studyreport.read_csv(os.path.join(st.out, "compare-callgrind.csv")))
    say("compare: callgrind: " + text)


# ---- floor: the bare UDP echo ----

def floor_point(st, n, scale_rows):
    a = st.a
    d = st.point_dir("floor", "n%d" % n)
    row = series.scale_row(scale_rows, n) or {}

    def size(given, column, default):
        x = series.number(given) if given else series.number(row.get(column))
        x = int((default if x is None else x) + 0.5)
        return min(1472, max(16, x))     # what udpecho takes

    size_in = size(a.size_in, "request_bytes", 32)
    size_out = size(a.size_out, "reply_bytes", 200)
    port = st.ctl.free_port()
    say("floor: %d clients x %s/s, %d-byte requests, %d-byte replies, port %d"
        % (n, a.rate, size_in, size_out, port))
    try:
        srv = st.ctl.start_server([st.ctl.binary("udpecho"), "--serve", "--port", str(port)],
                                  os.path.join(d, "server.log"), "serving", 5,
                                  cpu=a.server_cpu, what="udpecho")
    except runs.RunError as e:
        say(str(e))
        return
    load = st.ctl.start([st.ctl.binary("udpecho"), "--load", str(n), "--rate", a.rate,
                         "--size-in", str(size_in), "--size-out", str(size_out),
                         "--duration", a.duration, "--warmup", a.warmup,
                         "--server", "127.0.0.1:%d" % port, "--server-pid", str(srv.pid),
                         "--seed", a.seed, "--json", os.path.join(d, "udpecho.json")],
                        os.path.join(d, "load.out"), cpu=a.client_cpu)
    st.ctl.wait(load, time.monotonic() + float(a.warmup) + float(a.duration) + 60, say)
    st.ctl.stop(srv)
    doc = series.read_json(os.path.join(d, "udpecho.json"))
    qwd_us = row.get("srv_us_per_request") or None
    rr = series.number(row.get("response_rate"))
    if rr is not None and rr < 0.95:
        qwd_us = None    # a saturated qwd did not answer all it was sent: no multiple
    line = measure.floor_row(n, float(a.rate), size_in, size_out, doc, qwd_us)
    append_line(os.path.join(st.out, "floor.csv"), line)
    r = dict(zip(measure.FLOOR_HEADER.split(","), line))
    say("floor: %d clients: echo %s us CPU per request; qwd %s us"
        % (n, r["echo_us_per_request"] or "?", r["qwd_us_per_request"] or "?"))


def run_floor(st, in_all):
    a = st.a
    st.ctl.ensure_built(["udpecho"], os.path.join(st.out, "make.log"), say)
    st.write_env()
    source = os.path.join(a.from_dir or st.out, "scale.csv")
    scale_rows = series.read_scale_csv(source) if os.path.isfile(source) else []
    players = None if in_all else a.players
    if not players:
        players = series.floor_players(scale_rows) or [32, 256, 1024]
    with open(os.path.join(st.out, "floor.csv"), "w") as f:
        f.write(measure.FLOOR_HEADER + "\n")
    report.write_env(st.env_path, [("floor_cmd", "qwexp.py floor --players %s --rate %s "
                                    "--duration %s --warmup %s%s" % (
                                        fmt_list(players), a.rate, a.duration, a.warmup,
                                        " --from " + a.from_dir if a.from_dir else ""))])
    for n in players:
        floor_point(st, n, scale_rows)


# ---- overhead: what qwd's instruments cost ----

def overhead_run(st, config, rep, order, n):
    a = st.a
    d = st.point_dir("overhead", "%s-%d" % (config, rep))
    port = st.ctl.free_port()
    say("overhead: %s, run %d of %d (#%d in it), %d players on %s, port %d" % (
        studyreport.OVERHEAD_LABELS[config], rep, a.repeat, order, n, st.map_name, port))
    csv_path = os.path.join(st.out, "overhead.csv")
    try:
        srv = st.start_qwd(d, port, max(32, n), 1, options=OVERHEAD_OPTIONS[config])
    except runs.RunError as e:
        say(str(e))
        append_line(csv_path, measure.failed_row(
            measure.OVERHEAD_HEADER, [config, rep, order, n, float(a.rate), st.map_name]))
        return
    status, c, w, unix = st.run_bots(d, srv, port, n, "on" if n > 32 else "off")
    k, recs = st.server_window(d, unix)
    mode = qwdstats.counter_mode(recs)
    row = measure.overhead_row(config, rep, order, n, float(a.rate), st.map_name, status,
                               c, w, k, qwdstats.timers(recs), mode)
    append_line(csv_path, row)
    r = dict(zip(measure.OVERHEAD_HEADER.split(","), row))
    say("overhead: %s run %d: replies %s/s, server CPU %s s, %s CPU-s per 1000 replies, "
        "counters %s" % (config, rep, r["replies_per_s"], r["srv_cpu_s"] or "?",
                         r["srv_cpu_s_per_1000_replies"], mode or "?"))


CALLGRIND_HEADER = ("config,bots,rate,window_s,frames,replies,ir_total,ir_prof,ir_clock,"
                    "ir_per_reply,prof_ir_per_reply,prof_share_pct,counter_mode")


def callgrind_row(config, bots, rate, window, recs, annotate_text):
    """The overhead-callgrind.csv row of one configuration, or None when
    callgrind or qwd's stats gave no totals."""
    total, entries = valgrind.parse_annotate(annotate_text)
    prof, clock = valgrind.profiler_cost(entries)
    frames, replies = qwdstats.total(recs, "frames"), qwdstats.total(recs, "replies")
    if not total or replies <= 0:
        return None
    return [config, str(bots), str(rate), report.num(window), "%d" % frames, "%d" % replies,
            "%d" % total, "%d" % prof, "%d" % clock, "%.1f" % (total / replies),
            "%.1f" % ((prof + clock) / replies), "%.3f" % (100.0 * (prof + clock) / total),
            qwdstats.counter_mode(recs)]


def callgrind_run(st, config):
    """qwd under callgrind (instructions inside server_frame only) with a
    fixed small load, the same seed each time, stopped with SIGINT; the
    self cost of the profiler's files (valgrind.PROFILER_FILES) and
    clock_gettime per reply qwd sent."""
    a = st.a
    d = st.point_dir("overhead", "callgrind-" + config)
    port = st.ctl.free_port()
    say("overhead: callgrind, %s: %d bots at %s requests/s, %s s window, port %d" % (
        studyreport.OVERHEAD_LABELS[config], a.callgrind_bots, a.callgrind_rate,
        a.callgrind_duration, port))
    out_file = os.path.join(d, "callgrind.out")
    try:
        srv = st.start_qwd(d, port, max(32, a.callgrind_bots), 1,
                           options=OVERHEAD_OPTIONS[config], timeout=120,
                           wrapper=["valgrind", "--tool=callgrind",
                                    "--toggle-collect=server_frame",
                                    "--callgrind-out-file=" + out_file])
    except runs.RunError as e:
        say("callgrind: " + str(e))
        return
    n = a.callgrind_bots
    bots = st.ctl.start_bots(
        d, "qwbots", port, n, a.callgrind_duration, st.map_path, cpu=a.client_cpu,
        qwdx="on" if n > 32 else "off", rate=a.callgrind_rate,
        extra=["--warmup", "2", "--join-rate", "20", "--join-timeout", "120", "--seed", a.seed,
               "--behaviour", a.behaviour, "--quiet"],
        files={"--json": os.path.join(d, "qwbots.json")})
    st.ctl.wait(bots, time.monotonic() + n / 20.0 + 120 + 2 + float(a.callgrind_duration) + 60,
                say)
    st.ctl.stop(srv, sig=signal.SIGINT, grace=120)
    if not os.path.isfile(out_file) or os.path.getsize(out_file) == 0:
        say("callgrind wrote nothing (see %s)" % os.path.join(d, "server.log"))
        return
    ann = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", out_file],
                         capture_output=True, text=True).stdout
    with open(os.path.join(d, "annotate.txt"), "w") as f:
        f.write(ann)
    window = series.value(series.read_json(os.path.join(d, "qwbots.json")), "totals.window_s")
    row = callgrind_row(config, n, a.callgrind_rate, window,
                        qwdstats.read(os.path.join(d, "qwd-stats.jsonl")), ann)
    if row is None:
        say("callgrind: no totals in %s" % os.path.join(d, "annotate.txt"))
        return
    append_line(os.path.join(st.out, "overhead-callgrind.csv"), row)


def run_overhead(st):
    a = st.a
    st.use_map(a.map or "small")
    st.ctl.ensure_built(["qwd", "qwbots"], os.path.join(st.out, "make.log"), say)
    st.write_env()
    players = a.players or [256]
    if len(players) != 1:
        raise runs.RunError("overhead takes one player count")
    n = players[0]
    callgrind_defaults(a, 64, "5", "10")
    with open(os.path.join(st.out, "overhead.csv"), "w") as f:
        f.write(measure.OVERHEAD_HEADER + "\n")
    report.write_env(st.env_path, [
        ("overhead_cmd", "qwexp.py overhead --map %s --players %d --repeat %d --rate %s "
         "--duration %s --warmup %s%s" % (st.map_name, n, a.repeat, a.rate, a.duration,
                                          a.warmup, callgrind_options(a))),
        ("overhead_players", n)])
    configs = list(OVERHEAD_OPTIONS)
    for rep in range(1, a.repeat + 1):
        # rotate the order each repeat, so a drift of the machine (other
        # jobs, thermal, the host) hits each configuration in each place
        k = (rep - 1) % len(configs)
        for order, config in enumerate(configs[k:] + configs[:k], 1):
            overhead_run(st, config, rep, order, n)
    studyreport.write_overhead_summary(st.out)
    if not a.callgrind:
        return
    if not (shutil.which("valgrind") and shutil.which("callgrind_annotate")):
        say("overhead: valgrind (callgrind) is not installed: no instruction counts "
            "(Debian: apt-get install valgrind)")
        return
    with open(os.path.join(st.out, "overhead-callgrind.csv"), "w") as f:
        f.write(CALLGRIND_HEADER + "\n")
    version = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout
    report.write_env(st.env_path, [("valgrind", version.strip())])
    for config in configs:
        callgrind_run(st, config)


# ---- figures and report ----

def make_plots(st, params):
    out = st.out
    env = report.read_env(st.env_path)
    hw = "%s, %s CPUs (%s), %s" % (env.get("cpu_model", ""), env.get("cpus", ""),
                                   env.get("virt", ""), env.get("kernel", ""))
    log = os.path.join(out, "gnuplot.log")
    appended = False

    def draw(script, variables, what):
        nonlocal appended
        if not plots.gnuplot(os.path.join(HERE, script), variables, log, append=appended):
            say("gnuplot failed on the %s (see %s)" % (what, log))
        appended = True

    rate = float(params["rate"])
    scale = studyreport.read_csv(os.path.join(out, "scale.csv"))
    if scale:
        sat = series.saturation(scale, rate)
        sat = sat[0] if sat and sat[0] != "none" else 0
        desc = ("qwd, map %s, qwbots walkers at %s req/s each, %s s window per point; server "
                "CPU %s, bots CPU %s" % (scale[0].get("map", ""), report.num(rate),
                                         studyreport.first_value(scale, "window_s", "%.0f"),
                                         params["server_cpu"], params["client_cpu"]))
        draw("scale.gp", [("csv", os.path.join(out, "scale.csv")), ("outdir", out),
                          ("sat", str(sat)), ("rate", rate), ("desc", desc), ("hw", hw)],
             "scale figures")
    compare = studyreport.read_csv(os.path.join(out, "compare.csv"))
    if compare:
        desc = ("%s players, map %s, %s req/s each, stock protocol 28, medians of %s "
                "alternating runs" % (compare[0].get("players", ""), compare[0].get("map", ""),
                                      report.num(rate), params["repeat"]))
        draw("compare.gp", [("csv", os.path.join(out, "compare-summary.csv")), ("outdir", out),
                            ("desc", desc), ("hw", hw)], "comparison figure")
    if studyreport.read_csv(os.path.join(out, "floor.csv")):
        desc = ("CPU time per request: qwd vs a bare UDP echo, same sizes and rates (%s req/s "
                "per client)" % report.num(rate))
        draw("floor.gp", [("csv", os.path.join(out, "floor.csv")), ("outdir", out),
                          ("desc", desc), ("hw", hw)], "floor figure")


def finish(st, params):
    """The summaries, figures and report.md from the folder's CSVs."""
    if os.path.isfile(os.path.join(st.out, "compare.csv")):
        studyreport.write_compare_summary(st.out)
    if st.a.plots and plots.ensure_gnuplot(say):
        make_plots(st, params)
    path = os.path.join(st.out, "report.md")
    with open(path, "w") as f:
        f.write(studyreport.make(st.out, report.read_env(st.env_path), params))
    say("report: " + path)
    say("done: " + st.out)


def params_from_env(st):
    """report mode: the parameters the run was made with."""
    p = st.params()
    env = report.read_env(st.env_path)
    for k in p:
        if env.get(k):
            p[k] = env[k]
    return p


def cmd_study(args):
    # the runner (and its sampler) on the load generator's CPU; only with
    # taskset there to pin every child, which would otherwise inherit it
    if shutil.which("taskset"):
        try:
            os.sched_setaffinity(0, {args.client_cpu})
        except (AttributeError, OSError, ValueError):
            pass
    st = Study(args)
    if args.mode == "report":
        if not os.path.isfile(st.env_path):
            raise runs.RunError("%s has no env.txt: not a qwexp run folder" % st.out)
        finish(st, params_from_env(st))
        return 0
    if args.notrack:
        try:
            st.notrack = netfilter.exempt_loopback_udp()
        except netfilter.NetfilterError as e:
            raise runs.RunError(str(e))
        say("--notrack: %s" % st.notrack)
    status = 0
    if args.mode in ("scale", "all"):
        run_scale(st)
    if args.mode in ("compare", "all"):
        status = run_compare(st, args.mode == "all")
        if status:
            return status
    if args.mode in ("floor", "all"):
        run_floor(st, args.mode == "all")
    if args.mode == "overhead":
        run_overhead(st)
    finish(st, st.params())
    return status


# ---- options ----

def positive(text):
    try:
        ok = float(text) > 0
    except ValueError:
        ok = False
    if not ok:
        raise argparse.ArgumentTypeError("must be a positive number, not '%s'" % text)
    return text


def not_negative(text):
    try:
        ok = float(text) >= 0
    except ValueError:
        ok = False
    if not ok:
        raise argparse.ArgumentTypeError("must be a number, not '%s'" % text)
    return text


def whole(low):
    def parse(text):
        if not text.isdigit() or int(text) < low:
            raise argparse.ArgumentTypeError("must be a whole number >= %d, not '%s'"
                                             % (low, text))
        return int(text)
    return parse


def cpu_list(text):
    """A CPU or a list of them as taskset -c takes it: 0, 0,1, 0-1."""
    parts = text.split(",")
    for part in parts:
        ends = part.split("-")
        if len(ends) > 2 or not all(e.isdigit() for e in ends):
            raise argparse.ArgumentTypeError(
                "a CPU number or a list of them (0, 0,1, 0-1), not '%s'" % text)
    return text


def threads_options(a):
    """The options of a run's command line that say how many threads
    the server had and on which CPUs, when not the defaults."""
    out = ""
    if a.threads > 1:
        out += " --threads %d" % a.threads
    if str(a.server_cpu) != "0":
        out += " --server-cpu %s" % a.server_cpu
    return out


def qwd_set_options(a):
    """The --qwd-set options of a run's command line, as given."""
    return "".join(" --qwd-set '%s %s'" % kv for kv in getattr(a, "qwd_set", []))


def player_list(text):
    out = []
    for n in text.split(","):
        if not n.isdigit() or not 1 <= int(n) <= 2048:
            raise argparse.ArgumentTypeError("'%s' is not a player count in 1..2048" % n)
        out.append(int(n))
    return out


STUDY_EPILOG = """\
maps: a name from build/maps (small, large) or ../shared/realmaps (lqdm1...;
$QWD_REALMAPS), or a path to a .bsp.  scale: default map small, players
1,2,4,8,16,32,64,128,256,512,1024; compare: lqdm1, 32 players, 3 repeats;
overhead: small, 256 players.  Relative paths are taken from the top of the
tree."""


def study_parser(sub, mode, help_text):
    p = sub.add_parser(mode, help=help_text, epilog=STUDY_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    if mode == "report":
        p.add_argument("out", metavar="DIR", help="the run folder")
    else:
        p.add_argument("--out", help="run folder (default build/experiments/<date>-<time>)")
    p.add_argument("--build", default=os.environ.get("QWEXP_BUILD", "build"),
                   help="qwd, qwbots, udpecho in BUILD (default build; QWEXP_BUILD)")
    p.add_argument("--map", help="map name or .bsp path")
    p.add_argument("--players", type=player_list, help="player counts, comma-separated")
    p.add_argument("--rate", type=positive, default="30", help="requests/s per player (30)")
    p.add_argument("--duration", type=positive, default="30", help="window, s (30)")
    p.add_argument("--warmup", type=not_negative, default="5", help="after the join, s (5)")
    p.add_argument("--join-rate", type=positive, default="200", help="bots joining per s (200)")
    p.add_argument("--repeat", type=whole(1), default=3, help="compare, overhead: runs (3)")
    p.add_argument("--seed", type=whole(0), default=1)
    p.add_argument("--server-cpu", type=cpu_list, default="0",
                   help="the server's CPU or CPUs (taskset -c: 0, 0,1, 0-1; default 0)")
    p.add_argument("--client-cpu", type=whole(0), default=1)
    p.add_argument("--threads", type=whole(1), default=1,
                   help="qwd -threads N: the parallel frame's workers (default 1, the "
                        "sequential frame); give the server that many CPUs with --server-cpu")
    p.add_argument("--net", choices=("auto", "select", "uring"), default="auto",
                   help="qwd -net: the socket's path (auto, qwd's default: io_uring "
                        "where the kernel grants it)")
    p.add_argument("--behaviour", default="walker", help="qwbots --behaviour (walker)")
    p.add_argument("--maxrate", type=whole(0), default=0,
                   help="qwd's sv_maxrate (0: no cap, so the bots' rate 100000 governs; "
                        "qwd's own default, 30000, chokes replies)")
    p.add_argument("--from", dest="from_dir", help="floor: the scale run whose sizes to use")
    p.add_argument("--size-in", type=positive, help="floor: request bytes")
    p.add_argument("--size-out", type=positive, help="floor: reply bytes")
    p.add_argument("--append", action="store_true",
                   help="scale: add rows to the folder's scale.csv")
    p.add_argument("--callgrind-bots", type=whole(1),
                   help="bots of the callgrind pass (overhead 64; compare: --players, 32)")
    p.add_argument("--callgrind-rate", type=positive,
                   help="their requests/s each (overhead 5; compare 20)")
    p.add_argument("--callgrind-duration", type=positive,
                   help="overhead: its window; compare: the counting window, whole s "
                        "(10; 20)")
    p.add_argument("--no-callgrind", dest="callgrind", action="store_false",
                   help="overhead, compare: no callgrind pass")
    p.add_argument("--no-plots", dest="plots", action="store_false")
    p.add_argument("--qwd-set", dest="qwd_set", type=cvar_setting, action="append",
                   default=[], metavar="'CVAR VALUE'",
                   help="a cvar qwd starts with (repeatable; qwd only, MVDSV keeps its "
                        "defaults), e.g. 'sys_ticrate 0.005'; env.txt lists them")
    p.add_argument("--notrack", action="store_true",
                   help="exempt loopback UDP from netfilter's connection tracking for "
                        "the run (an nft table of its own, deleted at the end; root): "
                        "on a host whose NAT rules load it, it costs the server about "
                        "6%% of its CPU at 2048 players; env.txt says which")
    p.set_defaults(func=cmd_study)


# ---- soak and storm --------------------------------------------------------

def cvar_setting(text):
    """'CVAR VALUE' for --qwd-set: a cvar name and one value."""
    parts = text.split(None, 1)
    if len(parts) != 2 or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", parts[0]) \
            or any(c in parts[1] for c in "\n\r;\""):
        raise argparse.ArgumentTypeError(
            "%r: give a cvar name and a value, as 'sys_ticrate 0.005'" % text)
    return (parts[0], parts[1].strip())


def out_dir(args, mode):
    d = args.out or os.path.join(ROOT, "build", "experiments",
                                 datetime.datetime.now().strftime("%Y%m%d-%H%M%S") + "-" + mode)
    os.makedirs(d, exist_ok=True)
    return os.path.abspath(d)


def map_path(args, ctl):
    found = runs.resolve_map(args.map, ROOT, ctl.build)
    if not found:
        raise runs.RunError("map '%s' not found (%s/maps, %s, or a .bsp path)"
                            % (args.map, args.build, runs.realmaps_dir(ROOT)))
    return found


# ---- soak ----

def soak_players(args):
    if args.players:
        return args.players
    if not args.capacity_csv:
        raise runs.RunError("soak: give --players N or --capacity-csv FILE")
    cap = series.capacity(series.read_scale_csv(args.capacity_csv), rate=args.rate)
    if cap <= 0:
        raise runs.RunError("%s: no point holds (response rate >= 0.99, p99 < %.0f ms)"
                            % (args.capacity_csv, 1000.0 / args.rate))
    n = max(1, int(cap * args.fraction))
    args.capacity_players = cap
    say("capacity %d players (%s), soak at %.0f%%: %d players"
        % (cap, args.capacity_csv, 100 * args.fraction, n))
    return n


def cmd_soak(args):
    out = out_dir(args, "soak")
    ctl = runs.Ctl(ROOT, args.build)
    bsp, name = map_path(args, ctl)
    n = soak_players(args)
    m = report.machine(ROOT)
    port = ctl.free_port()
    interval = args.interval
    duration = int(args.minutes * 60)
    say("soak: %d players on %s for %d min, folder %s" % (n, name, args.minutes, out))
    srv = ctl.start_qwd(out, port, name, max(32, n), cpu=args.server_cpu,
                        sets=[("sv_maxrate", 0)], stats_interval=10)
    sampler = proc.Sampler(srv.pid, 1.0).start()
    t_bots = time.monotonic()
    bots = ctl.start_bots(out, "bots", port, n, duration, bsp, cpu=args.bots_cpu,
                          rate=args.rate,
                          extra=["--warmup", str(args.warmup), "--join-rate",
                                 str(args.join_rate), "--series-interval", str(interval),
                                 "--client-rate", "100000", "--server-pid", str(srv.pid)])
    deadline = t_bots + n / args.join_rate + 30 + args.warmup + duration + 60
    status = exit_status(ctl.wait(bots, deadline, say))
    samples = sampler.stop()
    ctl.stop(srv)
    rows = []
    for r in series.read_series(os.path.join(out, "bots-series.csv")):
        if r["phase"] != "measure":
            continue
        a = t_bots + r["t"] - interval
        cut = proc.per_interval(samples, a, interval, 1)[0]
        rows.append({
            "n": len(rows) + 1, "t_s": r["t"], "in_game": int(r["in_game"]),
            "replies_per_s": r["replies_per_s"], "response_rate": r["response_rate"],
            "rt_p50_ms": r["rt_p50_ms"], "rt_p99_ms": r["rt_p99_ms"],
            "rt_max_ms": r["rt_max_ms"],
            "rss_mb": cut[1] / 1024.0 if cut else None,
            "cpu_pct": 100 * cut[0] if cut else None,
        })
    totals = series.read_report(os.path.join(out, "bots.json")) or {}
    cols = [("n", "interval (%d s)" % interval), ("in_game", "in game"), ("replies_per_s", "replies/s"),
            ("response_rate", "response rate"), ("rt_p50_ms", "p50 ms"),
            ("rt_p99_ms", "p99 ms"), ("rt_max_ms", "max ms"), ("rss_mb", "RSS MB"),
            ("cpu_pct", "server CPU %")]
    table = report.write_table(os.path.join(out, "soak"), cols, rows,
                               {"response_rate": 4, "rt_p50_ms": 2, "rss_mb": 1,
                                "cpu_pct": 1, "replies_per_s": 0})
    rr = series.summary(rows, "response_rate")
    p99 = series.summary(rows, "rt_p99_ms")
    rss = [r["rss_mb"] for r in rows if r["rss_mb"] is not None]
    verdict = [
        "players %d, %d requests/s each, map %s, %d intervals of %d s measured after "
        "%d s of warm-up" % (n, args.rate, name, len(rows), interval, args.warmup),
        "response rate per interval: %s to %s" % (report.fmt(rr[0], 4), report.fmt(rr[1], 4)),
        "p99 per interval: %s to %s ms" % (report.fmt(p99[0]), report.fmt(p99[1])),
        "RSS: %s MB in the first interval, %s MB in the last (%s MB change)"
        % (report.fmt(rss[0], 1) if rss else "?", report.fmt(rss[-1], 1) if rss else "?",
           report.fmt(rss[-1] - rss[0], 1) if rss else "?"),
        "bots dropped by the server: %s; qwbots exit %s" % (totals.get("bots_dropped", "?"), status),
    ]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("# qwd soak\n\n*%s*\n\n" % report.machine_line(m))
        f.write("Command: `tools/experiment/qwexp.py %s`%s\n\n" % (
            " ".join(sys.argv[1:]),
            "; capacity %d players in %s" % (args.capacity_players, args.capacity_csv)
            if getattr(args, "capacity_players", 0) else ""))
        f.write("Server pinned to CPU %s, qwbots to CPU %s; sv_maxrate 0, client rate "
                "100000. Per minute: qwbots' own figures over that minute; RSS the "
                "largest of the second-by-second samples; server CPU the share of one "
                "core.\n\n" % (args.server_cpu, args.bots_cpu))
        f.write("".join("- %s\n" % v for v in verdict) + "\n" + table)
    for v in verdict:
        say(v)
    say("report: %s" % os.path.join(out, "report.md"))
    return 0 if status == 0 and rows else 1


# ---- storm ----

def cmd_storm(args):
    out = out_dir(args, "storm")
    ctl = runs.Ctl(ROOT, args.build)
    bsp, name = map_path(args, ctl)
    m = report.machine(ROOT)
    port = ctl.free_port()
    obs_n, storm_n = args.observers, args.bots
    total = args.waves * args.period + 10
    say("storm: %d observers, %d waves of %d bots every %d s on %s, folder %s"
        % (obs_n, args.waves, storm_n, args.period, name, out))
    # two waves at once: the last one's slots may still be held (timeout, zombie)
    srv = ctl.start_qwd(out, port, name, max(32, obs_n) + 2 * storm_n, cpu=args.server_cpu,
                        sets=[("sv_maxrate", 0), ("timeout", args.timeout)],
                        stats_interval=1)
    t_obs = time.monotonic()
    obs = ctl.start_bots(out, "observers", port, obs_n, total, bsp, cpu=args.bots_cpu,
                         qwdx="off", rate=args.rate,
                         extra=["--name", "obs", "--client-rate", "100000",
                                "--source", "127.1.0.1/%d" % obs_n])
    # the observers first, then the waves
    time.sleep(3 + obs_n / 100.0)
    waves = []
    for w in range(args.waves):
        kind = "timeout" if w % 2 == 0 else "leave"
        t0 = time.monotonic()
        storm = ctl.start_bots(out, "storm%d" % w, port, storm_n, args.period, bsp,
                               cpu=args.bots_cpu, qwdx="on", rate=args.rate,
                               extra=["--name", "s%d_" % w, "--join-rate", "2000",
                                      "--client-rate", "100000", "--source",
                                      "127.3.%d.1/%d" % (w % 200, storm_n)])
        time.sleep(args.period * 0.5)
        ctl.stop(storm, signal.SIGKILL if kind == "timeout" else signal.SIGTERM)
        time.sleep(max(0.0, t0 + args.period - time.monotonic()))
        waves.append({"wave": w + 1, "kind": kind, "a": t0 - t_obs,
                      "b": time.monotonic() - t_obs})
    status = exit_status(ctl.wait(obs, time.monotonic() + 30, say))
    ctl.stop(srv)
    rows = series.read_series(os.path.join(out, "observers-series.csv"))
    log = os.path.join(out, "server.log")
    for wv in waves:
        inside = [r for r in rows if wv["a"] < r["t"] <= wv["b"] + 1]
        wv["observers_min"] = int(min(r["in_game"] for r in inside)) if inside else None
        wv["rr_min"] = series.summary(inside, "response_rate")[0]
        wv["p99_max_ms"] = series.summary(inside, "rt_p99_ms")[1]
        wv["joined"] = runs.count_lines(log, '"s%d_' % (wv["wave"] - 1), "entered the game")
        wv["gone"] = runs.count_lines(log, '"s%d_' % (wv["wave"] - 1), "dropped:")
    totals = series.read_report(os.path.join(out, "observers.json")) or {}
    # an observer's own "disconnected" at the end is not a drop
    dropped_obs = (runs.count_lines(log, '"obs', "dropped:")
                   - runs.count_lines(log, '"obs', "dropped: disconnected"))
    cols = [("wave", "wave"), ("kind", "how they went"), ("joined", "bots in the game"),
            ("gone", "bots dropped or left"),
            ("observers_min", "observers in the game (fewest)"),
            ("rr_min", "observers' worst response rate"), ("p99_max_ms", "observers' worst p99 ms")]
    table = report.write_table(os.path.join(out, "storm"), cols, waves, {"rr_min": 4})
    verdict = [
        "%d stock observers, %d waves of %d QWDX bots, every %d s, timeout %s s, map %s"
        % (obs_n, args.waves, storm_n, args.period, args.timeout, name),
        "observers dropped by the server: %d (server log), %s (qwbots); qwbots exit %s"
        % (dropped_obs, totals.get("bots_dropped", "?"), status),
        "observers' response rate over the run: %s"
        % report.fmt(totals.get("response_rate"), 4),
    ]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("# qwd storm\n\n*%s*\n\n" % report.machine_line(m))
        f.write("Per wave: the storm bots join at 2000/s, stay half the period, then "
                "are killed (SIGKILL: the server times them out together) or stopped "
                "(they leave together); the observers are measured every second.\n\n")
        f.write("".join("- %s\n" % v for v in verdict) + "\n" + table)
    for v in verdict:
        say(v)
    say("report: %s" % os.path.join(out, "report.md"))
    return 0 if dropped_obs == 0 and status == 0 else 1

# ---- fleet ----

def fleet_cpus(args):
    """The CPUs the servers may use: every online one but the bots'
    (all of them when that leaves none)."""
    cpus = sorted(os.sched_getaffinity(0))
    left = [c for c in cpus if c != args.bots_cpu]
    return left or cpus


def fleet_phase(args, ctl, out, bsp, name, config, phase, count, per):
    """count servers, per bots each, at once: one row per server (its
    own qwbots' figures and its /proc CPU over the same window)."""
    d = os.path.join(out, "%s-%s" % (config, phase))
    os.makedirs(d, exist_ok=True)
    cpus = fleet_cpus(args)
    servers, bots, samplers = [], [], []
    try:
        for i in range(count):
            port = ctl.free_port()
            cpu = cpus[i % len(cpus)] if config == "pinned" else None
            srv = ctl.start_qwd(d, port, name, max(32, per), cpu=cpu,
                                sets=[("sv_maxrate", 0)],
                                log_path=os.path.join(d, "server%d.log" % i))
            servers.append((srv, port, cpu))
        for i, (srv, port, cpu) in enumerate(servers):
            samplers.append(proc.Sampler(srv.pid, 0.5).start())
            bots.append(ctl.start_bots(d, "bots%d" % i, port, per, args.duration, bsp,
                                       cpu=args.bots_cpu, rate=args.rate,
                                       extra=["--warmup", str(args.warmup),
                                              "--client-rate", "100000",
                                              "--server-pid", str(srv.pid)]))
        deadline = time.monotonic() + per / 200.0 + 30 + args.warmup + args.duration + 30
        status = [exit_status(ctl.wait(b, deadline, say)) for b in bots]
    finally:
        samples = [s.stop(final=True) for s in samplers]
        for srv, _, _ in servers:
            ctl.stop(srv)
    rows = []
    for i, (srv, port, cpu) in enumerate(servers):
        c = measure.client_figures(series.read_json(os.path.join(d, "bots%d.json" % i)))
        w = measure.window_figures(samples[i], c.get("window_s"))
        replies = c.get("replies_per_s")
        cpu_s = w.get("srv_cpu_s")
        win = c.get("window_s")
        rows.append({
            "config": config, "phase": phase, "servers": count, "instance": i,
            "cpu": "-" if cpu is None else cpu, "players": per,
            "in_game": c.get("bots_in_game"), "replies_per_s": replies,
            "response_rate": c.get("response_rate"), "rt_p50_ms": c.get("rt_p50"),
            "rt_p99_ms": c.get("rt_p99"),
            "srv_cpu_pct": measure.ratio(cpu_s, win, 100.0),
            "cpu_us_per_reply": measure.ratio(cpu_s, (replies or 0) * (win or 0), 1e6)
            if replies and win else None,
            "bots_cpu_pct": c.get("cpu_pct"), "status": status[i],
        })
    return rows


def fleet_mean(rows, key):
    v = [r[key] for r in rows if r.get(key) is not None]
    return sum(v) / len(v) if v else None


def cmd_fleet(args):
    out = out_dir(args, "fleet")
    ctl = runs.Ctl(ROOT, args.build)
    bsp, name = map_path(args, ctl)
    m = report.machine(ROOT)
    if args.servers < 1 or args.players < args.servers:
        raise runs.RunError("fleet: give at least one server and a player per server")
    per = args.players // args.servers
    configs = ["pinned", "unpinned"] if args.pin == "both" else [args.pin]
    say("fleet: %d servers x %d players on %s, %s; folder %s"
        % (args.servers, per, name, " and ".join(configs), out))
    rows = []
    for config in configs:
        say("%s: one server alone" % config)
        rows += fleet_phase(args, ctl, out, bsp, name, config, "alone", 1, per)
        say("%s: %d servers at once" % (config, args.servers))
        rows += fleet_phase(args, ctl, out, bsp, name, config, "together", args.servers, per)
    cols = [("config", "servers pinned"), ("phase", "phase"), ("instance", "server"),
            ("cpu", "CPU"), ("players", "players"), ("in_game", "in game"),
            ("replies_per_s", "replies/s"), ("response_rate", "response rate"),
            ("rt_p50_ms", "p50 ms"), ("rt_p99_ms", "p99 ms"),
            ("srv_cpu_pct", "server CPU %"), ("cpu_us_per_reply", "CPU us/reply"),
            ("bots_cpu_pct", "qwbots CPU %"), ("status", "qwbots exit")]
    table = report.write_table(os.path.join(out, "fleet"), cols, rows,
                               {"response_rate": 4, "replies_per_s": 0, "srv_cpu_pct": 1,
                                "cpu_us_per_reply": 1, "bots_cpu_pct": 1})
    verdict = []
    for config in configs:
        alone = [r for r in rows if r["config"] == config and r["phase"] == "alone"]
        tog = [r for r in rows if r["config"] == config and r["phase"] == "together"]
        a_cpu, t_cpu = fleet_mean(alone, "cpu_us_per_reply"), fleet_mean(tog, "cpu_us_per_reply")
        a_p99, t_p99 = fleet_mean(alone, "rt_p99_ms"), fleet_mean(tog, "rt_p99_ms")
        verdict.append(
            "%s: alone %s us of CPU per reply, p99 %s ms, response rate %s; %d together: "
            "%s us per reply (x%s), p99 %s ms (x%s), response rate %s to %s"
            % (config, report.fmt(a_cpu, 1), report.fmt(a_p99),
               report.fmt(fleet_mean(alone, "response_rate"), 4), args.servers,
               report.fmt(t_cpu, 1), report.fmt(measure.ratio(t_cpu, a_cpu)),
               report.fmt(t_p99), report.fmt(measure.ratio(t_p99, a_p99)),
               report.fmt(min((r["response_rate"] for r in tog
                               if r["response_rate"] is not None), default=None), 4),
               report.fmt(max((r["response_rate"] for r in tog
                               if r["response_rate"] is not None), default=None), 4)))
    # the figure: alone against together per configuration
    summary = os.path.join(out, "fleet-summary.csv")
    with open(summary, "w") as f:
        f.write("config,alone_us,together_us,alone_p99,together_p99\n")
        for config in configs:
            a = [r for r in rows if r["config"] == config and r["phase"] == "alone"]
            t = [r for r in rows if r["config"] == config and r["phase"] == "together"]
            f.write("%s,%s,%s,%s,%s\n" % (config, *(
                "%.3f" % v if v is not None else "NaN" for v in (
                    fleet_mean(a, "cpu_us_per_reply"), fleet_mean(t, "cpu_us_per_reply"),
                    fleet_mean(a, "rt_p99_ms"), fleet_mean(t, "rt_p99_ms")))))
    figure = ""
    if plots.ensure_gnuplot(say):
        desc = "%d servers x %d players, %d req/s each, map %s" % (
            args.servers, per, args.rate, name)
        if plots.gnuplot(os.path.join(HERE, "fleet.gp"),
                         [("csv", summary), ("outdir", out), ("desc", desc),
                          ("hw", report.machine_line(m))], os.path.join(out, "gnuplot.log")):
            figure = "![fleet](fig-fleet.png)\n\n"
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("# qwd fleet\n\n*%s*\n\n" % report.machine_line(m))
        f.write("Command: `tools/experiment/qwexp.py %s`\n\n" % " ".join(sys.argv[1:]))
        f.write("N qwd instances on one host, %d players each at %d requests/s (qwbots, "
                "one per server, all on CPU %d), measured %d s after %d s of warm-up: "
                "first one server alone, then all %d at once. Pinned: server i on the "
                "i-th of CPUs %s (round robin); unpinned: the kernel places them. CPU "
                "per reply is the server's /proc CPU time over qwbots' window divided "
                "by the replies qwbots counted in it.\n\n"
                % (per, args.rate, args.bots_cpu, args.duration, args.warmup,
                   args.servers, ",".join(str(c) for c in fleet_cpus(args))))
        f.write("".join("- %s\n" % v for v in verdict) + "\n" + figure + table)
    for v in verdict:
        say(v)
    say("report: %s" % os.path.join(out, "report.md"))
    ok = all(r["status"] == 0 and r["in_game"] for r in rows)
    return 0 if ok else 1


def main(argv=None):
    ap = argparse.ArgumentParser(prog="qwexp.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    study_parser(sub, "scale", "for each player count, qwd under qwbots: scale.csv")
    study_parser(sub, "compare", "qwd against MVDSV + KTX: compare.csv")
    study_parser(sub, "floor", "the bare UDP echo at the scale points' sizes: floor.csv")
    study_parser(sub, "all", "scale, compare and floor into one folder")
    study_parser(sub, "overhead", "what qwd's timers and counters cost: overhead*.csv")
    study_parser(sub, "report", "remake the figures and report.md of a folder")

    def common(p):
        p.add_argument("--out", help="run folder (build/experiments/<date>-<mode>)")
        p.add_argument("--build", default=os.environ.get("QWEXP_BUILD", "build"))
        p.add_argument("--map", default="small", help="map name or a .bsp path")
        p.add_argument("--rate", type=int, default=30, help="requests/s per player")
        p.add_argument("--server-cpu", type=int, default=0)
        p.add_argument("--bots-cpu", type=int, default=1)

    s = sub.add_parser("soak", help="steady load for a long time, per-minute figures")
    common(s)
    s.add_argument("--players", type=int, default=0)
    s.add_argument("--capacity-csv", help="a scale.csv: soak at --fraction of its capacity")
    s.add_argument("--fraction", type=float, default=0.8)
    s.add_argument("--minutes", type=float, default=30)
    s.add_argument("--interval", type=int, default=60, help="seconds per row")
    s.add_argument("--warmup", type=int, default=10)
    s.add_argument("--join-rate", type=int, default=200)
    s.set_defaults(func=cmd_soak)

    t = sub.add_parser("storm", help="waves of bots join and vanish while observers play")
    common(t)
    t.add_argument("--observers", type=int, default=16)
    t.add_argument("--bots", type=int, default=256)
    t.add_argument("--waves", type=int, default=6)
    t.add_argument("--period", type=int, default=20)
    t.add_argument("--timeout", type=int, default=5, help="the server's timeout cvar")
    t.set_defaults(func=cmd_storm)

    fl = sub.add_parser("fleet", help="N servers on one host: each against one alone")
    common(fl)
    fl.add_argument("--servers", type=int, default=4)
    fl.add_argument("--players", type=int, default=128, help="in all, split evenly")
    fl.add_argument("--pin", choices=("pinned", "unpinned", "both"), default="both")
    fl.add_argument("--duration", type=int, default=20, help="seconds measured")
    fl.add_argument("--warmup", type=int, default=5)
    fl.set_defaults(func=cmd_fleet)

    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except runs.RunError as e:
        print("qwexp: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        say("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
