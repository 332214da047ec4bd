"""report.py -- the machine a run measured on, and the tables it writes.

Design note
  Every result carries the machine (CPU model, CPUs, memory, kernel,
  hypervisor) and the code (git commit) it was measured on, so a figure
  is never read without its conditions (../shared/BENCHMARKS.md).  Tables
  are written twice: CSV for tools, Markdown for people; both from the
  same list of rows so they cannot disagree.
"""

import csv
import os
import platform
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


def machine(root):
    """A dict describing the machine and the code of root."""
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        rev = ""
    virt = ""
    try:
        virt = subprocess.run(["systemd-detect-virt", "--vm"], capture_output=True,
                              text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    mem_kb = _first("/proc/meminfo", "MemTotal")
    return {
        "cpu_model": _first("/proc/cpuinfo", "model name"),
        "cpus": str(os.cpu_count()),
        "mem": mem_kb,
        "kernel": platform.release(),
        "virt": virt or "none",
        "qwd_rev": rev or "?",
    }


def machine_line(m):
    return "%s, %s CPUs, %s RAM, Linux %s, virtualisation: %s; qwd %s" % (
        m["cpu_model"], m["cpus"], m["mem"], m["kernel"], m["virt"], m["qwd_rev"])


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
