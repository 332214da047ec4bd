"""test_qwexplib.py -- the experiment runner's parsing and statistics.

Design note
  What the runner computes from files (/proc texts, qwbots' series and
  reports, scale.csv) is tested on texts written here, so a change of a
  format or a formula fails here, not in the middle of a 30-minute soak.
  One test samples this very process through /proc, the real reader.
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "lib", "python"))

from qwexplib import proc, report, runs, series  # noqa: E402

SERIES_HEADER = ("t,phase,in_game,requests_per_s,replies_per_s,response_rate,"
                 "rt_p50_ms,rt_p99_ms,rt_max_ms,bytes_in_per_s,bytes_out_per_s,bad\n")


def sample(t, cpu_s, rss_kb=1000, hwm_kb=2000):
    """A sample of one process with the figures given."""
    return proc.Sample(t, (proc.ProcSample(cpu_s, cpu_s, 0.0, rss_kb, hwm_kb),), None)


def write(dirname, name, text):
    path = os.path.join(dirname, name)
    with open(path, "w") as f:
        f.write(text)
    return path


class ProcTest(unittest.TestCase):
    def test_stat_name_with_parentheses_and_spaces(self):
        fields = ["S"] + ["0"] * 10 + ["250", "150"] + ["0"] * 30
        text = "1234 (q w) (d)) " + " ".join(fields)
        user, system = proc.parse_stat(text)
        self.assertAlmostEqual(user, 250 / proc.CLK_TCK)
        self.assertAlmostEqual(system, 150 / proc.CLK_TCK)

    def test_stat_refuses_garbage(self):
        with self.assertRaises(ValueError):
            proc.parse_stat("no parenthesis here")
        with self.assertRaises(ValueError):
            proc.parse_stat("1 (x) S 1 2")

    def test_status(self):
        vm = proc.parse_status("Name:\tqwd\nVmHWM:\t  30400 kB\nVmRSS:\t  29000 kB\n"
                               "Threads:\t1\nVmSwap:\t0 kB\n")
        self.assertEqual(vm["VmRSS"], 29000)
        self.assertEqual(vm["VmHWM"], 30400)
        self.assertEqual(vm["VmSwap"], 0)
        self.assertNotIn("Threads", vm)

    def test_schedstat_and_machine(self):
        self.assertEqual(proc.parse_schedstat("123456789 2000 17\n"), 123456789)
        with self.assertRaises(ValueError):
            proc.parse_schedstat("")
        m = proc.parse_machine("cpu  100 5 50 1000 20 3 2 7 0 0\ncpu0 1 2 3 4\n")
        self.assertEqual(m, proc.Machine(busy=100 + 5 + 50 + 3 + 2, idle=1020, steal=7))
        # an old kernel's shorter line: no steal column
        self.assertEqual(proc.parse_machine("cpu 1 2 3 4\n").steal, 0)
        with self.assertRaises(ValueError):
            proc.parse_machine("intr 1 2 3\n")

    def test_interpolation(self):
        pts = [(0.0, 0.0), (1.0, 10.0), (2.0, 30.0)]
        self.assertAlmostEqual(proc.at(pts, 0.5), 5.0)
        self.assertAlmostEqual(proc.at(pts, 1.5), 20.0)
        self.assertAlmostEqual(proc.at(pts, 3.0), 50.0)    # beyond: the last two
        self.assertAlmostEqual(proc.at(pts, -1.0), -10.0)  # before: the first two
        self.assertAlmostEqual(proc.growth(pts, 0.5, 1.5), 15.0)
        self.assertIsNone(proc.at(pts[:1], 0.5))
        self.assertIsNone(proc.growth([], 0, 1))
        self.assertEqual(proc.at([(1.0, 4.0), (1.0, 6.0)], 1.0), 4.0)

    def test_points_skip_gone_processes(self):
        samples = [sample(0, 1.0), proc.Sample(1, (None,), None), sample(2, 3.0)]
        self.assertEqual(proc.points(samples, proc.proc_field(0, "cpu_s")),
                         [(0, 1.0), (2, 3.0)])
        self.assertEqual(proc.points(samples, proc.machine_field("busy")), [])

    def test_per_interval(self):
        # one core busy half the time, RSS growing 1 MB a second
        samples = [sample(t, 0.5 * t, 1000 + 1024 * t, 9000) for t in range(0, 21)]
        cut = proc.per_interval(samples, 0, 10, 3)
        self.assertAlmostEqual(cut[0][0], 0.5)
        self.assertEqual(cut[0][1], 1000 + 1024 * 10)
        self.assertEqual(cut[1][1], 1000 + 1024 * 20)
        self.assertIsNone(cut[2])  # no sample beyond t = 20

    def test_sampler_follows_a_process_to_its_end(self):
        # a child busy for 0.4 s of CPU, sampled every 50 ms; the sampler
        # ends by itself when the child is gone
        child = subprocess.Popen([sys.executable, "-c",
                                  "import time\nt = time.process_time()\n"
                                  "while time.process_time() - t < 0.4: pass\n"])
        s = proc.Sampler([child.pid], 0.05, machine=True).start()
        child.wait()
        s._thread.join(timeout=10)
        self.assertFalse(s._thread.is_alive())
        got = s.stop()
        self.assertGreaterEqual(len(got), 3)
        cpu = [x.procs[0].cpu_s for x in got]
        self.assertEqual(cpu, sorted(cpu))                  # CPU never goes back
        self.assertGreater(cpu[-1] - cpu[0], 0.1)
        # the last sample may catch the child exiting (a zombie shows no
        # memory in /proc): the resident size is read while it runs
        self.assertGreater(max(x.procs[0].rss_kb for x in got), 0)
        self.assertTrue(all(x.procs[0].hwm_kb >= x.procs[0].rss_kb for x in got))
        self.assertGreaterEqual(got[-1].machine.busy, got[0].machine.busy)
        self.assertTrue(all(a.t < b.t for a, b in zip(got, got[1:])))

    def test_sampler_of_a_gone_process(self):
        self.assertIsNone(proc.read_sample(2 ** 22 + 7))
        # sampling nothing but a gone process ends by itself
        s = proc.Sampler(2 ** 22 + 7, 0.01).start()
        s._thread.join(timeout=5)
        self.assertFalse(s._thread.is_alive())
        self.assertEqual(s.stop(), [])


class SeriesTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def test_series_rows_and_cut_line(self):
        path = write(self.dir.name, "s.csv", SERIES_HEADER +
                     "60.0,measure,64,1920.0,1919.0,0.9995,0.081,2.007,10.787,26805,5143,0\n"
                     "120.0,measure,64,1920.0,1900.0,0.9896,0.09,4.383,37.046,26805,5143,2\n"
                     "180.0,measu")
        rows = series.read_series(path)
        self.assertEqual(len(rows), 2)
        self.assertEqual(rows[0]["phase"], "measure")
        self.assertEqual(rows[1]["rt_p99_ms"], 4.383)
        self.assertEqual(series.summary(rows, "response_rate"), (0.9896, 0.9995))

    def test_counts_between(self):
        rows = [{"t": 1.0, "requests_per_s": 100.0, "replies_per_s": 90.0},
                {"t": 2.0, "requests_per_s": 200.0, "replies_per_s": 200.0},
                {"t": 4.0, "requests_per_s": 50.0, "replies_per_s": 40.0}]
        # 0.5 s of the first row, all of the second, 1 s of the 2 s third
        self.assertEqual(series.counts_between(rows, 0.5, 3.0),
                         (0.5 * 100 + 200 + 50.0, 0.5 * 90 + 200 + 40.0))
        # inside one row
        self.assertEqual(series.counts_between(rows, 2.5, 3.0), (25.0, 20.0))
        self.assertEqual(series.counts_between(rows, 0.0, 4.0), (400.0, 370.0))
        self.assertEqual(series.counts_between(rows, 1.0, 1.0), (0.0, 0.0))
        # past the last row, before 0, backwards, no rows: not covered
        self.assertIsNone(series.counts_between(rows, 3.0, 4.5))
        self.assertIsNone(series.counts_between(rows, -0.1, 1.0))
        self.assertIsNone(series.counts_between(rows, 2.0, 1.0))
        self.assertIsNone(series.counts_between([], 0.0, 0.0))

    def test_series_start_unix(self):
        doc = {"totals": {"window_start_unix": 1000.5, "join_phase_s": 2.25}}
        # the window opened 3 s (--warmup) after the join, 2.25 s in
        self.assertEqual(series.series_start_unix(doc, "3"), 1000.5 - 2.25 - 3.0)
        self.assertIsNone(series.series_start_unix({"totals": {"join_phase_s": 2}}, 3))
        self.assertIsNone(series.series_start_unix(None, 3))

    def test_series_wrong_header(self):
        path = write(self.dir.name, "x.csv", "a,b,c\n1,2,3\n")
        with self.assertRaises(ValueError):
            series.read_series(path)

    def test_report_totals(self):
        path = write(self.dir.name, "r.json",
                     '{"qwbots":1,"totals":{"response_rate":0.99,"bots_dropped":0}}')
        self.assertEqual(series.read_report(path)["bots_dropped"], 0)
        self.assertIsNone(series.read_report(write(self.dir.name, "cut.json", '{"tot')))
        self.assertIsNone(series.read_report(os.path.join(self.dir.name, "none")))

    def test_json_paths(self):
        path = write(self.dir.name, "q.json",
                     '{"totals":{"window_s":20.0002,"response_time_ms":{"p99":0.34},'
                     '"chokes":0,"bad":null},"cpu":{"server_s":-1}}')
        doc = series.read_json(path)
        self.assertEqual(series.value(doc, "totals.window_s"), 20.0002)
        self.assertEqual(series.value(doc, "totals.response_time_ms.p99"), 0.34)
        self.assertEqual(series.value(doc, "totals.chokes"), 0)
        self.assertIsNone(series.value(doc, "totals.bad"))            # null
        self.assertIsNone(series.value(doc, "totals.missing.deeper"))
        self.assertIsNone(series.value(doc, "totals.window_s.x"))     # through a number
        self.assertIsNone(series.value(None, "totals"))

    def test_saturation(self):
        rows = [
            {"players": "256", "replies_per_s": "7680", "response_rate": "1", "rt_p99_ms": "1.2"},
            {"players": "512", "replies_per_s": "", "response_rate": "", "rt_p99_ms": ""},
            {"players": "1024", "replies_per_s": "30700", "response_rate": "0.999",
             "rt_p99_ms": "40"},
            {"players": "2048", "replies_per_s": "30000", "response_rate": "0.5",
             "rt_p99_ms": "900"},
        ]
        n, why = series.saturation(rows)
        self.assertEqual(n, 1024)
        self.assertEqual(why, "p99 40.0 ms > 33.3 ms; 256 players, the point before, held")
        self.assertEqual(series.saturation(rows[3:]),
                         (2048, "response rate 0.500 < 0.95 and p99 900.0 ms > 33.3 ms"))
        self.assertEqual(series.saturation(rows[:2]), ("none", 256))
        self.assertIsNone(series.saturation(rows[1:2]))
        self.assertEqual(series.saturation(rows, rate=20)[0], 2048)  # slot 50 ms

    def test_floor_players(self):
        def row(n, rr="1", p99="1"):
            return {"players": str(n), "rate": "30", "replies_per_s": "1",
                    "response_rate": rr, "rt_p99_ms": p99}
        self.assertEqual(series.floor_players([row(n) for n in (1, 32, 256, 1024)]),
                         [32, 256, 1024])
        self.assertEqual(series.floor_players([row(32), row(256), row(1024, rr="0.5")]),
                         [32, 256])
        self.assertEqual(series.floor_players([row(1), row(4)]), [4])
        self.assertEqual(series.floor_players([row(8, rr="0.2")]), [8])
        self.assertEqual(series.floor_players([]), [])
        self.assertEqual(series.scale_row([row(4), row(8)], 8)["players"], "8")
        self.assertIsNone(series.scale_row([row(4)], 8))

    def test_capacity(self):
        rows = [
            {"players": "256", "response_rate": "1.0000", "rt_p99_ms": "1.2"},
            {"players": "1024", "response_rate": "0.9990", "rt_p99_ms": "1.88"},
            {"players": "1280", "response_rate": "0.9950", "rt_p99_ms": "33.5"},
            {"players": "1536", "response_rate": "0.68", "rt_p99_ms": "900"},
            {"players": "2048", "response_rate": "", "rt_p99_ms": ""},
        ]
        self.assertEqual(series.capacity(rows, rate=30), 1024)
        self.assertEqual(series.capacity(rows, rate=20), 1280)  # slot 50 ms
        self.assertEqual(series.capacity(rows[3:]), 0)


class ReportTest(unittest.TestCase):
    def test_table_csv_and_markdown_agree(self):
        with tempfile.TemporaryDirectory() as d:
            base = os.path.join(d, "t")
            md = report.write_table(base, [("a", "A"), ("b", "B")],
                                    [{"a": 1, "b": 0.123456}, {"a": 2, "b": None}],
                                    {"b": 3})
            with open(base + ".csv") as f:
                self.assertEqual(f.read(), "a,b\n1,0.123456\n2,\n")
        self.assertEqual(md.splitlines()[0], "| A | B |")
        self.assertEqual(md.splitlines()[2], "| 1 | 0.123 |")
        self.assertEqual(md.splitlines()[3], "| 2 |  |")

    def test_count_lines(self):
        with tempfile.TemporaryDirectory() as d:
            path = write(d, "log", 'client 1 "obs0" dropped: disconnected\n'
                         'client 2 "obs1" dropped: timed out\n'
                         'client 3 "s0_1" dropped: timed out\n')
            self.assertEqual(runs.count_lines(path, '"obs', "dropped:"), 2)
            self.assertEqual(runs.count_lines(path, "timed out"), 2)
            self.assertEqual(runs.count_lines(os.path.join(d, "none"), "x"), 0)

    def test_numbers_as_awk_wrote_them(self):
        self.assertEqual(report.num(None), "")
        self.assertEqual(report.num(30), "30")
        self.assertEqual(report.num(30.0), "30")
        self.assertEqual(report.num(0.0364), "0.0364")
        self.assertEqual(report.num(1 / 3), "0.333333")
        self.assertEqual(report.num(1 / 3, "%.9g"), "0.333333333")
        self.assertEqual(report.num(0.5, "%.6f"), "0.500000")
        self.assertEqual(report.num("off"), "off")

    def test_env_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "env.txt")
            report.write_env(path, {"rate": 30, "cmd": "qwexp scale --players 1,2"})
            report.write_env(path, [("rate", 20)])
            env = report.read_env(path)
            self.assertEqual(env["rate"], "20")     # the last value holds
            self.assertEqual(env["cmd"], "qwexp scale --players 1,2")
            self.assertEqual(report.read_env(os.path.join(d, "none")), {})

    def test_short_machine_name(self):
        self.assertEqual(report.short_name("AMD EPYC", "kvm VM, docker container", "2"),
                         "amd-epyc-kvm-2cpu")
        self.assertEqual(report.short_name("Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz",
                                           "none", "8"), "intel-xeon-e5-2680-none-8cpu")

    def test_machine_describes_something(self):
        m = report.machine(os.path.join(HERE, "..", ".."))
        self.assertTrue(m["cpus"].isdigit())
        self.assertIn(m["cpus"], report.machine_line(m))



class NetfilterTest(unittest.TestCase):
    """--notrack's table: only loopback UDP, its own table, and a clear
    refusal where nft is missing (nothing here changes the host)."""

    def test_rules_touch_only_loopback_udp_in_their_own_table(self):
        from qwexplib import netfilter
        rules = netfilter.RULES
        self.assertIn("table ip %s" % netfilter.TABLE, rules)
        self.assertEqual(rules.count("udp notrack"), 2)
        self.assertIn('iif "lo" meta l4proto udp notrack', rules)
        self.assertIn('oif "lo" meta l4proto udp notrack', rules)
        self.assertNotIn("drop", rules)

    def test_without_nft_the_run_is_refused_naming_it(self):
        from qwexplib import netfilter
        saved = netfilter.shutil.which
        netfilter.shutil.which = lambda name: None
        try:
            with self.assertRaises(netfilter.NetfilterError) as cm:
                netfilter.exempt_loopback_udp()
            self.assertIn("nft", str(cm.exception))
            netfilter.remove()      # quiet without nft
        finally:
            netfilter.shutil.which = saved

    def test_conntrack_says_one_of_its_forms(self):
        c = report.conntrack()
        self.assertTrue(c == "not loaded" or c.startswith("loaded"), c)


if __name__ == "__main__":
    unittest.main()
