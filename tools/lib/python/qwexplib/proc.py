"""proc.py -- what /proc says about processes and the machine, and a
sampler that asks it at a fixed period.

Design note
  A process sample reads /proc/PID/task/*/schedstat (nanoseconds on a CPU
  per thread, summed: the precise figure), /proc/PID/stat (utime and
  stime in clock ticks, which split user from kernel time; the command
  name may hold spaces and parentheses, so the fields are counted from
  the last ')') and /proc/PID/status (VmRSS, VmHWM in kB).  Where the
  kernel keeps no schedstat accounting (every thread reads 0) the CPU
  time is utime + stime.  A machine sample is the first line of
  /proc/stat: busy, idle and steal jiffies of every CPU together.
  The sampler is one thread that reads the same few files every period,
  sleeping to absolute deadlines: its cost per second is fixed whatever
  the load, it forks nothing, and it never drifts.  Each sample's time is
  taken just before the first process is read, so the figure the window
  is cut from (the server's CPU) is the one nearest its timestamp.  A
  process that is gone (or a zombie) reads as None; sampling ends when
  every process watched is gone, or on stop().  The threads' schedstat
  sum leaves out threads that have ended: the programs measured here
  (qwd, qwbots, MVDSV, udpecho) have one.
  Window figures: a counter (CPU seconds, jiffies) between two instants
  is interpolated linearly between the samples around each instant (and
  extrapolated from the nearest two beyond the ends), so a window needs
  no sample exactly at its edges.
"""

import os
import threading
import time
from collections import namedtuple

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

# cpu_s: schedstat (or ticks); user_s, sys_s: ticks; memory in kB
ProcSample = namedtuple("ProcSample", "cpu_s user_s sys_s rss_kb hwm_kb")
# jiffies of the whole machine
Machine = namedtuple("Machine", "busy idle steal")
# t: time.monotonic(); procs: a ProcSample or None per pid watched
Sample = namedtuple("Sample", "t procs machine")


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


def parse_schedstat(text):
    """Nanoseconds on a CPU, the first field of a schedstat line."""
    fields = text.split()
    if not fields or not fields[0].isdigit():
        raise ValueError("not a schedstat line: %r" % text[:40])
    return int(fields[0])


def parse_machine(text):
    """Machine(busy, idle, steal) jiffies from the text of /proc/stat:
    busy = user + nice + system + irq + softirq, idle = idle + iowait."""
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == "cpu":
            v = [int(x) for x in f[1:]] + [0] * 8
            return Machine(v[0] + v[1] + v[2] + v[5] + v[6], v[3] + v[4], v[7])
    raise ValueError("no 'cpu' line in /proc/stat")


def _read(path):
    with open(path) as f:
        return f.read()


def read_sample(pid):
    """ProcSample of pid now, or None when it is gone."""
    try:
        ns = 0
        for task in os.listdir("/proc/%d/task" % pid):
            try:
                ns += parse_schedstat(_read("/proc/%d/task/%s/schedstat" % (pid, task)))
            except FileNotFoundError:
                continue    # a thread that just ended
        stat = _read("/proc/%d/stat" % pid)
        if stat[stat.rfind(")") + 2:][:1] in ("Z", "X"):
            return None     # exited, not yet reaped: nothing left to measure
        user, system = parse_stat(stat)
        vm = parse_status(_read("/proc/%d/status" % pid))
    except (OSError, ValueError):
        return None
    cpu = ns / 1e9 if ns > 0 else user + system
    return ProcSample(cpu, user, system, vm.get("VmRSS", 0), vm.get("VmHWM", 0))


def read_machine():
    try:
        return parse_machine(_read("/proc/stat"))
    except (OSError, ValueError):
        return None


def take(pids, machine=False):
    """One Sample of pids (and of the machine when asked) now."""
    t = time.monotonic()
    procs = tuple(read_sample(p) for p in pids)
    return Sample(t, procs, read_machine() if machine else None)


class Sampler:
    """Samples pids (and the machine) every period seconds in a thread.
    .samples holds Sample tuples; .unix_offset turns their t into Unix
    time (time.time() - time.monotonic() at the start)."""

    def __init__(self, pids, period=1.0, machine=False):
        self.pids = tuple(pids) if isinstance(pids, (list, tuple)) else (pids,)
        self.period = period
        self.machine = machine
        self.samples = []
        self.unix_offset = time.time() - time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self, final=False):
        """Ends the sampling; with final, one more sample is taken after
        the thread has ended (the instant a load generator exited)."""
        self._stop.set()
        self._thread.join()
        if final:
            self.samples.append(take(self.pids, self.machine))
        return self.samples

    def _run(self):
        deadline = time.monotonic()
        while not self._stop.is_set():
            s = take(self.pids, self.machine)
            if all(p is None for p in s.procs):
                return
            self.samples.append(s)
            deadline += self.period
            self._stop.wait(max(0.0, deadline - time.monotonic()))


def points(samples, get):
    """(t, value) of every sample where get(sample) is not None."""
    out = []
    for s in samples:
        try:
            v = get(s)
        except (AttributeError, TypeError, IndexError):
            v = None
        if v is not None:
            out.append((s.t, v))
    return out


def proc_field(i, field):
    """A getter for points(): field of the i-th process watched."""
    return lambda s: getattr(s.procs[i], field) if s.procs[i] is not None else None


def machine_field(field):
    return lambda s: getattr(s.machine, field) if s.machine is not None else None


def at(pts, x):
    """The value of a counter at time x, linear between the two points
    around x (extrapolated from the first or last two); None with fewer
    than two points."""
    n = len(pts)
    if n < 2:
        return None
    i = 0
    while i < n - 2 and x > pts[i + 1][0]:
        i += 1
    (t0, v0), (t1, v1) = pts[i], pts[i + 1]
    if t1 == t0:
        return v0
    return v0 + (v1 - v0) * (x - t0) / (t1 - t0)


def growth(pts, a, b):
    """How much the counter grew from time a to time b, or None."""
    va, vb = at(pts, a), at(pts, b)
    if va is None or vb is None:
        return None
    return vb - va


def per_interval(samples, t0, interval, count, which=0):
    """Samples cut into count intervals of interval seconds from t0: for
    each, (cpu_share, rss_max_kb, hwm_kb) of the process watched at index
    which, where cpu_share is the CPU time used over the interval divided
    by its length (1.0 = one core), from the samples nearest its two ends;
    None for an interval with fewer than two samples."""
    out = []
    for i in range(count):
        a, b = t0 + i * interval, t0 + (i + 1) * interval
        inside = [(s.t, s.procs[which]) for s in samples
                  if a <= s.t <= b and s.procs[which] is not None]
        if len(inside) < 2:
            out.append(None)
            continue
        (ta, first), (tb, last) = inside[0], inside[-1]
        span = tb - ta
        share = (last.cpu_s - first.cpu_s) / span if span > 0 else 0.0
        out.append((share, max(p.rss_kb for _, p in inside), last.hwm_kb))
    return out
