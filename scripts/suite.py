#!/usr/bin/env python3
"""suite.py -- what `make test` runs: every test, on every core.

Design note: the suite is a set of jobs with dependencies, run at the same
time on the cores this process may use (nproc; --jobs N or $QWD_TEST_JOBS
overrides), each job's output kept in its own file and printed whole when
the job ends, so a log reads job by job whatever the order they ran in.

  layers       scripts/check-layers.sh (the include layering)
  experiment   tests/experiment/run.py (the Python tools' tests)
  build        make -jN all test-programs: the server, the tools, the
               maps, one cmocka program per tests/<module>/ folder
  san-build    make -jN check-build: the same programs under AddressSanitizer
               and UBSan with the server's self-checks (build/san); it makes
               no maps, so it runs beside build from the start, and goes
               on while the plain programs run
  tsan-build   make -jN tsan-build (build/tsan), then tsan: scripts/tsan.sh
  programs     every test program of build and of build/san, one job per
               cmocka group ("PROGRAM --list" names them; "--group NAME"
               runs one): test_server alone is 17 groups and the longest
               program, and its groups mostly wait on clocks and sockets,
               so they run side by side; its protocol groups run once
               more on the select path (QWD_NET=select: the server picks
               io_uring where the kernel grants it)
  interop      every tests/interop/*.sh against the plain build

Which programs and scripts exist is read when the suite runs (the
Makefile's list-tests target; the interop folder's *.sh), so a new
tests/<module>/ folder or interop script is run without editing this file.
A job becomes ready when the jobs it needs have passed (a failed build
fails its dependents, said so, and the suite).  Ready jobs start builds
first, then longest first, by the wall time of the last run on this
machine (BUILD/suite-times.json), else ESTIMATE's rough figure, else a
guess.  Each job is counted as holding its CPU share (its CPU time over
its wall time, from the same sources; a build running make -jN about 2):
jobs start in that order while the jobs running hold less than the
cores, and past that a light job (share at most LIGHT: most test groups
and peer sessions wait on clocks and sockets) still starts while they
hold less than twice the cores; never more than JOBS_PER_CORE jobs a
core.  So the waiting tests run beside the builds and the CPU-bound
programs without taking their cores.

Tests own their ports and temporary folders (tests/interop/lib/port.sh,
mktemp; the C fixtures ask the kernel for a port), so no two jobs collide.

The output contract is the serial runner's: each stage prints its totals
line "NAME: N passed, M failed[, K skipped (why)]" (the program stages as
"tests (BUILD): ..." with the reasons counted, from the "[  REASON  ]"
lines of tests/harness.h); the last lines are the skip reasons by stage
and "tests: N passed, M failed, K skipped", the sum of every such line
printed; the exit status is 1 when any job failed.  Before those, each
job's wall and CPU time, and the ten slowest jobs.

`suite.py programs BUILD PROGRAM...` runs just those test programs the
same way (make run-tests and make check use it) and prints the stage line.
"""

import argparse
import fnmatch
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

# The totals line of a stage, and the reasons of its skips (as the serial
# runner, scripts/test-all.sh before, read them).
TOTALS = re.compile(r"^[^:]*: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?")
FAILS = re.compile(r"(: FAILED$|^\[  FAILED  \] [^0-9])")
SKIPS = re.compile(r"^([^:]*): [0-9]+ passed, [0-9]+ failed, [1-9][0-9]* skipped \((.*)\)$")
# cmocka's per-group summaries, and tests/harness.h's skip reasons
CMOCKA = re.compile(r"^\[  (PASSED|FAILED|SKIPPED) *\] ([0-9]+) test")
REASON = re.compile(r"^\[  REASON  \] [^:]*: (.*)$")

# For a job the last run on this machine did not time (a fresh clone):
# its rough wall time (s) and CPU share (CPU time over wall time) on the
# 2-core VM, first pattern that matches (fnmatch) wins; a job named
# nowhere is guessed at GUESS, a whole core.  For the order and the
# packing only: no result depends on them.  Measured 2026-11-28
# (docs/results/2026-11-28-suite).
ESTIMATE = [
    ("build", 40, 1.8), ("san-build", 100, 1.8), ("tsan-build", 25, 1.8),
    ("tsan", 90, 1.0),
    ("tests/interop/ezquake.sh", 100, 1.0), ("tests/interop/mvd.sh", 90, 1.0),
    ("tests/interop/match-ktx.sh", 75, 0.15),
    ("tests/interop/ezquake-duel.sh", 80, 1.0),
    ("tests/interop/qwexp-soak-storm.sh", 50, 0.1),
    ("tests/interop/qwexp-overhead-smoke.sh", 45, 0.2),
    ("tests/interop/qwbots-mvdsv.sh", 27, 0.1),
    ("tests/interop/qwprof-smoke.sh", 16, 0.3),
    ("tests/interop/qwexp-smoke.sh", 15, 0.1),
    ("tests/interop/record-replay.sh", 10, 0.1),
    ("tests/interop/*.sh", 5, 0.3),
    ("build/san/tests/test_framebench*", 80, 1.0),
    ("build*/tests/test_framebench*", 28, 1.0),
    ("build*/tests/test_server --group demo", 30, 0.1),
    ("build*/tests/test_server --group chunked", 27, 0.1),
    ("build*/tests/test_server --group server_protocol", 14, 0.1),
    ("build*/tests/test_server --group server_flood", 11, 0.1),
    ("build*/tests/test_server --group *", 5, 0.1),
    ("build*/tests/test_qwbots --group qwbots_cli", 17, 0.1),
    ("build/san/tests/test_world --group *", 8, 1.0),
]
GUESS = (10, 1.0)
# test_server's groups run a second time on the select path (add_programs)
OTHER_PATH_GROUPS = ("server_protocol", "server_protocol_realmaps")
# at most this many jobs at once per core, however little CPU they use
# (most test groups and interop scripts wait on clocks and peers)
JOBS_PER_CORE = 4
# a job whose CPU share is at most this is light (see Suite.run)
LIGHT = 0.25


class Job:
    def __init__(self, name, argv, needs=(), build=False, stage=None,
             program=None, header=None):
        self.name = name
        self.argv = argv
        self.needs = list(needs)
        self.build = build      # a build: started before other ready jobs
        self.stage = stage      # the program stage it counts in, if any
        self.program = program  # the test program it runs a group of
        self.header = header or name
        self.state = "waiting"  # waiting, running, passed, failed, not run
        self.rc = None
        self.wall = self.cpu = 0.0
        self.output = ""
        self.on_done = None     # called (in the scheduler) when it passes


class Suite:
    def __init__(self, jobs_max, history_path):
        self.slots = jobs_max
        self.jobs = []
        self.by_name = {}
        self.history_path = history_path
        self.history = {}
        try:
            with open(history_path) as f:
                self.history = json.load(f)
        except (OSError, ValueError):
            pass
        self.log = []           # every line printed, for the totals
        self.lock = threading.RLock()
        self.done = threading.Condition(self.lock)
        self.finished = []
        self.tmp = tempfile.mkdtemp(prefix="qwd-suite-")
        self.env = dict(os.environ)
        # make's jobserver descriptors are not ours to pass on
        for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
            self.env.pop(k, None)

    def add(self, job):
        if job.name in self.by_name:
            raise SystemExit("suite: two jobs named %s" % job.name)
        self.jobs.append(job)
        self.by_name[job.name] = job
        return job

    def estimate(self, job):
        """(wall s, CPU share) of a job: its last run's, else ESTIMATE's."""
        h = self.history.get(job.name)
        if h:
            return h["wall"], h["cpu"] / max(h["wall"], 0.5)
        for pattern, wall, share in ESTIMATE:
            if fnmatch.fnmatchcase(job.name, pattern):
                return wall, share
        return GUESS

    def weight(self, job):
        """The cores a job is counted to hold while it runs."""
        return min(max(self.estimate(job)[1], 0.1), self.slots)

    def emit(self, text):
        if text and not text.endswith("\n"):
            text += "\n"
        sys.stdout.write(text)
        sys.stdout.flush()
        self.log.extend(text.splitlines())

    def start(self, job):
        job.state = "running"
        out = tempfile.NamedTemporaryFile("w+", dir=self.tmp, suffix=".out",
                          delete=False)
        t0 = time.monotonic()
        try:
            p = subprocess.Popen(job.argv, stdout=out, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, env=self.env)
        except OSError as e:
            out.write("suite: cannot run %s: %s\n" % (job.argv[0], e))
            self.finish(job, out, 127, 0.0, 0.0)
            return

        def wait():
            _, status, ru = os.wait4(p.pid, 0)
            rc = os.waitstatus_to_exitcode(status)
            p.returncode = rc
            self.finish(job, out, rc, time.monotonic() - t0,
                    ru.ru_utime + ru.ru_stime)
        threading.Thread(target=wait, daemon=True).start()

    def finish(self, job, out, rc, wall, cpu):
        out.seek(0)
        text = out.read()
        out.close()
        os.unlink(out.name)
        with self.lock:
            job.rc, job.wall, job.cpu, job.output = rc, wall, cpu, text
            self.finished.append(job)
            self.done.notify()

    def ready(self, job):
        return job.state == "waiting" and all(
            self.by_name[n].state == "passed" for n in job.needs)

    def blocked(self, job):
        return job.state == "waiting" and any(
            self.by_name[n].state in ("failed", "not run") for n in job.needs)

    def run(self):
        running = []
        with self.lock:
            while True:
                # jobs whose needs failed will not run
                changed = True
                while changed:
                    changed = False
                    for j in self.jobs:
                        if self.blocked(j):
                            j.state = "not run"
                            bad = [n for n in j.needs
                                   if self.by_name[n].state != "passed"]
                            self.emit("== %s\nsuite: %s not run: %s failed\n"
                                      % (j.header, j.name, ", ".join(bad)))
                            changed = True
                # builds first, then the longest; start them in that order
                # while the jobs running are counted to hold less than the
                # cores (the last one started may take the total over);
                # past that, a light job (one that mostly waits) still
                # starts while they hold less than twice the cores
                ready = [j for j in self.jobs if self.ready(j)]
                ready.sort(key=lambda j: (not j.build, -self.estimate(j)[0]))
                for j in ready:
                    if running and len(running) >= self.slots * JOBS_PER_CORE:
                        break
                    held = sum(self.weight(r) for r in running)
                    if (running and held >= self.slots and
                            (self.weight(j) > LIGHT or held >= 2 * self.slots)):
                        continue
                    self.start(j)
                    running.append(j)
                if not running:
                    break
                while not self.finished:
                    self.done.wait()
                while self.finished:
                    j = self.finished.pop(0)
                    running.remove(j)
                    j.state = "passed" if j.rc == 0 else "failed"
                    self.emit("== %s\n%s-- %s: %.1f s (cpu %.1f s)%s\n" % (
                        j.header, j.output, j.name, j.wall, j.cpu,
                        "" if j.rc == 0 else ", exit %d" % j.rc))
                    if j.rc == 0 and j.on_done:
                        self.lock.release()
                        try:
                            j.on_done(j)
                        finally:
                            self.lock.acquire()

    def save_history(self):
        for j in self.jobs:
            if j.state in ("passed", "failed"):
                self.history[j.name] = {"wall": round(j.wall, 2),
                            "cpu": round(j.cpu, 2)}
        try:
            os.makedirs(os.path.dirname(self.history_path) or ".", exist_ok=True)
            with open(self.history_path + ".tmp", "w") as f:
                json.dump(self.history, f, indent=0, sort_keys=True)
            os.replace(self.history_path + ".tmp", self.history_path)
        except OSError as e:
            self.emit("suite: could not keep the times in %s: %s" % (self.history_path, e))

    def times(self):
        ran = [j for j in self.jobs if j.state in ("passed", "failed")]
        ran.sort(key=lambda j: -j.wall)
        self.emit("slowest jobs (wall, cpu):")
        for j in ran[:10]:
            self.emit("  %7.1f s %7.1f s  %s" % (j.wall, j.cpu, j.name))


def program_groups(program):
    """The groups of a test program, in its order; [] if it lists none."""
    try:
        out = subprocess.run([program, "--list"], capture_output=True,
                     text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    names = []
    for n in out.stdout.split():
        if n not in names:
            names.append(n)
    return names


def add_programs(suite, build, programs, needs):
    """One job per group of each program (one for the whole program when it
    cannot list them); returns the jobs."""
    jobs = []
    for prog in programs:
        groups = program_groups(prog)
        if not groups:
            jobs.append(suite.add(Job(prog, [prog], needs, stage=build, program=prog)))
            continue
        for g in groups:
            name = "%s --group %s" % (prog, g)
            jobs.append(suite.add(Job(name, [prog, "--group", g], needs,
                         stage=build, program=prog)))
            # the socket's other path: the server picks io_uring where the
            # kernel grants it, so its protocol groups run once more on
            # select (QWD_NET, tests/server/srvfix.c); the plain build only
            if os.path.basename(prog) == "test_server" and g in OTHER_PATH_GROUPS \
                    and "/san/" not in prog:
                jobs.append(suite.add(Job(name + " QWD_NET=select",
                             ["env", "QWD_NET=select", prog, "--group", g],
                             needs, stage=build, program=prog)))
    return jobs


def program_stage(suite, build, jobs):
    """The stage line of a build's programs, as run-tests.sh printed it:
    cmocka's counts added up, the skips' reasons counted; False when a
    program failed, crashed or passed nothing."""
    passed = failed = skipped = 0
    reasons = {}
    per_prog = {}
    lines = []
    for j in jobs:
        p = f = s = given = 0
        for line in j.output.splitlines():
            m = CMOCKA.match(line)
            if m:
                n = int(m.group(2))
                if m.group(1) == "PASSED":
                    p += n
                elif m.group(1) == "FAILED":
                    f += n
                else:
                    s += n
            m = REASON.match(line)
            if m:
                reasons[m.group(1)] = reasons.get(m.group(1), 0) + 1
                given += 1
        if given < s:
            reasons["no reason given"] = reasons.get("no reason given", 0) + s - given
        passed, failed, skipped = passed + p, failed + f, skipped + s
        agg = per_prog.setdefault(j.program, [0, 0, 0, 0, True])
        agg[0] += p
        agg[1] += f
        agg[3] = agg[3] or (j.rc if j.rc else 0)
        agg[4] = agg[4] and j.state == "passed"
    good = True
    for prog, (p, f, _, rc, ran) in per_prog.items():
        if f or p == 0 or rc or not ran:
            good = False
            if p == 0 and f == 0:
                lines.append("run-tests: %s passed nothing (exit %s)" % (prog, rc))
    why = ""
    if skipped:
        order = sorted(reasons.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        why = " (%s)" % "; ".join("%s: %d" % kv for kv in order)
    lines.append("tests (%s): %d passed, %d failed, %d skipped%s"
             % (build, passed, failed, skipped, why))
    suite.emit("\n".join(lines))
    return good


def said_failure(text):
    """A job's output names a failed check (a tally with failures, a
    cmocka or script FAILED line)."""
    for line in text.splitlines():
        m = TOTALS.match(line)
        if (m and int(m.group(2)) > 0) or FAILS.search(line):
            return True
    return False


def make_list(make, build, what):
    """A list the Makefile owns (make list-tests: the test programs)."""
    out = subprocess.run([make, "--no-print-directory", "-s", "BUILD=" + build, what],
                 capture_output=True, text=True)
    return out.stdout.split() if out.returncode == 0 else []


def cores():
    n = os.environ.get("QWD_TEST_JOBS")
    if n and n.isdigit() and int(n) > 0:
        return int(n)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def totals(suite):
    """The skip reasons by stage and the last line; True when nothing failed."""
    p = f = s = 0
    why = []
    for line in suite.log:
        m = TOTALS.match(line)
        if m:
            p += int(m.group(1))
            f += int(m.group(2))
            s += int(m.group(4) or 0)
        m = SKIPS.match(line)
        if m:
            why.append("  %s: %s" % (m.group(1), m.group(2)))
    if why:
        suite.emit("skipped, by stage:\n" + "\n".join(why))
    # the failed checks again at the end, where a reader of only the
    # log's tail (a CI summary) finds them
    bad = [line for line in suite.log if FAILS.search(line)]
    if bad:
        more = "\n  ... and %d more" % (len(bad) - 40) if len(bad) > 40 else ""
        suite.emit("failed checks:\n" + "\n".join("  " + b for b in bad[:40]) + more)
    suite.emit("tests: %d passed, %d failed, %d skipped" % (p, f, s))
    return f == 0


def cmd_test(args):
    make = os.environ.get("MAKE", "make")
    build = os.environ.get("BUILD", "build")
    n = args.jobs or cores()
    suite = Suite(n, os.path.join(build, "suite-times.json"))
    start = time.monotonic()
    # the real peers (qstat is also used by the server's protocol tests)
    if subprocess.run(["sh", "scripts/deps.sh", "interop"], env=suite.env).returncode:
        suite.emit("suite: could not install the interop peers; their tests will say so")
    suite.emit("suite: %d jobs at a time (%s)" % (
        n, "--jobs" if args.jobs else "QWD_TEST_JOBS" if os.environ.get("QWD_TEST_JOBS") else "nproc"))
    mk = [make, "--no-print-directory", "-j%d" % n]
    stages = {}

    suite.add(Job("layers", ["sh", "scripts/check-layers.sh"]))
    suite.add(Job("experiment", [sys.executable, "tests/experiment/run.py"]))
    suite.add(Job("build", mk + ["BUILD=" + build, "all", "test-programs"], build=True))
    # the sanitizer builds make no maps (the plain build does): they run
    # beside it from the start, on their own folders
    suite.add(Job("san-build", mk + ["check-build"], build=True))
    suite.add(Job("tsan-build", mk + ["tsan-build"], build=True))
    suite.add(Job("tsan", ["sh", "scripts/tsan.sh", "build/tsan"], ["build", "tsan-build"]))
    for t in sorted(glob.glob("tests/interop/*.sh")):
        suite.add(Job(t, ["sh", t, build], ["build"]))

    def programs_of(b, needs):
        def expand(_job):
            progs = make_list(make, b, "list-tests")
            with suite.lock:
                stages[b] = add_programs(suite, b, progs, needs)
                if not progs:
                    suite.emit("suite: make list-tests named no test program")
                    stages[b] = None
        return expand
    # the programs under the sanitizers read the maps the plain build makes
    suite.by_name["build"].on_done = programs_of(build, ["build"])
    suite.by_name["san-build"].on_done = programs_of("build/san", ["build", "san-build"])

    suite.run()
    good = all(j.state == "passed" for j in suite.jobs)
    for j in suite.jobs:
        if j.state != "passed":
            suite.emit("suite: %s %s (exit %s)" % (j.name, j.state, j.rc))
        if j.state == "failed" and not said_failure(j.output or ""):
            # it ended badly without a failed check of its own (a crash,
            # an abort, a sanitizer's report): one failure in the totals
            suite.emit("%s: 0 passed, 1 failed (exit %s and no failed check: "
                       "a crash or an abort)" % (j.name, j.rc))
    for b in (build, "build/san"):
        if stages.get(b):
            good = program_stage(suite, b, stages[b]) and good
        else:
            suite.emit("suite: the test programs of %s did not run" % b)
            good = False
    suite.save_history()
    suite.times()
    suite.emit("suite: %d jobs, %.0f s wall on %d slots" % (
        len(suite.jobs), time.monotonic() - start, n))
    good = totals(suite) and good
    os.rmdir(suite.tmp)
    return 0 if good else 1


def cmd_programs(args):
    n = args.jobs or cores()
    suite = Suite(n, os.path.join(args.build, "suite-times.json"))
    jobs = add_programs(suite, args.build, args.programs, [])
    suite.run()
    good = program_stage(suite, args.build, jobs)
    suite.save_history()
    os.rmdir(suite.tmp)
    return 0 if good and all(j.state == "passed" for j in jobs) else 1


def main():
    ap = argparse.ArgumentParser(description="qwd's test suite, in parallel")
    ap.add_argument("--jobs", "-j", type=int, default=0,
            help="jobs at a time (default: $QWD_TEST_JOBS, else the cores)")
    sub = ap.add_subparsers(dest="cmd")
    sub.add_parser("test", help="everything make test runs (the default)")
    pp = sub.add_parser("programs", help="these test programs of BUILD")
    pp.add_argument("build")
    pp.add_argument("programs", nargs="+")
    args = ap.parse_args()
    if args.cmd == "programs":
        return cmd_programs(args)
    return cmd_test(args)


if __name__ == "__main__":
    sys.exit(main())
