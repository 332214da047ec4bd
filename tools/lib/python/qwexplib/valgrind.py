"""valgrind.py -- what valgrind's tools wrote about a qwd run, read into
numbers: callgrind_annotate's listing, cachegrind's out file, lackey's
counts.

Design note
  Three readers, one per tool, shared by qwexp overhead (the profiler's
  own instructions under callgrind) and qwprof (simulated counters):
    callgrind_annotate  "3,570,140 (100.0%)  PROGRAM TOTALS" gives the
                        total; below the "file:function" header each line
                        is "COST (SHARE)  FILE:FUNCTION [OBJECT]" (self
                        cost, or inclusive with --inclusive=yes); lines
                        with "=>" (calls, under --tree) are not functions.
                        A recursive function's deeper levels are named
                        FUNCTION'2 and so on: they are other entries.
    cachegrind out      "desc: I1 cache: 32768 B, 64 B, 8-way associative"
                        lines, "events: Ir I1mr ..." and at the end
                        "summary: N N ..." (one count per event).
    lackey              its counts at exit, on qwd's stderr, each line
                        behind "==PID==": "guest instrs: N", after "Jccs:"
                        the line "total: N", and the IR-level table, one
                        line per type: "I32  loads  stores  aluops".
  Numbers carry thousands separators in the listings; they are removed.
  A reader of an incomplete output returns None (or leaves the figure
  out), never a figure made of part of it.
"""

import re

_COST = re.compile(r"^\s*([0-9][0-9,]*)\s+(?:\(\s*[0-9.]+%\)\s+)?(.*)$")


def _int(text):
    return int(text.replace(",", ""))


def parse_annotate(text):
    """(total, entries) of a callgrind_annotate listing: total of PROGRAM
    TOTALS (None when absent); entries a list of (cost, where), where is
    "FILE:FUNCTION [OBJECT]", in the listing's order."""
    total = None
    entries = []
    in_functions = False
    for line in text.splitlines():
        if "PROGRAM TOTALS" in line:
            m = _COST.match(line)
            if m:
                total = _int(m.group(1))
            continue
        if "file:function" in line:
            in_functions = True
            continue
        if not in_functions or "=>" in line:
            continue
        m = _COST.match(line)
        if m:
            entries.append((_int(m.group(1)), m.group(2)))
    return total, entries


def function_name(where):
    """"FUNCTION" of "FILE:FUNCTION [OBJECT]"."""
    return re.sub(r" \[.*$", "", where).rsplit(":", 1)[-1]


def by_function(entries):
    """{function: cost} of the first entry of each function name (the
    listing is sorted by cost: the largest)."""
    out = {}
    for cost, where in entries:
        out.setdefault(function_name(where), cost)
    return out


# qwd's profiler: its module, and the two pieces of src/common that only
# it uses in qwd (the histogram it fills, the JSON writer of its stats)
PROFILER_FILES = ("src/prof/", "src/common/hist.c", "src/common/json.c")


def profiler_cost(entries):
    """(instructions in the profiler's files, instructions in
    clock_gettime) of a self-cost listing: the profiler's own work."""
    prof = clock = 0
    for cost, where in entries:
        if any(f in where for f in PROFILER_FILES):
            prof += cost
        elif "clock_gettime" in where:
            clock += cost
    return prof, clock


def parse_cachegrind(text):
    """{"events": {event: count of the summary}, "desc": {"I1": ...,
    "D1": ..., "LL": ...}} of a cachegrind out file; None without a
    summary matching its events."""
    events, summary, desc = None, None, {}
    for line in text.splitlines():
        if line.startswith("desc: ") and " cache:" in line:
            level, _, rest = line[6:].partition(" cache:")
            desc[level.strip()] = rest.strip()
        elif line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            summary = [int(x) for x in line.split()[1:]]
    if events is None or summary is None or len(events) != len(summary):
        return None
    return {"events": dict(zip(events, summary)), "desc": desc}


def read_cachegrind(path):
    try:
        with open(path, errors="replace") as f:
            return parse_cachegrind(f.read())
    except OSError:
        return None


def cache_short(desc):
    """"32 kB 8-way 64 B lines" of "32768 B, 64 B, 8-way associative"."""
    f = [x.strip() for x in desc.split(",")]
    if len(f) < 3:
        return desc
    size = int(f[0].replace("B", "").strip())
    line = f[1].replace("B", "").strip()
    ways = f[2].replace(" associative", "")
    return "%d kB %s %s B lines" % (size // 1024, ways, line)


def parse_lackey(text):
    """Lackey's counts: {"guest": instructions, "jcc": conditional jumps,
    "loads", "stores", "alu": IR operations of every type, "fp_loads",
    "fp_stores", "fp_alu": of the F types, "vector_alu": of the V types};
    None when the text has no "guest instrs" line."""
    c = dict.fromkeys(("guest", "jcc", "loads", "stores", "alu", "fp_loads",
                       "fp_stores", "fp_alu", "vector_alu"), 0)
    seen = False
    in_jccs = False
    for line in text.splitlines():
        f = line.split()
        if "guest instrs:" in line:
            c["guest"] += _int(f[-1])
            seen = True
        elif "== Jccs:" in line:
            in_jccs = True
        elif in_jccs and "total:" in line:
            c["jcc"] += _int(f[-1])
            in_jccs = False
        elif len(f) == 5 and re.match(r"^[IFVD][0-9]+$", f[1]):
            loads, stores, alu = _int(f[2]), _int(f[3]), _int(f[4])
            c["loads"] += loads
            c["stores"] += stores
            c["alu"] += alu
            if f[1].startswith("F"):
                c["fp_loads"] += loads
                c["fp_stores"] += stores
                c["fp_alu"] += alu
            elif f[1].startswith("V"):
                c["vector_alu"] += alu
    return c if seen else None


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""
