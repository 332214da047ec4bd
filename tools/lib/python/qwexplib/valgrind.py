"""valgrind.py -- what valgrind's tools wrote about a qwd run, read into
numbers: callgrind_annotate's listing, callgrind's out file, cachegrind's
out file, lackey's counts.

Design note
  The readers, shared by qwexp overhead (the profiler's own instructions
  under callgrind), qwexp compare (qwd's and MVDSV's instructions per
  reply) and qwprof (simulated counters):
    callgrind_annotate  "3,570,140 (100.0%)  PROGRAM TOTALS" gives the
                        total; below the "file:function" header each line
                        is "COST (SHARE)  FILE:FUNCTION [OBJECT]" (self
                        cost, or inclusive with --inclusive=yes); lines
                        with "=>" (calls, under --tree) are not functions.
                        A recursive function's deeper levels are named
                        FUNCTION'2 and so on: they are other entries.
    callgrind out       one dump of callgrind itself: "summary:" (the
                        instructions of the dump's span), "ob=", "fl=",
                        "fn=" (names compressed: "(N) name" once, "(N)"
                        after), cost lines "POSITION COST", "calls=" lines
                        each followed by the callee's inclusive cost, and
                        "totals:" (the sum of the self costs).  Read here
                        rather than through callgrind_annotate, which
                        counts the calls still under way at a mid-run dump
                        ("calls=0") as their callers' own cost.  summary
                        and totals are callgrind's two counts of the same
                        span (the thread's counter; the functions' costs)
                        and differ by ~0.1% in a mid-run dump.
    cachegrind out      "desc: I1 cache: 32768 B, 64 B, 8-way associative"
                        lines, "events: Ir I1mr ..." and at the end
                        "summary: N N ..." (one count per event).
    lackey              its counts at exit, on qwd's stderr, each line
                        behind "==PID==": "guest instrs: N", after "Jccs:"
                        the line "total: N", and the IR-level table, one
                        line per type: "I32  loads  stores  aluops".
  Numbers carry thousands separators in the listings; they are removed.
  The self costs summed by OBJECT say where a whole process's
  instructions went: the server's binary, libc, a game module it loaded
  (KTX's qwprogs.so under MVDSV).
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


_NAMED = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
          "cfl": "fl", "jfi": "fl", "fn": "fn", "cfn": "fn", "jfn": "fn"}


def parse_callgrind(text):
    """A callgrind out file (one dump) read into {"summary": the
    instructions of the dump's span (its "summary:" line, what
    callgrind_annotate calls PROGRAM TOTALS), "totals": its "totals:"
    line, "entries": [(self cost, "FILE:FUNCTION [OBJECT]")], the largest
    first}; the first event's costs.  The line after "calls=" is the
    callee's inclusive cost, never the caller's own: a dump taken while
    calls are under way lists them with "calls=0" (which
    callgrind_annotate 3.19 adds to the caller's self cost).  None when a
    line is missing or the self costs do not add up to "totals:"."""
    names = {"ob": {}, "fl": {}, "fn": {}}
    npos = 1
    summary = totals = None
    obj = fl = fn = fn_obj = ""
    self_cost = {}
    skip_next = False

    def name(kind, value):
        m = re.match(r"^\((\d+)\)(?: (.*))?$", value)
        if not m:
            return value
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
            return m.group(2)
        return names[kind].get(m.group(1), "?")

    for line in text.splitlines():
        if not line:
            continue
        if line[0].isdigit() or line[0] in "+-*":
            if skip_next:
                skip_next = False
                continue
            f = line.split()
            key = "%s:%s [%s]" % (fl, fn, fn_obj)
            self_cost[key] = self_cost.get(key, 0) + (int(f[npos]) if len(f) > npos else 0)
            continue
        key, sep, value = line.partition("=")
        if sep and key in _NAMED:
            v = name(_NAMED[key], value)
            if key == "ob":
                obj = v
            elif key in ("fl", "fi", "fe"):
                fl = v
            elif key == "fn":
                fn, fn_obj = v, obj
        elif key == "calls":
            skip_next = True
        elif line.startswith("positions:"):
            npos = len(line.split()) - 1
        elif line.startswith("summary:"):
            summary = int(line.split()[1])
        elif line.startswith("totals:"):
            totals = int(line.split()[1])
    if summary is None or totals is None or sum(self_cost.values()) != totals:
        return None
    entries = sorted(((v, k) for k, v in self_cost.items() if v), key=lambda e: (-e[0], e[1]))
    return {"summary": summary, "totals": totals, "entries": entries}


def listing(parsed):
    """parse_callgrind's figures as callgrind_annotate lists them (its
    PROGRAM TOTALS line, then one line per function under the
    "file:function" header, shares of the total): parse_annotate reads it
    back."""
    total = parsed["summary"]
    out = ["Self cost (instructions) of each function, the largest first",
           "%s (100.0%%)  PROGRAM TOTALS" % format(total, ","), "", "Ir  file:function"]
    for cost, where in parsed["entries"]:
        out.append("%s (%5.2f%%)  %s" % (format(cost, ","), 100.0 * cost / total if total else 0,
                                          where))
    return "\n".join(out) + "\n"


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


def object_name(where):
    """"OBJECT" of "FILE:FUNCTION [OBJECT]" ("?" without one)."""
    m = re.search(r" \[([^]]*)\]$", where)
    return m.group(1) if m else "?"


def object_costs(entries):
    """[(object, cost)] of a self-cost listing: each object's entries
    summed, the largest first (ties by name)."""
    out = {}
    for cost, where in entries:
        name = object_name(where)
        out[name] = out.get(name, 0) + cost
    return sorted(out.items(), key=lambda kv: (-kv[1], kv[0]))


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
