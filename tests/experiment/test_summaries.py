"""test_summaries.py -- qwd's stats intervals over a window, the summaries
of repeated runs, and the rows of one run's figures.

Design note
  Every expected figure here is worked out by hand from the inputs
  written in the test (the comments show the sums), so a change of a
  formula, a window rule or a CSV column fails here rather than in a
  half-hour study.  The inputs follow the real formats: qwd-stats/1 lines
  (docs/instrumentation.md), qwbots' --json totals (docs/qwbots.md), CSV
  rows as text.
"""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "lib", "python"))

from qwexplib import measure, proc, qwdstats, stats  # noqa: E402


def stats_line(t, length=1.0, frames=1000, requests=300, replies=300, rt=None,
               timers=True, counters=None, **extra):
    """A qwd-stats/1 object ending at Unix time t."""
    obj = {"schema": "qwd-stats/1", "time": t, "interval_s": length, "frames": frames,
           "timers": timers, "requests": requests, "replies": replies,
           "phase_ns": {"world": 10, "receive": 20, "execute": 30, "reply": 40,
                        "idle": 900},
           "request_time_us": rt or {"count": replies, "mean": 100, "p50": 90,
                                     "p99": 200, "max": 300},
           "reply_bytes": {"count": replies, "mean": 500, "p50": 480, "p99": 900,
                           "max": 1000},
           "frame_busy_us": {"count": frames, "mean": 50, "p50": 40, "p99": 90,
                             "max": 120},
           "net": {"bytes_in": 6000, "bytes_out": 150000},
           "clients": {"in_Bps_mean": 500, "out_Bps_mean": 12500},
           "counters": counters}
    obj.update(extra)
    return json.dumps(obj)


class StatsWindowTest(unittest.TestCase):
    def lines(self):
        return [
            stats_line(100.0),                          # middle 99.5: before the window
            stats_line(101.0),                          # middle 100.5: in
            stats_line(102.0, replies=100,              # in: other percentiles
                       rt={"count": 100, "mean": 300, "p50": 290, "p99": 1000,
                           "max": 2000}),
            stats_line(103.0, rt={"count": 0, "mean": None, "p50": None,
                                  "p99": None, "max": None}),   # in: nothing timed
            stats_line(105.0),                          # middle 104.5: after
            '{"schema":"qwd-stats/1","time":106.0,"interv',   # cut by a kill
        ]

    def test_window_sums_and_weights(self):
        recs = qwdstats.parse_lines(self.lines())
        self.assertEqual(len(recs), 5)
        k = qwdstats.window(recs, 100.0, 103.0)
        self.assertEqual(k["intervals"], 3)
        self.assertAlmostEqual(k["seconds"], 3.0)
        self.assertAlmostEqual(k["fps"], 1000.0)
        self.assertAlmostEqual(k["requests_per_frame"], 0.3)
        self.assertAlmostEqual(k["replies_per_s"], (300 + 100 + 300) / 3.0)
        self.assertAlmostEqual(k["share_idle"], 0.9)
        self.assertAlmostEqual(k["share_world"], 0.01)
        self.assertAlmostEqual(k["out_Bps"], 150000.0)
        self.assertAlmostEqual(k["client_out_Bps"], 12500.0)
        # request time: intervals weighted by their counts, 300 and 100
        self.assertAlmostEqual(k["request_time_us_mean"], (300 * 100 + 100 * 300) / 400.0)
        self.assertAlmostEqual(k["request_time_us_p99"], (300 * 200 + 100 * 1000) / 400.0)
        self.assertEqual(k["request_time_us_max"], 2000)
        self.assertEqual(k["reply_bytes_max"], 1000)

    def test_shutdown_interval_left_out(self):
        # the last interval, cut short at 105.2 when qwd was stopped at
        # 105.1: its middle (105.1) is in the window, but it is not counted
        recs = qwdstats.parse_lines([stats_line(104.0), stats_line(105.0),
                                     stats_line(105.2, length=0.2)])
        self.assertEqual(qwdstats.window(recs, 103.0, 105.15)["intervals"], 3)
        k = qwdstats.window(recs, 103.0, 105.15, stop=105.1)
        self.assertEqual(k["intervals"], 2)
        self.assertAlmostEqual(k["seconds"], 2.0)

    def test_empty_window_has_no_figures(self):
        recs = qwdstats.parse_lines(self.lines())
        k = qwdstats.window(recs, 200.0, 210.0)
        self.assertEqual(k, {"intervals": 0})
        self.assertEqual(qwdstats.window([], 0, 1), {"intervals": 0})

    def test_timers_and_counter_mode(self):
        on = qwdstats.parse_lines([stats_line(1.0), stats_line(2.0)])
        off = qwdstats.parse_lines([stats_line(1.0), stats_line(2.0, timers=False)])
        self.assertEqual(qwdstats.timers(on), "on")
        self.assertEqual(qwdstats.timers(off), "off")
        self.assertEqual(qwdstats.timers([{"time": 1}]), "")
        self.assertEqual(qwdstats.counter_mode(on), "off")   # counters null
        sw = qwdstats.parse_lines([stats_line(1.0, counters={"mode": "software",
                                                              "phases": {}})])
        self.assertEqual(qwdstats.counter_mode(sw), "software")
        self.assertEqual(qwdstats.counter_mode([]), "")
        self.assertEqual(qwdstats.total(on, "frames"), 2000)


class SummaryTest(unittest.TestCase):
    def test_median_mean_sd(self):
        self.assertEqual(stats.median([3, None, 1, 2]), 2)
        self.assertEqual(stats.median([4, 1, 3, 2]), 2.5)
        self.assertIsNone(stats.median([None]))
        self.assertAlmostEqual(stats.sd([1.0, 1.2, 1.1]), 0.1)
        self.assertIsNone(stats.sd([1.0]))
        self.assertAlmostEqual(stats.mean([1, 2, None]), 1.5)

    def test_compare_summary(self):
        header = ["server", "repeat", "replies_per_s", "srv_cpu_s_per_1000_replies",
                  "rt_p99_ms", "srv_rss_kb"]
        rows = [dict(zip(header, r)) for r in (
            ["qwd", "1", "960", "0.021", "0.13", "8192"],
            ["mvdsv", "1", "959", "0.036", "0.27", "98020"],
            ["qwd", "2", "960", "0.023", "0.15", "8192"],
            ["mvdsv", "2", "", "", "", ""],            # failed: left out
            ["qwd", "3", "961", "0.022", "", "8200"],  # p99 not measured
        )]
        out = stats.compare_summary(rows, header)
        cols = stats.COMPARE_SUMMARY_HEADER.split(",")
        q = dict(zip(cols, out[0]))
        m = dict(zip(cols, out[1]))
        self.assertEqual((q["server"], q["runs"]), ("qwd", "3"))
        self.assertEqual(q["cpu_s_per_1000_replies"], "0.022")
        self.assertEqual(q["rt_p99_ms"], "0.14")       # the two measured
        self.assertEqual(q["rss_kb"], "8192")
        self.assertEqual(q["us_per_request"], "")      # no such column
        self.assertEqual((m["runs"], m["rss_kb"]), ("1", "98020"))

    def overhead_rows(self):
        header = ["config", "repeat", "status", "srv_cpu_s_per_1000_replies", "counter_mode"]
        vals = {"off": (1.0, 1.2, 1.1), "timers": (1.1, 1.3, 1.2),
                "counters": (2.0, 2.2, 2.1)}
        rows = []
        for rep in range(3):
            for k, v in vals.items():
                mode = "software" if k == "counters" else "off"
                rows.append(dict(zip(header, [k, str(rep + 1), "0", str(v[rep]), mode])))
        rows.append(dict(zip(header, ["off", "4", "server-failed", "", ""])))
        return rows

    def test_overhead_summary(self):
        out = {r[0]: dict(zip(stats.OVERHEAD_SUMMARY_HEADER.split(","), r))
               for r in stats.overhead_summary(self.overhead_rows())}
        self.assertEqual(list(out), ["off", "timers", "counters"])
        off, tim, cnt = out["off"], out["timers"], out["counters"]
        self.assertEqual((off["runs"], off["cpu_s_per_1000_replies_mean"]), ("3", "1.100000"))
        self.assertEqual(off["cpu_s_per_1000_replies_sd"], "0.100000")
        self.assertEqual((off["overhead_pct"], off["within_spread"]), ("", ""))
        # (1.2 - 1.1) / 1.1; paired: 10%, 8.333%, 9.091%; spread (0.1 + 0.1) / 1.1
        self.assertEqual(tim["overhead_pct"], "9.091")
        self.assertEqual(tim["paired_overhead_pct_mean"], "9.141")
        self.assertEqual(tim["paired_overhead_pct_median"], "9.091")
        self.assertEqual(tim["spread_pct"], "18.182")
        self.assertEqual(tim["within_spread"], "yes")
        self.assertEqual((cnt["overhead_pct"], cnt["within_spread"]), ("90.909", "no"))
        self.assertEqual(cnt["counter_mode"], "software")
        self.assertEqual(cnt["cpu_s_per_1000_replies_min"], "2.000000")
        self.assertEqual(cnt["cpu_s_per_1000_replies_median"], "2.100000")

    def test_overhead_summary_without_baseline(self):
        rows = [r for r in self.overhead_rows() if r["config"] == "timers"][:1]
        out = stats.overhead_summary(rows)
        self.assertEqual(len(out), 1)
        self.assertEqual(out[0][:3], ["timers", "1", "1.100000"])
        self.assertEqual(out[0][10], "unknown")


class MeasureTest(unittest.TestCase):
    doc = {"totals": {"bots_in_game": 4, "join_max_s": 0.3, "window_s": 10.0,
                      "requests": 1200, "replies": 1190, "requests_per_s": 120.0,
                      "replies_per_s": 119.0, "response_rate": 0.9917,
                      "response_time_ms": {"mean": 0.2, "p50": 0.18, "p90": 0.25,
                                           "p99": 0.4, "max": 3.5},
                      "bytes_in_per_s": 59500.0, "bytes_out_per_s": 3000.0,
                      "players_per_reply": 4, "entities_per_reply": 15.5, "chokes": 0,
                      "lost": 1, "bad_total": 0},
           "cpu": {"user_s": 0.3, "sys_s": 0.2, "percent": 5.0, "server_s": -1}}

    def samples(self):
        # the server uses 0.1 s of CPU a second, the machine 1.5 CPUs busy
        tck = proc.CLK_TCK
        out = []
        for t in range(0, 13):
            srv = proc.ProcSample(0.1 * t, 0.06 * t, 0.04 * t, 5000, 6000 + t)
            cli = proc.ProcSample(0.05 * t, 0.05 * t, 0, 3000, 3500)
            out.append(proc.Sample(float(t), (srv, cli),
                                   proc.Machine(int(1.5 * tck * t), 0, int(0.1 * tck * t))))
        # the sample when qwbots exited: the client is gone
        out.append(proc.Sample(12.5, (proc.ProcSample(1.25, 0.75, 0.5, 5000, 6100), None),
                               proc.Machine(int(1.5 * tck * 12.5), 0, int(0.1 * tck * 12.5))))
        return out

    def test_client_figures(self):
        c = measure.client_figures(self.doc)
        self.assertEqual(c["in_per_client"], 59500.0 / 4)
        self.assertEqual(c["request_bytes"], 3000.0 / 120.0)
        self.assertEqual(c["reply_bytes"], 500.0)
        self.assertIsNone(c["srv_cpu_ticks_s"])          # -1: not measured
        self.assertAlmostEqual(c["cpu_s"], 0.5)
        self.assertEqual(c["rt_p99"], 0.4)
        empty = measure.client_figures(None)
        self.assertIsNone(empty["reply_bytes"])

    def test_window_figures(self):
        w = measure.window_figures(self.samples(), 10.0)
        self.assertEqual((w["ws"], w["we"]), (2.5, 12.5))
        self.assertAlmostEqual(w["srv_cpu_s"], 1.0)
        self.assertAlmostEqual(w["srv_user_s"], 0.6)
        self.assertEqual(w["srv_hwm_kb"], 6100)           # the peak, not the last
        self.assertEqual(w["cli_hwm_kb"], 3500)
        self.assertAlmostEqual(w["host_busy_cpus"], 1.5, places=2)
        self.assertAlmostEqual(w["steal_pct"], 10.0, places=1)
        none = measure.window_figures(self.samples(), None)
        self.assertIsNone(none["srv_cpu_s"])
        self.assertEqual(none["srv_hwm_kb"], 6100)

    def test_scale_row(self):
        c = measure.client_figures(self.doc)
        w = measure.window_figures(self.samples(), 10.0)
        k = qwdstats.window(qwdstats.parse_lines([stats_line(4.0), stats_line(5.0)]), 2.5, 12.5)
        row = dict(zip(measure.SCALE_HEADER.split(","),
                       measure.scale_row(4, 30, "small", 0, c, w, k)))
        self.assertEqual(len(row), len(measure.SCALE_HEADER.split(",")))
        self.assertEqual(row["offered_per_s"], "120")
        self.assertEqual(row["srv_cpu_s"], "1.000000")
        self.assertEqual(row["srv_cpu_pct"], "10")
        self.assertEqual(row["srv_us_per_request"], "833.333")       # 1 s / 1200
        self.assertEqual(row["srv_cpu_s_per_1000_replies"], "0.840336")
        self.assertEqual(row["srv_cpu_ticks_s"], "")
        self.assertEqual(row["srv_intervals"], "2")
        self.assertEqual(row["share_idle"], "0.9")
        # 1.5 CPUs busy - (1.0 s server + 0.5 s qwbots) / 10 s
        self.assertAlmostEqual(float(row["other_cpus"]), 1.35, places=2)
        self.assertEqual(row["reply_bytes"], "500")

    def test_other_rows_and_failures(self):
        c = measure.client_figures(self.doc)
        w = measure.window_figures(self.samples(), 10.0)
        cmp = dict(zip(measure.COMPARE_HEADER.split(","),
                       measure.compare_row("qwd", 1, 4, "lqdm1", 0, c, w)))
        self.assertEqual(cmp["srv_user_us_per_reply"], "504.202")   # 0.6 s / 1190
        self.assertEqual(cmp["srv_sys_s"], "0.400000")
        ov = dict(zip(measure.OVERHEAD_HEADER.split(","),
                      measure.overhead_row("off", 1, 1, 4, 30, "small", 0, c, w, {},
                                           "off", "off")))
        self.assertEqual((ov["timers"], ov["srv_fps"]), ("off", ""))
        fl = dict(zip(measure.FLOOR_HEADER.split(","), measure.floor_row(
            4, 30, 25, 500, {"totals": {"window_s": 1.0}, "cpu": {"server_us_per_request": 4.0}},
            "18.0")))
        self.assertEqual((fl["qwd_us_per_request"], fl["multiple"]), ("18.0", "4.5"))
        fl = measure.floor_row(4, 30, 25, 500, {}, "")
        self.assertEqual(fl[-2:], ["", ""])
        cols = measure.COMPARE_CALLGRIND_HEADER.split(",")
        cg = dict(zip(cols, measure.compare_callgrind_row(
            "mvdsv", 32, 32, 20.0, "lqdm1", 19.9996, (12800.4, 12736.0), 1536000000, 31.25)))
        self.assertEqual(len(cg), len(cols))
        self.assertEqual((cg["rate"], cg["window_s"], cg["requests"], cg["replies"]),
                         ("20", "20.000", "12800", "12736"))
        self.assertEqual(cg["response_rate"], "0.9950")          # 12736 / 12800.4
        self.assertEqual(cg["kept_up"], "yes")                   # >= 0.99
        self.assertEqual(cg["instructions_per_reply"], "120603")  # 1536000000 / 12736
        self.assertEqual(cg["control_ms"], "31")
        behind = dict(zip(cols, measure.compare_callgrind_row(
            "mvdsv", 32, 32, 30.0, "lqdm1", 20, (19200.0, 18900.0), 2e9, 8)))
        self.assertEqual((behind["response_rate"], behind["kept_up"]), ("0.9844", "no"))
        none = dict(zip(cols, measure.compare_callgrind_row(
            "qwd", 32, None, 20.0, "lqdm1", 20, None, 5e8, 8)))
        self.assertEqual([none[k] for k in ("in_game", "requests", "replies", "response_rate",
                                             "kept_up", "instructions_per_reply")],
                         [""] * 6)
        objs = measure.callgrind_object_rows("mvdsv", [("/usr/games/mvdsv", 750),
                                                       ("qwprogs.so", 250)], 1000)
        self.assertEqual(objs, [["mvdsv", "/usr/games/mvdsv", "750", "75.00"],
                                ["mvdsv", "qwprogs.so", "250", "25.00"]])
        bad = measure.failed_row(measure.SCALE_HEADER, [8, 30, "small"])
        self.assertEqual(bad[:7], ["8", "30", "small", "", "", "", "server-failed"])
        self.assertEqual(len(bad), len(measure.SCALE_HEADER.split(",")))


if __name__ == "__main__":
    unittest.main()
