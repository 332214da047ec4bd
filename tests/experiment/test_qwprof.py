"""test_qwprof.py -- qwprof's tables from valgrind's outputs.

Design note
  The inputs are the summaries of a real run (qwprof --bots 2 --rate 5
  --duration 2 --warmup 1 --all on lqdm1, valgrind 3.19), and the
  expected tables are what the first, shell version of qwprof printed for
  that run: the Python tables must be the same text for the same counts.
  One figure of each table is also worked out by hand in a comment.
"""

import importlib.util
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "lib", "python"))

from qwexplib import valgrind  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "qwprof", os.path.join(ROOT, "tools", "qwprof", "qwprof.py"))
qwprof = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(qwprof)

DESC = """\
desc: I1 cache:         32768 B, 64 B, 8-way associative
desc: D1 cache:         32768 B, 64 B, 8-way associative
desc: LL cache:         33554432 B, 64 B, 16-way associative
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim
"""
CG0 = DESC + ("summary: 160625170 5142 3041 53979220 1576176 21106 3033797 50462 29269 "
              "29886966 848240 24159 1504\n")
CG = DESC + ("summary: 163963016 15548 3780 54941416 1607458 21178 3446541 59506 30032 "
             "30385829 874002 42735 1993\n")

# branches: (30385829 - 29886966 + 42735 - 24159) / (163963016 - 160625170)
#         = 517439 / 3337846 = 15.50%
CG_TABLES = """\
Ir (instructions executed): 3337846 under load (whole run 163963016, start-up baseline 160625170)

Table I. Instruction mix -- simulated (cachegrind, I1 32 kB 8-way 64 B lines, D1 32 kB 8-way 64 B lines, LL 32768 kB 16-way 64 B lines)
  class                                                      simulated  study
  branches ((Bc + Bi) / Ir)                                     15.50%  15.7%
    conditional (Bc / Ir)                                       14.95%
    indirect (Bi / Ir)                                           0.56%
  memory instructions ~ (Dr + Dw) / Ir (references)             41.19%  63.5%
    reading ~ Dr / Ir                                           28.83%
    writing ~ Dw / Ir                                           12.37%
  other ~ 1 - branches - memory                                 43.31%
  floating point                                             see lackey  4.8%

Table II. Miss and misprediction rates -- simulated (cachegrind, I1 32 kB 8-way 64 B lines, D1 32 kB 8-way 64 B lines, LL 32768 kB 16-way 64 B lines)
  rate                                                       simulated  study
  I1 misses / instruction fetch (I1mr / Ir)                      0.31%
  LL instruction misses / fetch (ILmr / Ir)                      0.02%
  D1 misses / data reference ((D1mr + D1mw) / (Dr + Dw))         2.93%
    D1 read misses / read (D1mr / Dr)                            3.25%
    D1 write misses / write (D1mw / Dw)                          2.19%
  LL data misses / data reference ((DLmr + DLmw) / (Dr + Dw))     0.06%
  LL data misses / D1 data miss (local LL miss rate)             2.07%
  branch mispredictions / branch ((Bcm + Bim) / (Bc + Bi))       5.07%  14%
    conditional (Bcm / Bc)                                       5.16%
    indirect (Bim / Bi)                                          2.63%

Table III. Share of references served by each level -- simulated (cachegrind, I1 32 kB 8-way 64 B lines, D1 32 kB 8-way 64 B lines, LL 32768 kB 16-way 64 B lines)
  references                            L1        LL    memory
  data (Dr + Dw)                    97.07%     2.87%     0.06%
    reads (Dr)                      96.75%     3.24%     0.01%
    writes (Dw)                     97.81%     2.01%     0.18%
  instruction fetches (Ir)          99.69%     0.29%     0.02%
"""

LK0 = """\
==14692==   total:         29,965,130
==14692==   guest instrs:  160,616,542
==14692==    I1              0            0   59,118,008
==14692==    I8      2,156,917    1,727,597    5,207,715
==14692==    I16        89,192        7,139       66,295
==14692==    I32    50,972,099   24,413,203   88,964,283
==14692==    I64       626,018      413,794  176,824,898
==14692==    I128            0            0          251
==14692==    F32         1,883            0       18,279
==14692==    F64            26            0      129,421
==14692==    V128       92,971       98,678      115,265
==14692==    V256       37,703        8,984       55,945
""".replace("==14692==   total", "==14692== Jccs:\n==14692==   total")
LK = """\
==14885== Jccs:
==14885==   total:         30,465,448
==14885==   guest instrs:  163,943,469
==14885==    I1              0            0   60,166,264
==14885==    I8      2,269,619    1,773,630    5,413,144
==14885==    I16        98,895       12,818       94,795
==14885==    I32    51,337,659   24,482,673   90,077,395
==14885==    I64     1,047,696      694,322  180,773,476
==14885==    I128            0            0          501
==14885==    F32        14,030            0       21,906
==14885==    F64         2,171            0      286,604
==14885==    V128       99,139      126,986      299,668
==14885==    V256       65,444       10,318      129,190
"""
# guest instructions: 163943469 - 160616542 = 3326927
LK_TABLE = """\
Table I (lackey). Instruction mix -- simulated (lackey --detailed-counts=yes; 2 bots at 5 requests/s, 2 s window; minus start-up baseline)
  guest instructions: 3326927; VEX IR operations per guest instruction: loads 0.288, stores 0.130, ALU 2.033
  class                                                      simulated  study
  conditional jumps (Jccs / guest instrs)                       15.04%  15.7% (all branches)
  memory ops ~ (IR loads + stores) / guest instrs               41.76%  63.5%
    loads                                                       28.79%
    stores                                                      12.97%
  floating point ~ (F32/F64 IR ops) / guest instrs               5.26%  4.8%
    of which FP arithmetic (F32/F64 ALU)                         4.83%
  vector (V128/V256 ALU) / guest instrs                          7.74%
  (VEX IR operations counted against x86 instructions: one instruction may make several
   IR operations, so the memory and FP shares are upper bounds)
"""

ANNOTATE = """\
3,570,140 (100.0%)  PROGRAM TOTALS
Ir                  file:function
3,570,140 (100.0%)  /w/src/server/frame.c:server_frame [/w/build/qwd]
1,745,145 (48.88%)  /w/src/server/user.c:sv_client_packet [/w/build/qwd]
1,551,148 (43.45%)  /w/src/server/user.c:run_cmd [/w/build/qwd]
  985,668 (27.61%)  /w/src/game/game.c:game_frame [/w/build/qwd]
  449,149 (12.58%)  /w/src/server/send.c:sv_send_replies [/w/build/qwd]
  156,008 ( 4.37%)  /w/src/net/udp.c:net_udp_recv_batch [/w/build/qwd]
1,745,145 (48.88%)  => /w/src/server/user.c:sv_client_packet (49x)
"""
# receive: 156008 + 1745145 - 1551148 = 350005
PHASES = """\
Instructions per phase -- simulated (callgrind --toggle-collect=server_frame; 2 bots at 5 requests/s, 2 s window)
  frames (server_frame inclusive): 3570140 instructions
  phase (function, inclusive Ir)                                    Ir     share
  world (game_frame)                                            985668    27.61%
  receive (recv batch + sv_client_packet - execute)             350005     9.80%
  execute (run_cmd)                                            1551148    43.45%
  reply (sv_send_replies)                                       449149    12.58%
  other (select, upkeep, profiler, netchan outside)             234170     6.56%
  (user-space instructions only: system calls such as sendmmsg and recvmmsg run in the kernel, uncounted)
"""


class TablesTest(unittest.TestCase):
    def test_cachegrind(self):
        got = qwprof.cachegrind_tables(valgrind.parse_cachegrind(CG0),
                                       valgrind.parse_cachegrind(CG))
        self.assertEqual("\n".join(got) + "\n", CG_TABLES)

    def test_cachegrind_without_branches(self):
        nob = valgrind.parse_cachegrind(DESC.replace(" Bc Bcm Bi Bim", "")
                                        + "summary: 1 0 0 1 0 0 1 0 0\n")
        with self.assertRaises(qwprof.Fail):
            qwprof.cachegrind_tables(nob, nob)

    def test_lackey(self):
        got = qwprof.lackey_table(valgrind.parse_lackey(LK0), valgrind.parse_lackey(LK),
                                  2, "5", "2")
        self.assertEqual("\n".join(got) + "\n", LK_TABLE)
        same = valgrind.parse_lackey(LK)
        with self.assertRaises(qwprof.Fail):
            qwprof.lackey_table(same, same, 2, "5", "2")

    def test_phases(self):
        got = qwprof.phase_table(ANNOTATE, 2, "5", "2")
        self.assertEqual("\n".join(got) + "\n", PHASES)


if __name__ == "__main__":
    unittest.main()
