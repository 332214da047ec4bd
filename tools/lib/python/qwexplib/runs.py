"""runs.py -- starting and stopping the programs of an experiment: qwd
(natively or under valgrind), MVDSV + KTX, qwbots, udpecho.

Design note
  Every process the runner starts is registered and stopped on the way
  out, whatever happens (Ctl.close, also from atexit and from SIGTERM):
  SIGTERM, then SIGKILL after a grace period.  Each is pinned with
  taskset when asked (the server on one CPU, the load generator on
  another: the method of ../shared/BENCHMARKS.md) and writes its output
  into the run folder.  A server is "up" when its log shows a line of its
  own (qwd: the map is loaded); a server that exits or does not get there
  within its deadline fails the run with its log's last lines.  A load
  generator has a deadline too: past it, SIGTERM, then SIGKILL.  Only
  127.0.0.1 is ever a target.
  Maps: a name is looked up in BUILD/maps (the bundled maps), then in
  $QWD_REALMAPS or ../shared/realmaps beside the tree; a path is taken as
  it is.  Each server gets a base directory in the run folder that links
  the map where it looks for it.  A server run under valgrind takes
  monitor commands through vgdb (callgrind's zero and dump).  Missing
  programs are built with make, missing Debian packages installed with
  apt-get when the runner is root.
"""

import atexit
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time


class RunError(Exception):
    pass


def _pinned(cpu, argv):
    if cpu is None or not shutil.which("taskset"):
        return argv
    return ["taskset", "-c", str(cpu)] + argv


def tail(path, lines=5):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def realmaps_dir(root):
    return os.environ.get("QWD_REALMAPS") or os.path.join(root, "..", "shared", "realmaps")


def client_assets_dir(root):
    return (os.environ.get("QWD_CLIENT_ASSETS")
            or os.path.join(root, "..", "shared", "client-assets"))


def resolve_map(name, root, build):
    """(absolute .bsp path, map name) of a map name or path; None when it
    is nowhere."""
    if "/" in name or name.endswith(".bsp"):
        path = name
    else:
        path = None
        for d in (os.path.join(build, "maps"), realmaps_dir(root)):
            if os.path.isfile(os.path.join(d, name + ".bsp")):
                path = os.path.join(d, name + ".bsp")
                break
    if not path or not os.path.isfile(path):
        return None
    path = os.path.abspath(path)
    return path, os.path.basename(path)[:-4] if path.endswith(".bsp") else os.path.basename(path)


def qwd_basedir(out, map_path, map_name):
    """out/base-MAP/id1/maps/MAP.bsp, a link to the map: qwd's -basedir."""
    base = os.path.join(out, "base-" + map_name)
    maps = os.path.join(base, "id1", "maps")
    os.makedirs(maps, exist_ok=True)
    link = os.path.join(maps, map_name + ".bsp")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(map_path, link)
    return base


KTX_DATA = "/usr/share/games/quake/ktx"
KTX_PROGS = "/usr/lib/quakeworld/ktx/qwprogs.so"
MVDSV = "/usr/games/mvdsv"


def mvdsv_basedir(out, root, build, map_path, map_name, maxclients):
    """The MVDSV + KTX base directory (tests/interop/qwbots-mvdsv.sh lays it
    out the same way): the map and KTX's item models in id1/maps; ktx/
    mirrors the package's data as links, with two files of our own:
    server.cfg (KTX's stock configs, then free-for-all on our map) and the
    ffa usermode config + "maxclients N" (KTX's modes cap players: ffa at
    26).  Made once per folder and map."""
    base = os.path.join(out, "base-mvdsv-" + map_name)
    if os.path.isdir(base):
        return base
    maps = os.path.join(base, "id1", "maps")
    os.makedirs(maps)
    os.symlink(map_path, os.path.join(maps, map_name + ".bsp"))
    models = (glob.glob(os.path.join(client_assets_dir(root), "id1", "maps", "b_*.bsp"))
              + glob.glob(os.path.join(build, "maps", "b_*.bsp")))
    for m in models:
        dest = os.path.join(maps, os.path.basename(m))
        if not os.path.exists(dest):
            shutil.copyfile(m, dest)
    ktx = os.path.join(base, "ktx")
    for d, _, files in os.walk(KTX_DATA):
        sub = os.path.join(ktx, os.path.relpath(d, KTX_DATA))
        os.makedirs(sub, exist_ok=True)
        for f in files:
            os.symlink(os.path.join(d, f), os.path.join(sub, f))
    os.makedirs(ktx, exist_ok=True)
    if not os.path.exists(os.path.join(ktx, "qwprogs.so")):
        os.symlink(KTX_PROGS, os.path.join(ktx, "qwprogs.so"))
    ffa = os.path.join(ktx, "configs", "usermodes", "ffa")
    os.makedirs(ffa, exist_ok=True)
    stock = ""
    try:
        with open(os.path.join(KTX_DATA, "configs", "usermodes", "ffa", "default.cfg")) as f:
            stock = f.read()
    except OSError:
        pass
    for name in (os.path.join(ktx, "server.cfg"), os.path.join(ffa, "default.cfg")):
        if os.path.lexists(name):
            os.remove(name)
    with open(os.path.join(ffa, "default.cfg"), "w") as f:
        f.write(stock + "\nmaxclients %d\n" % maxclients)
    with open(os.path.join(ktx, "server.cfg"), "w") as f:
        f.write("exec mvdsv.cfg\nexec ktx.cfg\nexec pwd.cfg\nexec vip_ip.cfg\n"
                "exec listip.cfg\nset k_defmode ffa\nset k_defmap %s\nmaxclients %d\n"
                % (map_name, maxclients))
    return base


def mvdsv_installed():
    return os.access(MVDSV, os.X_OK) and os.path.isfile(KTX_PROGS)


def ensure_packages(packages, present, say):
    """Installs the Debian packages with apt-get when present() is false
    and the runner is root; returns present() afterwards."""
    if present():
        return True
    if os.geteuid() == 0 and shutil.which("apt-get"):
        say("%s missing: installing the Debian package%s %s (apt-get)"
            % ("/".join(packages), "s" if len(packages) > 1 else "", " ".join(packages)))
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends"]
                       + list(packages), env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return present()


class Ctl:
    """Owns the processes of one run."""

    def __init__(self, root, build="build"):
        self.root = root
        self.build = os.path.join(root, build)
        self.build_arg = build
        self.procs = []
        self._ports_given = set()
        atexit.register(self.close)
        # a SIGTERM ends the runner through sys.exit, so atexit still runs
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    def binary(self, name):
        path = os.path.join(self.build, name)
        if not os.access(path, os.X_OK):
            raise RunError("%s is missing: run make first" % path)
        return path

    def ensure_built(self, names, log_path, say):
        """Builds the programs of names (and the bundled maps) when missing."""
        need = [os.path.join(self.build_arg, n) for n in names
                if not os.access(os.path.join(self.build, n), os.X_OK)]
        if not os.path.isfile(os.path.join(self.build, "maps", "small.bsp")):
            need.append("maps")
        if not need:
            return
        say("building " + " ".join(need))
        with open(log_path, "w") as log:
            r = subprocess.run(["make", "--no-print-directory", "BUILD=" + self.build_arg]
                               + need, cwd=self.root, stdout=log, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise RunError("make BUILD=%s %s failed (see %s)"
                           % (self.build_arg, " ".join(need), log_path))

    def free_port(self):
        """A UDP port nobody holds, the kernel's pick (bind to port 0): it
        picks at random over its ephemeral range, so runs and tests sharing
        the machine (make test runs several at once) never get the same
        number at the same moment, and a server just stopped (which may
        still hold its port for a moment) is not handed its port again."""
        for _ in range(64):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                s.bind(("0.0.0.0", 0))
                port = s.getsockname()[1]
                if port not in self._ports_given:
                    self._ports_given.add(port)
                    return port
            except OSError:
                continue
            finally:
                s.close()
        raise RunError("no free UDP port from the kernel")

    def start(self, argv, log_path, cpu=None, cwd=None):
        log = open(log_path, "w")
        p = subprocess.Popen(_pinned(cpu, [str(x) for x in argv]), stdout=log,
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
        if p in self.procs:
            self.procs.remove(p)
        return p.returncode

    def wait(self, p, deadline, say=None):
        """Waits for p to exit until deadline (time.monotonic()); past it,
        stops it.  Returns its exit status."""
        while p.poll() is None and time.monotonic() < deadline:
            try:
                p.wait(timeout=max(0.01, min(0.5, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                pass
        if p.poll() is None and say:
            say("deadline passed: stopping pid %d" % p.pid)
        return self.stop(p)

    def close(self):
        for p in list(self.procs):
            if p.poll() is None:
                self.stop(p, grace=2.0)
        self.procs = []

    def wait_log(self, p, want, timeout):
        """True once want shows in p's log; False when p exits or the time
        runs out first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(p.log_path, errors="replace") as f:
                if want in f.read():
                    return True
            if p.poll() is not None:
                return False
            time.sleep(0.1)
        return False

    def start_server(self, argv, log_path, want, timeout, cpu=None, cwd=None, what="qwd"):
        p = self.start(argv, log_path, cpu=cpu, cwd=cwd)
        if self.wait_log(p, want, timeout):
            return p
        self.stop(p)
        raise RunError("%s did not start (%s):\n%s" % (what, log_path, tail(log_path)))

    def start_qwd(self, out, port, map_name, maxclients, cpu=None,
                  sets=(), stats_interval=None, timeout=15.0, basedir=None,
                  options=(), wrapper=(), stats_path=None, log_path=None, seed=1):
        """qwd on 127.0.0.1:port with the map; returns when it is up.
        options: more qwd options (-notimers ...); wrapper: a command qwd
        runs under (valgrind ...); seed: the game's random numbers (qwd
        -seed: fixed, so a run's game repeats; qwd alone takes a random
        one)."""
        argv = list(wrapper) + [self.binary("qwd"), "-noconsole", "-ip", "127.0.0.1",
                                "-port", str(port), "-maxclients", str(maxclients),
                                "-seed", str(max(1, int(seed)))]
        if basedir:
            argv += ["-basedir", basedir]
        if stats_interval:
            argv += ["-stats", stats_path or os.path.join(out, "qwd-stats.jsonl"),
                     "-statsinterval", str(stats_interval)]
        argv += list(options)
        for k, v in sets:
            argv += ["+set", k, str(v)]
        argv += ["+map", map_name]
        return self.start_server(argv, log_path or os.path.join(out, "server.log"),
                                 "map %s loaded" % map_name, timeout, cpu=cpu, cwd=out)

    def start_mvdsv(self, out, port, map_name, basedir, cpu=None, wrapper=(), timeout=10.0):
        """MVDSV + KTX on the port (every address: bound to one, MVDSV
        refused most bots with "No challenge for address" in our runs),
        up when KTX has run its ffa config; then 2 s more, since MVDSV
        forgets the challenges it hands out in its first second or so.
        wrapper: a command MVDSV runs under (valgrind ...)."""
        mv = shutil.which("mvdsv") or MVDSV
        if not os.access(mv, os.X_OK):
            raise RunError("MVDSV is not installed (Debian packages mvdsv, ktx)")
        p = self.start_server(list(wrapper) + [mv, "-basedir", basedir, "-game", "ktx",
                                               "-port", str(port), "+map", map_name],
                              os.path.join(out, "server.log"), "usermodes/ffa/default.cfg",
                              timeout, cpu=cpu, cwd=basedir, what="MVDSV")
        time.sleep(2)
        return p

    def start_bots(self, out, name, port, bots, duration, map_path, cpu=None,
                   qwdx="auto", rate=30, extra=(), files=None):
        """qwbots against 127.0.0.1:port.  files: {option: path} of its
        outputs; by default --json and --series named after name."""
        if files is None:
            files = {"--json": os.path.join(out, name + ".json"),
                     "--series": os.path.join(out, name + "-series.csv")}
        argv = [self.binary("qwbots"), "--server", "127.0.0.1:%d" % port,
                "--bots", str(bots), "--rate", str(rate),
                "--duration", str(duration), "--map", map_path,
                "--qwdx", qwdx, "--no-progress"]
        for opt, path in files.items():
            argv += [opt, path]
        argv += list(extra)
        return self.start(argv, os.path.join(out, name + ".log"), cpu=cpu)


def vgdb(pid, command, timeout=60.0):
    """Sends a monitor command ("zero", "dump") to the valgrind gdbserver
    of process pid with vgdb (what callgrind_control runs, without its
    Perl start-up, so the command's moment is known within milliseconds).
    Returns (Unix time before, Unix time after); RunError when vgdb is
    missing, fails or outlasts timeout."""
    exe = shutil.which("vgdb")
    if not exe:
        raise RunError("vgdb (Debian package valgrind) is not installed")
    before = time.time()
    try:
        r = subprocess.run([exe, "--pid=%d" % pid, command], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RunError("vgdb %s to pid %d: no answer in %.0f s" % (command, pid, timeout))
    after = time.time()
    if r.returncode != 0:
        raise RunError("vgdb %s to pid %d failed: %s" % (command, pid,
                                                        (r.stderr or r.stdout).strip()))
    return before, after


def count_lines(path, *texts):
    """Lines of the file at path holding every one of texts."""
    try:
        with open(path, errors="replace") as f:
            return sum(1 for line in f if all(t in line for t in texts))
    except OSError:
        return 0
