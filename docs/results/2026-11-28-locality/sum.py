#!/usr/bin/env python3
"""sum.py CGR.DIFF [REQUESTS] -- the server's own functions (src/, include/;
not the bench's client, nor the message reads it parses replies with) of a
cachegrind diff, per request: instructions, D1 and LL read and write misses."""
import re
import subprocess
import sys

NAMES = ["Ir", "D1mr", "DLmr", "D1mw", "DLmw"]
ROW = re.compile(r"\s*" + r"\s+".join([r"([-\d,]+) \(\s*[-\d.]+%\)"] * 5) + r"\s+(\S+)")


def main():
    diff, reqs = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 20480
    out = subprocess.run(["cg_annotate", "--show=" + ",".join(NAMES), "--threshold=0", diff],
                         capture_output=True, text=True, check=True).stdout
    tot = [0] * 5
    for line in out.splitlines():
        m = ROW.match(line)
        if not m or "PROGRAM" in line:
            continue
        fn = m.group(6)
        if "/src/client/" in fn or "/tools/" in fn or "msg_read" in fn:
            continue
        if "/src/" not in fn and "/include/" not in fn:
            continue
        for i in range(5):
            tot[i] += int(m.group(i + 1).replace(",", ""))
    print(" ".join("%s %.1f" % (n, v / reqs) for n, v in zip(NAMES, tot)))


if __name__ == "__main__":
    main()
