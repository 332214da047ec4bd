#!/usr/bin/env python3
"""cgdiff.py SHORT LONG [COLUMN] [ROWS] -- the steady state of two cgc.sh
runs that differ only in their measured rounds: each function's own
instructions (Ir), L1 read misses (D1mr), last-level (here L2) read and
write misses (DLmr, DLmw) in LONG minus those in SHORT, so that the join
and the warm-up, the same in both, cancel.  COLUMN sorts by 0 Ir, 1 D1mr,
2 DLmr (default), 3 DLmw; ROWS (25) are printed, each with its share of
the column's steady-state total."""
import re
import subprocess
import sys

EVENTS = "Ir,D1mr,DLmr,DLmw"
ROW = re.compile(r"\s*([\d,]+)\s+\(.*?\)" + r"\s+([\d,.]+)\s*(?:\(.*?\))?" * 3 + r"\s+(.*)$")


def load(path):
    """(totals, {function: [Ir, D1mr, DLmr, DLmw]}) of one callgrind file"""
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--show=" + EVENTS,
                          "--threshold=100", "--auto=no", path],
                         capture_output=True, text=True, check=True).stdout
    totals, funcs = None, {}
    for line in out.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        vals = [0 if x == "." else int(x.replace(",", "")) for x in m.groups()[:4]]
        name = re.sub(r"^.*?/(src|include|tools)/", r"\1/", m.group(5).split(" [")[0])
        if "PROGRAM TOTALS" in name:
            totals = vals
            continue
        acc = funcs.setdefault(name, [0, 0, 0, 0])
        for i in range(4):
            acc[i] += vals[i]
    return totals, funcs


def main():
    short_tot, short = load(sys.argv[1])
    long_tot, long_ = load(sys.argv[2])
    col = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    rows = int(sys.argv[4]) if len(sys.argv) > 4 else 25
    total = [long_tot[i] - short_tot[i] for i in range(4)]
    diff = {n: [v[i] - short.get(n, [0] * 4)[i] for i in range(4)] for n, v in long_.items()}
    print("steady state: Ir %d D1mr %d DLmr %d DLmw %d" % tuple(total))
    print("%12s %10s %10s %9s  %6s  %s" % ("Ir", "D1mr", "DLmr", "DLmw", "share", "function"))
    for name, v in sorted(diff.items(), key=lambda x: -x[1][col])[:rows]:
        print("%12d %10d %10d %9d  %5.1f%%  %s" % (v[0], v[1], v[2], v[3],
                                                  100.0 * v[col] / max(total[col], 1), name))


if __name__ == "__main__":
    main()
