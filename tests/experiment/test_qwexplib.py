"""test_qwexplib.py -- the experiment runner's parsing and statistics.

Design note
  What the runner computes from files (/proc texts, qwbots' series and
  reports, scale.csv) is tested on texts written here, so a change of a
  format or a formula fails here, not in the middle of a 30-minute soak.
  One test samples this very process through /proc, the real reader.
"""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "lib", "python"))

from qwexplib import proc, report, runs, series  # noqa: E402

SERIES_HEADER = ("t,phase,in_game,requests_per_s,replies_per_s,response_rate,"
                 "rt_p50_ms,rt_p99_ms,rt_max_ms,bytes_in_per_s,bytes_out_per_s,bad\n")


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

    def test_per_interval(self):
        # one core busy half the time, RSS growing 1 MB a second
        samples = [(t, 0.5 * t, 1000 + 1024 * t, 9000) for t in range(0, 21)]
        cut = proc.per_interval(samples, 0, 10, 3)
        self.assertAlmostEqual(cut[0][0], 0.5)
        self.assertEqual(cut[0][1], 1000 + 1024 * 10)
        self.assertEqual(cut[1][1], 1000 + 1024 * 20)
        self.assertIsNone(cut[2])  # no sample beyond t = 20

    def test_sampler_reads_this_process(self):
        s = proc.Sampler(os.getpid(), 0.05).start()
        x = 0
        for i in range(200000):
            x += i
        import time
        time.sleep(0.3)
        got = s.stop()
        self.assertGreaterEqual(len(got), 3)
        self.assertGreater(got[-1][2], 0)          # RSS
        self.assertGreaterEqual(got[-1][1], got[0][1])  # CPU never goes back

    def test_sampler_of_a_gone_process(self):
        self.assertIsNone(proc.read_sample(2 ** 22 + 7))


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

    def test_machine_describes_something(self):
        m = report.machine(os.path.join(HERE, "..", ".."))
        self.assertTrue(m["cpus"].isdigit())
        self.assertIn(m["cpus"], report.machine_line(m))


if __name__ == "__main__":
    unittest.main()
