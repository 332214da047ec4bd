#!/usr/bin/env python3
"""cgsum.py T1 T2S -- the instruction figures of README.md from two
callgrind runs of framebench (--separate-threads=yes
--dump-before=server_exec_stats: part 2 is the measured frames), T1 the
sequential frame's thread-1 part-2 file, T2S the speculative run's
(2 threads, sv_threads_execute 3).  Callgrind runs the threads one at a
time, so the coordinator's file holds its share of the parallel items;
the items' total is their mean on the coordinator times their count
(moves: spec_item, one per queued move; replies: send_reply, as many as
the sequential run built, the replies being the same).  The model:
Q = the coordinator's frame less its items is sequential; the items
(P) divide among W workers; makespan(W) = Q + P / W."""
import re
import subprocess
import sys


def incl(path):
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", path],
                         capture_output=True, text=True).stdout
    fn = {}
    calls = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(=> )?\S*:(\w+)(?:'\d+)?(?: \[.*?\])?(?: \(([\d,]+)x\))?$", line)
        if not m:
            continue
        ir = int(m.group(1).replace(",", ""))
        name = m.group(3)
        if m.group(2):
            if m.group(4):
                calls[name] = calls.get(name, 0) + int(m.group(4).replace(",", ""))
            continue
        fn.setdefault(name, ir)
    return fn, calls


t1, c1 = incl(sys.argv[1])
ts, cs = incl(sys.argv[2])
F1 = t1["server_frame"]
coord = ts["server_frame"]
moves = c1.get("game_client_cmd", 0)
replies = c1.get("send_reply", 0)
S_c, R_c, pf_c = ts.get("spec_item", 0), ts.get("reply_item", 0), ts.get("prefill_item", 0)
S = S_c / cs["spec_item"] * moves
R = R_c / cs["reply_item"] * replies
pf = 2 * pf_c
Q = coord - S_c - R_c - pf_c
P = S + R + pf
W = P - S_c - R_c - pf_c
print("moves %d, replies %d" % (moves, replies))
print("per request (k instructions): sequential frame %.1f (pmove %.1f, replies %.1f);"
      " speculative: coordinator %.1f, of it sequential %.1f; ahead %.1f, replies %.1f"
      % (F1 / moves / 1e3, t1.get("pmove_run", 0) / moves / 1e3, t1.get("sv_send_replies", 0) / moves / 1e3,
         coord / moves / 1e3, Q / moves / 1e3, S / moves / 1e3, R / moves / 1e3))
print("share of the frame's instructions on the second thread: %.1f%%" % (100 * W / (coord + W)))
print("second worker busy in the 2-worker model: %.1f%% of the makespan" % (100 * (P / 2) / (Q + P / 2)))
for w in (1, 2, 4, 8, 16):
    mk = Q + P / w
    print("W=%2d makespan %.1fk per request, %.2fx the sequential frame" % (w, mk / moves / 1e3, F1 / mk))
Qr = F1 - t1.get("sv_send_replies", 0)
print("replies only (model from the sequential run): " + ", ".join(
    "W=%d %.2fx" % (w, F1 / (Qr + t1.get("sv_send_replies", 0) / w)) for w in (2, 4, 8, 16)))
