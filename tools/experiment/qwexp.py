#!/usr/bin/env python3
"""qwexp.py -- long-running experiments on qwd: the soak and the storm.

Design note
  Two benchmarks of the server's robustness, each a command that starts
  qwd and qwbots on the loopback, measures, stops everything, and writes
  a run folder (CSV, Markdown report, the logs):

    soak   holds a steady load (by default 80% of a measured capacity)
           for --minutes (30) and reports, per minute: the players in
           the game, replies/s, response rate, p50/p99/max response time
           (qwbots' own percentiles over that minute, --series-interval
           60), the server's RSS and CPU share (/proc, sampled every
           second).  The question: does anything drift (memory, latency,
           throughput) when nothing changes?
    storm  keeps --observers stock protocol-28 players (16) in the game
           and measures them every second while waves of --bots QWDX bots
           (256) join and vanish at once, alternately killed (SIGKILL: the
           server times them all out together) and stopped (they leave
           together); reports, per wave, the observers' worst second
           (response rate, p99) and whether any observer was dropped.
           The question: can other people's mass joins, timeouts and
           leaves take the server away from its players?

  Capacity: --players N, or --capacity-csv scale.csv (from qwexp scale:
  the most players with response rate >= 0.99 and p99 under 33 ms) times
  --fraction.  The server is pinned to --server-cpu (0), the bots to
  --bots-cpu (1), as ../shared/BENCHMARKS.md asks; sv_maxrate 0 and a
  client rate of 100000, so the rate cap never decides the figures.
  Everything is bounded: qwbots has a deadline, and every process started
  is stopped on exit.
"""

import argparse
import datetime
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "lib", "python"))

from qwexplib import proc, report, runs, series  # noqa: E402


def say(text):
    print("qwexp: " + text, flush=True)


def exit_status(rc):
    """A process's exit status as a shell would give it (128 + signal)."""
    return 128 - rc if rc is not None and rc < 0 else rc


# ---- soak and storm --------------------------------------------------------

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


def main(argv=None):
    ap = argparse.ArgumentParser(prog="qwexp.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)

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
