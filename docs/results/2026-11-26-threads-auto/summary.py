#!/usr/bin/env python3
"""summary.py RAW...: for each run folder (run.sh's raw/hHIGH-lLOW), the
pool's decisions (qwd's INFO lines) and, every 5 s from the first wave's
start, the workers active, the last need and the prediction (the console's
"threads" line, one a second), with the bots the waves had then."""
import re
import sys

LINE = re.compile(r"threads: auto, (\d+) active of (\d+), need ([\d.]+) predicted ([\d.]+)")


def bots_at(t):
    """the waves of run.sh: 300 from 0 s, +300 at 15 s, +300 at 30 s,
    ending at 47, 62 and 77 s (join times aside)"""
    return 300 * ((0 <= t < 77) + (15 <= t < 62) + (30 <= t < 47))


for d in sys.argv[1:]:
    print(f"== {d}")
    with open(f"{d}/qwd.log") as f:
        text = f.read().splitlines()
    for line in text:
        if "INFO threads: need" in line:
            print("  " + line)
    rows = [LINE.search(line) for line in text]
    rows = [m for m in rows if m]
    print("    t  bots active  need  predicted")
    for t, m in enumerate(rows):
        if t % 5 == 0:
            print(f"  {t:3d}  {bots_at(t):4d}  {m.group(1):>4}  {m.group(3):>6} {m.group(4):>6}")
