"""test_studyreport.py -- report.md of a scaling-study folder.

Design note
  Two kinds of check.  A folder written here (three scale points: one
  that holds, one saturated, one whose server failed) checks the verdicts
  the report draws: the saturation sentence, the flags, the noise note,
  the rows of a failed point, the captions of the figures present.  And
  the committed result folders of docs/results/, whose report.md the
  first (shell) version of the runner wrote from the same CSVs: the
  report remade from their CSVs must be the same text, but for the lines
  that name the runner and the MVDSV log line (the raw logs are not
  committed).
"""

import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "lib", "python"))

from qwexplib import measure, report, studyreport  # noqa: E402

PARAMS = {"rate": "30", "duration": "10", "warmup": "3", "join_rate": "200",
          "behaviour": "walker", "repeat": "3", "seed": "1", "maxrate": "0",
          "server_cpu": "0", "client_cpu": "1"}


def scale_csv(rows):
    cols = measure.SCALE_HEADER.split(",")
    lines = [measure.SCALE_HEADER]
    for r in rows:
        lines.append(",".join(str(r.get(c, "")) for c in cols))
    return "\n".join(lines) + "\n"


def point(n, rr, p99, other="0.05", **kw):
    r = {"players": n, "rate": 30, "map": "small", "window_s": 10, "in_game": n,
         "status": 0, "requests_per_s": 30 * n, "replies_per_s": 30 * n * rr,
         "response_rate": rr, "rt_mean_ms": 0.2, "rt_p99_ms": p99, "rt_max_ms": 3,
         "client_in_Bps": 1000, "client_out_Bps": 740, "request_bytes": 25,
         "reply_bytes": 100, "srv_cpu_pct": 5, "srv_us_per_request": 20,
         "srv_rss_kb": 10240, "cli_cpu_pct": 2, "other_cpus": other, "srv_intervals": 9,
         "srv_fps": 100, "srv_requests_per_frame": 1.5, "share_world": 0.01,
         "share_receive": 0.02, "share_execute": 0.03, "share_reply": 0.04,
         "share_idle": 0.9}
    r.update(kw)
    return r


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        report.write_env(os.path.join(self.dir, "env.txt"), {
            "date": "2026-11-25", "machine_short": "amd-epyc-kvm-2cpu", "cpu_model": "AMD EPYC",
            "cpus": "2", "virt": "kvm", "scale_cmd": "qwexp.py scale --warmup 3 --players 1,2"})

    def tearDown(self):
        shutil.rmtree(self.dir)

    def make(self, rows):
        with open(os.path.join(self.dir, "scale.csv"), "w") as f:
            f.write(scale_csv(rows))
        return studyreport.make(self.dir, report.read_env(os.path.join(self.dir, "env.txt")),
                                PARAMS)

    def test_verdicts(self):
        failed = {"players": 512, "rate": 30, "map": "small", "status": "server-failed"}
        text = self.make([point(64, 1.0, 0.5),
                          point(256, 0.9, 40.0, other="0.8", srv_intervals=0),
                          failed])
        lines = text.splitlines()
        self.assertEqual(lines[0], "# qwd scaling study: 2026-11-25, amd-epyc-kvm-2cpu")
        self.assertIn("    tools/experiment/qwexp.py scale --warmup 3 --players 1,2", lines)
        self.assertIn("## Scaling: players 1 to 512 on map small", lines)
        self.assertIn("**Saturation point: 256 players** (response rate 0.900 < 0.95 and p99 "
                      "40.0 ms > 33.3 ms; 64 players, the point before, held; criterion: "
                      "response rate below 95% of the request rate, or p99 above one time "
                      "slot, 33.3 ms).", lines)
        self.assertTrue(any(x.startswith("**Noise:** other jobs on this machine used 0.43 "
                                         "CPUs on average (up to 0.80)") for x in lines))
        self.assertIn("| 512 | failed: server-failed |||||||||||", lines)
        self.assertIn("| 256 | no interval inside the window |||||", lines)
        self.assertIn("| 64 | 64 | 1920 | 1920 | 1.0000 | 0.20 / 0.50 / 3.0 | 1000 / 740 | "
                      "25 / 100 | 5.0 | 20.0 | 10.0 | 2.0 | 0.05 |", lines)
        self.assertTrue(any(x.startswith("| 256 **sat** | 256 | 7680 |") for x in lines))
        self.assertIn("| 64 | 100 | 1.50 | 1.0 / 2.0 / 3.0 / 4.0 / 90.0 | - / - / - | - / - "
                      "| - |", lines)
        self.assertIn("| time per point | join at 200 bots/s, 3 s warm-up, then the measured "
                      "window (column window_s); server figures from qwd's stats intervals "
                      "(1 s; 0.5 s for windows under 10 s) whose middle lies inside the "
                      "window |", lines)
        self.assertNotIn("![", text)           # no figure drawn, none named

    def test_unsaturated_and_figures(self):
        with open(os.path.join(self.dir, "fig-cpu.png"), "wb") as f:
            f.write(b"\x89PNG")
        text = self.make([point(1, 1.0, 0.3), point(4, 1.0, 0.4)])
        self.assertIn("**Saturation point: not reached** up to 4 players", text)
        self.assertNotIn("**Noise:**", text)
        self.assertIn("![Server CPU: share of one CPU over the window, and CPU time per "
                      "request.](fig-cpu.png)", text)
        self.assertEqual(text.count("!["), 1)
        self.assertIn("players (CCU) 1 to 4; 30 requests/s per player; requests 25-25 B", text)


def callgrind_rows(mvdsv_rr="0.9990", mvdsv_kept="yes"):
    """compare-callgrind.csv's rows as studyreport.read_csv gives them."""
    return [{"server": "qwd", "players": "32", "in_game": "32", "rate": "20", "map": "lqdm1",
             "window_s": "20.001", "requests": "12800", "replies": "12790",
             "response_rate": "0.9992", "kept_up": "yes", "instructions": "383700000",
             "instructions_per_reply": "30000", "control_ms": "9"},
            {"server": "mvdsv", "players": "32", "in_game": "32", "rate": "20",
             "map": "lqdm1", "window_s": "19.998", "requests": "12800", "replies": "12780",
             "response_rate": mvdsv_rr, "kept_up": mvdsv_kept, "instructions": "1533600000",
             "instructions_per_reply": "120000", "control_ms": "12"}]


class CompareCallgrindTest(unittest.TestCase):
    def test_verdict(self):
        ratio, text = studyreport.compare_callgrind_verdict(callgrind_rows())
        self.assertEqual(ratio, 0.25)                     # 30000 / 120000
        self.assertEqual(text, "qwd 30000 instructions per reply (response rate 0.9992), "
                               "MVDSV + KTX 120000 (response rate 0.9990): qwd / MVDSV + KTX "
                               "= 0.250")
        ratio, text = studyreport.compare_callgrind_verdict(callgrind_rows("0.9780", "no"))
        self.assertIsNone(ratio)
        self.assertTrue(text.endswith("; MVDSV + KTX did not keep up (response rate under "
                                      "0.99): no ratio"), text)
        ratio, text = studyreport.compare_callgrind_verdict(callgrind_rows()[:1])
        self.assertIsNone(ratio)
        self.assertEqual(text, "no instructions per reply for MVDSV + KTX")
        ratio, text = studyreport.compare_callgrind_verdict([])
        self.assertEqual(text, "no instructions per reply for qwd and MVDSV + KTX")

    def test_report_section(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        report.write_env(os.path.join(d, "env.txt"), {
            "date": "2026-11-26", "machine_short": "m",
            "compare_cmd": "qwexp.py compare --warmup 5 --callgrind-rate 20"})
        with open(os.path.join(d, "compare.csv"), "w") as f:
            f.write(measure.COMPARE_HEADER + "\n")
            for server in ("qwd", "mvdsv"):
                f.write(",".join([server, "1", "32", "lqdm1"]
                                 + [""] * (len(measure.COMPARE_HEADER.split(",")) - 4)) + "\n")
        cols = measure.COMPARE_CALLGRIND_HEADER.split(",")
        with open(os.path.join(d, "compare-callgrind.csv"), "w") as f:
            f.write(measure.COMPARE_CALLGRIND_HEADER + "\n")
            for r in callgrind_rows():
                f.write(",".join(r[c] for c in cols) + "\n")
        with open(os.path.join(d, "compare-callgrind-objects.csv"), "w") as f:
            f.write(measure.CALLGRIND_OBJECTS_HEADER + "\n")
            f.write("mvdsv,/usr/games/mvdsv,1200000000,78.25\n"
                    "mvdsv,/usr/lib/quakeworld/ktx/qwprogs.so,333600000,21.75\n")
        text = studyreport.make(d, report.read_env(os.path.join(d, "env.txt")), PARAMS)
        lines = text.splitlines()
        self.assertIn("### Instructions per reply (callgrind)", lines)
        self.assertIn("| MVDSV + KTX | 32 | 20 | 20.0 | 12800 | 12780 | 0.9990 | yes | "
                      "1533600000 | 120000 |", lines)
        self.assertIn("**qwd / MVDSV + KTX, instructions per reply: 0.250** (30000 / 120000, "
                      "both kept up).", lines)
        self.assertIn("- MVDSV + KTX, by object: mvdsv 78.2%, qwprogs.so 21.8%.", lines)
        self.assertIn("warms up for 5 s and measures", text)
        rows = callgrind_rows("0.9780", "no")
        with open(os.path.join(d, "compare-callgrind.csv"), "w") as f:
            f.write(measure.COMPARE_CALLGRIND_HEADER + "\n")
            for r in rows:
                f.write(",".join(r[c] for c in cols) + "\n")
        text = studyreport.make(d, report.read_env(os.path.join(d, "env.txt")), PARAMS)
        self.assertIn("**Not comparable:** qwd 30000 instructions per reply (response rate "
                      "0.9992), MVDSV + KTX 120000 (response rate 0.9780); MVDSV + KTX did "
                      "not keep up (response rate under 0.99): no ratio.", text)
        self.assertNotIn("instructions per reply: 0.250", text)
        self.assertIn("`compare-callgrind.csv` (instructions per reply", text)


class CommittedResultsTest(unittest.TestCase):
    """The reports of docs/results/, remade from their CSVs."""

    def remake(self, name):
        src = os.path.join(ROOT, "docs", "results", name)
        if not os.path.isfile(os.path.join(src, "env.txt")):
            self.skipTest("no docs/results/%s" % name)
        with tempfile.TemporaryDirectory() as d:
            for f in os.listdir(src):
                if os.path.isfile(os.path.join(src, f)):
                    shutil.copy(os.path.join(src, f), d)
            env = report.read_env(os.path.join(d, "env.txt"))
            params = dict(PARAMS)
            params.update({k: env[k] for k in PARAMS if env.get(k)})
            got = studyreport.make(d, env, params).splitlines()
        with open(os.path.join(src, "report.md")) as f:
            want = f.read().splitlines()
        return want, got

    def same_but_runner(self, want, got):
        def keep(lines):
            return [x.replace("`tools/experiment/qwexp.py`", "`tools/experiment/qwexp`")
                    .replace("`qwexp.py floor`", "`qwexp floor`") for x in lines
                    if x and not x.startswith("MVDSV stopped with")]
        self.assertEqual(keep(want), keep(got))

    def test_scaling_study(self):
        self.same_but_runner(*self.remake("2026-11-22-amd-epyc-kvm-2cpu-1024"))

    def test_overhead(self):
        self.same_but_runner(*self.remake("2026-11-22-overhead"))


if __name__ == "__main__":
    unittest.main()
