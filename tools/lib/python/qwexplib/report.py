"""report.py -- the machine a run measured on, the run's env.txt, and
the way figures are written.

Design note
  Every result carries the machine (CPU model, CPUs, memory, kernel,
  hypervisor and container, OS, compiler, the servers' versions) and the
  code (git commit, "+local changes" when the tree differs) it was
  measured on, so a figure is never read without its conditions
  (../shared/BENCHMARKS.md).  env.txt holds them as KEY=VALUE lines,
  followed by the run's parameters and each mode's command line; a key
  written twice means its last value (a folder may hold several modes).
  Numbers are written as awk wrote them in the runner's first version, so
  old and new result folders read alike: an integral value as an
  integer, any other with the given precision (%.6g by default); an
  unmeasured figure as an empty field, never 0.  Tables are written
  twice, CSV for tools and Markdown for people, from the same rows.
"""

import csv
import datetime
import os
import platform
import re
import subprocess


def _first(path, prefix):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def _run(argv):
    """The stripped standard output of argv, "" when it cannot run."""
    try:
        return subprocess.run(argv, capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def virtualisation():
    """The hypervisor (what makes timings noisy), then any container:
    "kvm VM, docker container", "kvm", "docker container", "none"."""
    virt = ""
    for line in _run(["lscpu"]).splitlines():
        if line.startswith("Hypervisor vendor:"):
            virt = line.split(":", 1)[1].strip().lower()
    if not virt:
        v = _run(["systemd-detect-virt", "--vm"])
        virt = "" if v == "none" else v
    if not virt and "hypervisor" in _first("/proc/cpuinfo", "flags"):
        virt = "vm"
    cont = _run(["systemd-detect-virt", "--container"])
    cont = "" if cont == "none" else cont
    if cont:
        return "%s VM, %s container" % (virt, cont) if virt else "%s container" % cont
    return virt or "none"


def conntrack():
    """Whether netfilter's connection tracking is loaded in this network
    namespace (then every datagram on loopback, both ways, passes its
    hooks unless exempted: a few percent of a loaded server's CPU), with
    the nftables tables that may use it: "loaded (nft tables: ip nat)",
    "loaded", "not loaded"."""
    if not os.path.exists("/proc/sys/net/netfilter/nf_conntrack_count"):
        return "not loaded"
    tables = [" ".join(line.split()[1:]) for line in
              _run(["nft", "list", "tables"]).splitlines()
              if line.startswith("table ")]
    return "loaded (nft tables: %s)" % ", ".join(tables) if tables else "loaded"


def short_name(cpu_model, virt, cpus):
    """A folder-friendly machine name: "amd-epyc-kvm-2cpu"."""
    s = re.sub(r"\(r\)|\(tm\)|cpu|processor|@.*", "", cpu_model.lower())
    words = [w for w in re.split(r"[^a-z0-9]+", s) if w]
    name = ""
    for w in words:
        if len(name) >= 16:
            break
        name = w if not name else name + "-" + w
    return "%s-%s-%scpu" % (name, virt.split()[0] if virt else "none", cpus)


def _package(name):
    v = _run(["dpkg-query", "-W", "-f", "${Version}", name])
    return v or "not installed"


def machine(root):
    """A dict describing the machine and the code of root (the keys of
    env.txt's first part)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    rev = _run(["git", "-C", root, "rev-parse", "--short", "HEAD"]) or "unknown"
    if _run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"]):
        rev += " +local changes"
    try:
        with open("/proc/meminfo") as f:
            kb = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
        mem = "%.1f GiB" % (kb / 1048576.0)
    except (OSError, StopIteration, ValueError, IndexError):
        mem = "?"
    pretty = ""
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    pretty = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    cpu = _first("/proc/cpuinfo", "model name")
    cpus = str(os.cpu_count())
    virt = virtualisation()
    return {
        "date": now.strftime("%Y-%m-%d"),
        "time_utc": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cpu_model": cpu,
        "cpus": cpus,
        "mem": mem,
        "kernel": "%s %s" % (platform.system(), platform.release()),
        "virt": virt,
        "conntrack": conntrack(),
        "os": pretty,
        "qwd_rev": rev,
        "gcc": _run(["gcc", "-dumpfullversion"]),
        "mvdsv": _package("mvdsv"),
        "ktx": _package("ktx"),
        "machine_short": short_name(cpu, virt, cpus),
    }


def machine_line(m):
    return "%s, %s CPUs, %s RAM, %s, virtualisation: %s; qwd %s" % (
        m["cpu_model"], m["cpus"], m["mem"], m["kernel"], m["virt"], m["qwd_rev"])


def write_env(path, pairs):
    """Appends KEY=VALUE lines (pairs: a dict or a list of pairs)."""
    items = pairs.items() if isinstance(pairs, dict) else pairs
    with open(path, "a") as f:
        for k, v in items:
            f.write("%s=%s\n" % (k, v))


def read_env(path):
    """{key: last value} of an env.txt; {} when it is missing."""
    env = {}
    try:
        with open(path, errors="replace") as f:
            for line in f:
                k, sep, v = line.rstrip("\n").partition("=")
                if sep:
                    env[k] = v
    except OSError:
        pass
    return env


def num(v, spec="%.6g"):
    """v as a CSV field: "" for None (not measured); a number with spec,
    where a %g spec writes an integral number as an integer; text stays
    as it is."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if spec.endswith("g") and v == int(v) and abs(v) < 1e15:
            return "%d" % v
        return spec % v
    return str(v)


def fmt(v, digits=2):
    if v is None:
        return ""
    if isinstance(v, float):
        return ("%." + str(digits) + "f") % v
    return str(v)


def write_table(path_base, columns, rows, digits=None):
    """rows (dicts) to path_base.csv and return the Markdown table text.
    digits: {column: decimals} for the Markdown (the CSV keeps full
    precision)."""
    digits = digits or {}
    with open(path_base + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([c for c, _ in columns])
        for r in rows:
            w.writerow(["" if r.get(c) is None else r.get(c) for c, _ in columns])
    lines = ["| " + " | ".join(title for _, title in columns) + " |",
             "|" + "---|" * len(columns)]
    for r in rows:
        lines.append("| " + " | ".join(fmt(r.get(c), digits.get(c, 2))
                                         for c, _ in columns) + " |")
    return "\n".join(lines) + "\n"
