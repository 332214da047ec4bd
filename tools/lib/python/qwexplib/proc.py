"""proc.py -- what /proc says about a process, and a sampler that asks it
at a fixed period.

Design note
  A sample is two small reads: /proc/PID/stat (utime and stime, in clock
  ticks; the command name may hold spaces and parentheses, so the fields
  are counted from the last ')') and /proc/PID/status (VmRSS and VmHWM in
  kB).  The sampler is one thread that sleeps to absolute deadlines, so
  its cost per second is fixed (two reads a period) whatever the load,
  and it never falls behind by accumulating drift.  A process that is
  gone ends the sampling quietly: the last sample stands.
"""

import os
import threading
import time

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def parse_stat(text):
    """(utime_s, stime_s) from the text of /proc/PID/stat."""
    close = text.rfind(")")
    if close < 0:
        raise ValueError("not a /proc/PID/stat line: no ')'")
    fields = text[close + 2:].split()
    # fields[0] is the state (field 3); utime and stime are fields 14, 15
    if len(fields) < 13:
        raise ValueError("a /proc/PID/stat line with %d fields" % len(fields))
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def parse_status(text):
    """{'VmRSS': kB, 'VmHWM': kB, ...} of the Vm* lines of /proc/PID/status."""
    out = {}
    for line in text.splitlines():
        if line.startswith("Vm") and ":" in line:
            key, _, rest = line.partition(":")
            parts = rest.split()
            if parts and parts[0].isdigit():
                out[key] = int(parts[0])
    return out


def read_sample(pid):
    """(cpu_s, rss_kb, hwm_kb) of pid now, or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            user, system = parse_stat(f.read())
        with open("/proc/%d/status" % pid) as f:
            vm = parse_status(f.read())
    except (OSError, ValueError):
        return None
    return user + system, vm.get("VmRSS", 0), vm.get("VmHWM", 0)


class Sampler:
    """Samples pid every period seconds in a thread: (t, cpu_s, rss_kb,
    hwm_kb) tuples in .samples, t in time.monotonic() seconds."""

    def __init__(self, pid, period=1.0):
        self.pid = pid
        self.period = period
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self.samples

    def _run(self):
        deadline = time.monotonic()
        while not self._stop.is_set():
            s = read_sample(self.pid)
            if s is None:
                return
            self.samples.append((time.monotonic(),) + s)
            deadline += self.period
            self._stop.wait(max(0.0, deadline - time.monotonic()))


def per_interval(samples, t0, interval, count):
    """Samples cut into count intervals of interval seconds from t0: for
    each, (cpu_share, rss_max_kb, hwm_kb) where cpu_share is the CPU time
    used over the interval divided by its length (1.0 = one core), from the
    samples nearest its two ends; None for an interval with no sample."""
    out = []
    for i in range(count):
        a, b = t0 + i * interval, t0 + (i + 1) * interval
        inside = [s for s in samples if a <= s[0] <= b]
        if len(inside) < 2:
            out.append(None)
            continue
        first, last = inside[0], inside[-1]
        span = last[0] - first[0]
        share = (last[1] - first[1]) / span if span > 0 else 0.0
        out.append((share, max(s[2] for s in inside), last[3]))
    return out
