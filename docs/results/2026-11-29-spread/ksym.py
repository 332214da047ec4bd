#!/usr/bin/env python3
"""ksym.py QWD.data ECHO.data [RATE SECONDS] -- where qwd's kernel time per
request differs from the UDP echo's: two `perf record -p PID -- sleep
SECONDS` profiles (cpu-clock at perf's default 4000 Hz, so a sample is
250 us of CPU), one of qwd in a qwexp scale run and one of udpecho --serve
in the qwexp floor run made from it, at RATE requests a second in all
(30720: 1024 players at 30).  Prints each side's us a request, all and
kernel, then the kernel symbols by qwd's excess over the echo, us a
request."""
import re
import subprocess
import sys

SAMPLE_US = 250.0


def load(path):
    out = subprocess.run(["perf", "report", "-i", path, "--no-children", "--sort", "sym",
                          "-F", "sample,sym", "--stdio"],
                         capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+\[(.)\]\s+(\S+)", line)
        if m:
            syms[(m.group(2), m.group(3))] = int(m.group(1))
    return syms


def main():
    qwd, echo = load(sys.argv[1]), load(sys.argv[2])
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 30720.0
    secs = float(sys.argv[4]) if len(sys.argv) > 4 else 8.0
    k = SAMPLE_US / (rate * secs)

    def total(d, kernel_only):
        return sum(v for (t, _), v in d.items() if t == "k" or not kernel_only) * k

    print("us a request: qwd %.2f (kernel %.2f), echo %.2f (kernel %.2f)"
          % (total(qwd, False), total(qwd, True), total(echo, False), total(echo, True)))
    rows = sorted(((qwd.get(s, 0) - echo.get(s, 0)) * k, qwd.get(s, 0) * k, echo.get(s, 0) * k, s[1])
                  for s in set(qwd) | set(echo) if s[0] == "k")
    print("  excess     qwd    echo  kernel symbol")
    for r in rows[::-1][:25] + [None] + rows[:8]:
        print("  ..." if r is None else "  %+.3f  %6.3f  %6.3f  %s" % r)


if __name__ == "__main__":
    main()
