"""runs.py -- starting and stopping qwd and qwbots for an experiment.

Design note
  Every process the runner starts is registered and stopped on the way
  out, whatever happens (Ctl.close, also from atexit): SIGTERM, then
  SIGKILL after a grace period.  Each is pinned with taskset when asked
  (the server on one CPU, the load generator on another: the method of
  ../shared/BENCHMARKS.md) and writes its output into the run folder.
  qwd is "up" when its log says the map is loaded; a server that exits
  or does not get there within its deadline fails the run with its log's
  last lines.  Only 127.0.0.1 is ever a target.
"""

import atexit
import os
import shutil
import signal
import subprocess
import time


class RunError(Exception):
    pass


def _pinned(cpu, argv):
    if cpu is None or not shutil.which("taskset"):
        return argv
    return ["taskset", "-c", str(cpu)] + argv


class Ctl:
    """Owns the processes of one run."""

    def __init__(self, root, build="build"):
        self.root = root
        self.build = os.path.join(root, build)
        self.procs = []
        atexit.register(self.close)

    def binary(self, name):
        path = os.path.join(self.build, name)
        if not os.access(path, os.X_OK):
            raise RunError("%s is missing: run make first" % path)
        return path

    def start(self, argv, log_path, cpu=None, cwd=None):
        log = open(log_path, "w")
        p = subprocess.Popen(_pinned(cpu, argv), stdout=log,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             cwd=cwd)
        p.log_path = log_path
        p.log_file = log
        self.procs.append(p)
        return p

    def stop(self, p, sig=signal.SIGTERM, grace=5.0):
        """Signal p, wait up to grace seconds, then SIGKILL.  Returns its
        exit status."""
        if p.poll() is None:
            try:
                p.send_signal(sig)
                p.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        p.log_file.close()
        return p.returncode

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                self.stop(p, grace=2.0)
        self.procs = []

    def start_qwd(self, out, port, map_name, maxclients, cpu=None,
                  sets=(), stats_interval=None, timeout=15.0):
        """qwd on 127.0.0.1:port with the map; returns when it is up."""
        argv = [self.binary("qwd"), "-noconsole", "-ip", "127.0.0.1",
                "-port", str(port), "-maxclients", str(maxclients)]
        if stats_interval:
            argv += ["-stats", os.path.join(out, "qwd-stats.jsonl"),
                     "-statsinterval", str(stats_interval)]
        for k, v in sets:
            argv += ["+set", k, str(v)]
        argv += ["+map", map_name]
        p = self.start(argv, os.path.join(out, "server.log"), cpu=cpu, cwd=out)
        deadline = time.monotonic() + timeout
        want = "map %s loaded" % map_name
        while time.monotonic() < deadline:
            if p.poll() is not None:
                break
            with open(p.log_path, errors="replace") as f:
                if want in f.read():
                    return p
            time.sleep(0.1)
        self.stop(p)
        with open(p.log_path, errors="replace") as f:
            tail = "".join(f.readlines()[-5:])
        raise RunError("qwd did not start (%s):\n%s" % (p.log_path, tail))

    def start_bots(self, out, name, port, bots, duration, map_path, cpu=None,
                   qwdx="auto", rate=30, extra=()):
        """qwbots with --json/--series/log files named after name."""
        argv = [self.binary("qwbots"), "--server", "127.0.0.1:%d" % port,
                "--bots", str(bots), "--rate", str(rate),
                "--duration", str(duration), "--map", map_path,
                "--qwdx", qwdx, "--no-progress",
                "--json", os.path.join(out, name + ".json"),
                "--series", os.path.join(out, name + "-series.csv")]
        argv += list(extra)
        return self.start(argv, os.path.join(out, name + ".log"), cpu=cpu)


def free_port(base=27600, span=300):
    """A port near base derived from the pid (several runs can share the
    machine), checked free for UDP on 127.0.0.1."""
    import socket
    for i in range(span):
        port = base + (os.getpid() + i) % span
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            s.close()
    raise RunError("no free UDP port in %d..%d" % (base, base + span - 1))


def count_lines(path, *texts):
    """Lines of the file at path holding every one of texts."""
    try:
        with open(path, errors="replace") as f:
            return sum(1 for line in f if all(t in line for t in texts))
    except OSError:
        return 0
