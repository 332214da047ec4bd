"""test_qwexp_args.py -- qwexp.py's options for the parallel frame: the
server's CPUs as taskset takes them, the thread count, and how both show
in the run's command line and its report; and the cvars qwd starts with
(--qwd-set).

Design note
  qwexp.py is loaded as a module from its path (its main runs only as a
  script); nothing here starts a server."""

import argparse
import importlib.util
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "lib", "python"))

from qwexplib import studyreport  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "qwexp", os.path.join(ROOT, "tools", "experiment", "qwexp.py"))
qwexp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(qwexp)


class ThreadsOptionsTest(unittest.TestCase):
    def test_cpu_lists(self):
        for good in ("0", "1", "0,1", "0-1", "0-3,6"):
            self.assertEqual(qwexp.cpu_list(good), good)
        for bad in ("", "a", "0,", "-1", "0-1-2", "0;1"):
            with self.assertRaises(argparse.ArgumentTypeError):
                qwexp.cpu_list(bad)

    def test_command_line_says_threads_and_cpus(self):
        a = argparse.Namespace(threads=1, server_cpu="0")
        self.assertEqual(qwexp.threads_options(a), "")
        a = argparse.Namespace(threads=2, server_cpu="0,1")
        self.assertEqual(qwexp.threads_options(a), " --threads 2 --server-cpu 0,1")

    def test_qwd_settings(self):
        self.assertEqual(qwexp.cvar_setting("sys_ticrate 0.005"), ("sys_ticrate", "0.005"))
        self.assertEqual(qwexp.cvar_setting("  hostname  a b "), ("hostname", "a b"))
        for bad in ("", "sys_ticrate", "1x 2", "a;b 1", "sv_x 1;quit", 'sv_x "1', "sv_x 1\nquit"):
            with self.assertRaises(argparse.ArgumentTypeError):
                qwexp.cvar_setting(bad)
        a = argparse.Namespace(qwd_set=[("sys_ticrate", "0.005"), ("sv_mintic", "0.01")])
        self.assertEqual(qwexp.qwd_set_options(a),
                         " --qwd-set 'sys_ticrate 0.005' --qwd-set 'sv_mintic 0.01'")
        self.assertEqual(qwexp.qwd_set_options(argparse.Namespace(qwd_set=[])), "")

    def test_report_says_how_many_threads(self):
        self.assertEqual(studyreport.threads_text({}), "one thread")
        self.assertEqual(studyreport.threads_text({"threads": "1"}), "one thread")
        self.assertEqual(studyreport.threads_text({"threads": "2"}),
                         "2 threads (-threads 2: docs/parallel.md)")


if __name__ == "__main__":
    unittest.main()
