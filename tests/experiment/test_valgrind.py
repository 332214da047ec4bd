"""test_valgrind.py -- the readers of callgrind_annotate, cachegrind and
lackey output.

Design note
  The texts are cut from real outputs of valgrind 3.19 on qwd (a 2-bot
  run on lqdm1), shortened; the expected figures are the sums of the
  lines kept, worked out by hand.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "lib", "python"))

from qwexplib import valgrind  # noqa: E402

ANNOTATE = """\
--------------------------------------------------------------------------------
Profile data file 'cl.out' (creator: callgrind-3.19.0)
--------------------------------------------------------------------------------
Events recorded:  Ir
Thresholds:       100
--------------------------------------------------------------------------------
Ir                 
--------------------------------------------------------------------------------
3,570,140 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                file:function
--------------------------------------------------------------------------------
377,825 (10.58%)  /w/src/world/trace.c:bsp_hull_point_contents [/w/build/qwd]
256,033 ( 7.17%)  /w/src/world/trace.c:hull_check [/w/build/qwd]
 75,446 ( 2.11%)  /w/src/world/trace.c:hull_check'2 [/w/build/qwd]
 12,000 ( 0.34%)  /w/src/prof/prof.c:prof_switch [/w/build/qwd]
  3,000 ( 0.08%)  /w/src/prof/timer.c:timer_now [/w/build/qwd]
    700 ( 0.02%)  /w/src/common/hist.c:qwd_hist_add [/w/build/qwd]
    400 ( 0.01%)  /w/src/common/msg.c:msg_write_byte [/w/build/qwd]
  2,500 ( 0.07%)  ./time/../sysdeps/unix/sysv/linux/clock_gettime.c:clock_gettime@@GLIBC_2.17 [/usr/lib/libc.so.6]
  9,999 ( 0.28%)  < /w/src/server/frame.c:server_frame => /w/src/prof/prof.c:prof_switch (1x)
"""

CACHEGRIND = """\
desc: I1 cache:         32768 B, 64 B, 8-way associative
desc: D1 cache:         32768 B, 64 B, 8-way associative
desc: LL cache:         33554432 B, 64 B, 16-way associative
cmd: /w/build/qwd -noconsole -port 28195 +map lqdm1
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim
fl=./csu/../csu/libc-start.c
fn=__libc_start_main@@GLIBC_2.34
128 2 1 1 2 1 0 0 0 0 0 0 0 0
summary: 163963016 15548 3780 54941416 1607458 21178 3446541 59506 30032 30385829 874002 42735 1993
"""

LACKEY = """\
==14885== Jccs:
==14885==   total:         30,465,448
==14885==   taken:         26,785,227 (88%)
==14885== 
==14885== Executed:
==14885==   guest instrs:  163,943,469
==14885== Ratios:
==14885==   guest instrs : SB entered  = 93 : 10
==14885== IR-level counts by type:
==14885==    Type        Loads       Stores       AluOps
==14885==    -------------------------------------------
==14885==    I32    51,337,659   24,482,673   90,077,395
==14885==    F64         2,171            0      286,604
==14885==    V128       99,139      126,986      299,668
==14885== Exit code:       0
"""


# a dump taken while main and __libc_start_main were under way (the
# "calls=0" line holds the inclusive cost of main so far), cut down from
# a real one of qwd; summary (the thread's counter) and totals (the sum of
# the functions' self costs) differ slightly, as in real dumps
CALLGRIND = """\
# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 8475
cmd:  /w/build/qwd -port 28903
part: 1


desc: Timerange: Basic block 0 - 152092477
desc: Trigger: dump

positions: line
events: Ir
summary: 705


ob=(3) /usr/lib/libc.so.6
fl=(202) ./string/memset.S
fn=(936) memset
167 100
+5 20

ob=(18) /w/build/qwd
fl=(195) /w/src/server/main.c
fn=(900) main
58 300
cob=(3)
cfi=(202)
cfn=(936)
calls=3 167
* 120
+2 50

fl=(196) /w/src/server/send.c
fn=(901) send_reply
10 200
fi=(195)
20 30
fe=(196)
12 10

ob=(3)
fl=(190) ./csu/libc-start.c
fn=(874) __libc_start_main
cob=(18)
cfi=(195)
cfn=(900)
calls=0 29
360 1000
fn=(936)
-190 7

totals: 717
"""


class CallgrindTest(unittest.TestCase):
    def test_self_costs(self):
        cg = valgrind.parse_callgrind(CALLGRIND)
        self.assertEqual((cg["summary"], cg["totals"]), (705, 717))
        # main: 300 + 50 (the 120 after "calls=" is memset's); send_reply:
        # 200 + 10 in send.c, 30 inlined from main.c; memset: 100 + 20, and
        # 7 more where it is named again by its number alone;
        # __libc_start_main: nothing of its own (its line is main's, so far)
        self.assertEqual(cg["entries"], [
            (350, "/w/src/server/main.c:main [/w/build/qwd]"),
            (210, "/w/src/server/send.c:send_reply [/w/build/qwd]"),
            (120, "./string/memset.S:memset [/usr/lib/libc.so.6]"),
            (30, "/w/src/server/main.c:send_reply [/w/build/qwd]"),
            (7, "./csu/libc-start.c:memset [/usr/lib/libc.so.6]")])
        self.assertEqual(valgrind.object_costs(cg["entries"]),
                         [("/w/build/qwd", 590), ("/usr/lib/libc.so.6", 127)])

    def test_listing_reads_back(self):
        cg = valgrind.parse_callgrind(CALLGRIND)
        text = valgrind.listing(cg)
        self.assertIn("705 (100.0%)  PROGRAM TOTALS", text)
        self.assertIn("350 (49.65%)  /w/src/server/main.c:main [/w/build/qwd]", text)
        self.assertEqual(valgrind.parse_annotate(text), (705, cg["entries"]))

    def test_incomplete(self):
        # cut before "totals:", a cost missing, no summary
        self.assertIsNone(valgrind.parse_callgrind(CALLGRIND.replace("totals: 717", "")))
        self.assertIsNone(valgrind.parse_callgrind(CALLGRIND.replace("+2 50\n", "")))
        self.assertIsNone(valgrind.parse_callgrind(CALLGRIND.replace("summary: 705", "")))
        self.assertIsNone(valgrind.parse_callgrind(""))


class AnnotateTest(unittest.TestCase):
    def test_totals_and_entries(self):
        total, entries = valgrind.parse_annotate(ANNOTATE)
        self.assertEqual(total, 3570140)
        self.assertEqual(len(entries), 8)           # the "=>" line is a call
        self.assertEqual(entries[0][0], 377825)
        fns = valgrind.by_function(entries)
        self.assertEqual(fns["hull_check"], 256033)
        self.assertEqual(fns["hull_check'2"], 75446)
        self.assertEqual(fns["clock_gettime@@GLIBC_2.17"], 2500)

    def test_profiler_cost(self):
        _, entries = valgrind.parse_annotate(ANNOTATE)
        # the histogram the profiler fills is its own; the message
        # buffers of src/common are the server's
        self.assertEqual(valgrind.profiler_cost(entries), (12000 + 3000 + 700, 2500))

    def test_no_listing(self):
        self.assertEqual(valgrind.parse_annotate(""), (None, []))

    def test_object_costs(self):
        _, entries = valgrind.parse_annotate(ANNOTATE)
        # qwd: 377825 + 256033 + 75446 + 12000 + 3000 + 700 + 400; libc: 2500
        self.assertEqual(valgrind.object_costs(entries),
                         [("/w/build/qwd", 725404), ("/usr/lib/libc.so.6", 2500)])
        # a game module is an object of its own; an entry without one is "?"
        more = [(10, "???:0x00d7e70 [/usr/lib/quakeworld/ktx/qwprogs.so]"),
                (30, "???:0x0021170 [/usr/games/mvdsv]"), (10, "x.c:f [/usr/games/mvdsv]"),
                (5, "no object")]
        self.assertEqual(valgrind.object_costs(more),
                         [("/usr/games/mvdsv", 40), ("/usr/lib/quakeworld/ktx/qwprogs.so", 10),
                          ("?", 5)])
        self.assertEqual(valgrind.object_costs([]), [])


class CachegrindTest(unittest.TestCase):
    def test_summary_and_caches(self):
        cg = valgrind.parse_cachegrind(CACHEGRIND)
        self.assertEqual(cg["events"]["Ir"], 163963016)
        self.assertEqual(cg["events"]["Bim"], 1993)
        self.assertEqual(valgrind.cache_short(cg["desc"]["LL"]), "32768 kB 16-way 64 B lines")
        self.assertEqual(valgrind.cache_short(cg["desc"]["I1"]), "32 kB 8-way 64 B lines")

    def test_incomplete(self):
        self.assertIsNone(valgrind.parse_cachegrind(CACHEGRIND.rsplit("summary", 1)[0]))
        self.assertIsNone(valgrind.parse_cachegrind(
            CACHEGRIND.replace("summary: 163963016 ", "summary: ")))


class LackeyTest(unittest.TestCase):
    def test_counts(self):
        c = valgrind.parse_lackey(LACKEY)
        self.assertEqual(c["guest"], 163943469)
        self.assertEqual(c["jcc"], 30465448)
        self.assertEqual(c["loads"], 51337659 + 2171 + 99139)
        self.assertEqual(c["alu"], 90077395 + 286604 + 299668)
        self.assertEqual((c["fp_loads"], c["fp_alu"]), (2171, 286604))
        self.assertEqual(c["vector_alu"], 299668)

    def test_no_counts(self):
        self.assertIsNone(valgrind.parse_lackey("==1== Exit code: 0\n"))


if __name__ == "__main__":
    unittest.main()
