#!/usr/bin/env python3
"""server-layers.py -- the direction inside src/server/, checked.

Design note: scripts/check-layers.sh checks which module may include which;
this checks the layers inside the server module (docs/ARCHITECTURE.md,
"Inside the server"), by includes and by calls, with the standard library
only.  Every file of src/server/ is in LAYERS below, in its layer:

  base     state.h, hooks.h, base.h and the files that call nothing above
           them (the cvar and command tables, the feature registry, the
           log limit, the socket's send and the clock)
  core     the frame, clients, receive, execute, send, the level: listed
           lowest first; a core file calls only the base and the core files
           listed before it
  feature  each operator feature (its files and its header): it calls the
           base and the core, and another feature only where FEATURE_USES
           says so; the core never calls a feature (it calls the hooks)
  top      server.c and main.c, which put it all together

Includes: a file includes only its own layer's headers and those below
(a feature: its own header, features.h and FEATURE_USES' headers).  Calls:
a file's calls of functions another file of src/server/ defines (a name
followed by "(", comments and strings removed, as ../shared/tools/ccircles.py
counts them) go down only, never up or sideways: so no call circle can
form, except the one pair FEATURE_USES lists both ways (the demo writer's
two files).  A file that is in no layer fails: a new file takes its place
here.  Prints one line per violation and "server-layers: N files checked, M
failed files" last; exits 1 on any failure.
"""
import os
import re
import sys

# the core's files, lowest first (core.h's design note says what each is)
CORE = ["reliable.c", "events.c", "players.c", "level.c", "sched.c", "execute.c",
        "pause.c", "user.c", "spectate.c", "send.c", "oob.c", "services.c",
        "map.c", "frame.c"]
BASE = ["hooks.c", "io.c", "loglimit.c", "cvar.c"]
BASE_HEADERS = ["state.h", "hooks.h", "base.h"]
# feature -> its files (the first header is its own)
FEATURES = {
    "console": ["console.c"],
    "compat": ["compat.h", "compat.c"],
    "logs": ["logfile.h", "logfile.c"],
    "rcon": ["rcon.h", "rcon.c"],
    "bans": ["bans.h", "bans.c"],
    "masters": ["master.h", "master.c"],
    "demo": ["demo.h", "mvdwriter.h", "demo.c", "mvd.c", "mvdframe.c", "qtv.c"],
    "downloads": ["downloads.h", "download.c", "transfer.c"],
    "record": ["record.h", "record.c"],
    "overload": ["overload.h", "overload.c"],
    "profcmd": ["profcmd.h", "profcmd.c"],
    "autopool": ["autopool.h", "autopool.c"],
    "metrics": ["metrics.c"],
    "agones": ["agones.h", "agones.c"],
    "match": ["match_votes.h", "match_demo.h", "match.c", "match_votes.c",
              "match_demo.c"],
}
# which feature may call (and include the header of) which
FEATURE_USES = {
    "rcon": ["logs"],	# the rcon log
    "downloads": ["demo"],	# demos are served from sv_demoDir
    "metrics": ["demo", "downloads", "agones", "match"],	# the demo recorded,
    					# QTV viewers, downloads in progress, the
    					# Agones client's counters, the match's
    					# votes and admins
    "match": ["logs", "demo"],	# admins' actions in the rcon log; the
    				# match's demo
}
TOP = ["features.h", "server.c", "main.c"]

DEF = re.compile(r"^(?!static\b)(?!typedef\b)(?:[A-Za-z_][\w\s\*]*?[\s\*])"
                 r"([A-Za-z_]\w*)\s*\(([^;{}]*)\)\s*(\{|$)", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def strip(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    src = re.sub(r"//[^\n]*", " ", src)
    src = re.sub(r'"(\\.|[^"\\])*"', '""', src)
    return re.sub(r"'(\\.|[^'\\])*'", "''", src)


def layer_of():
    """file -> (layer, rank, feature or None)"""
    where = {}
    for i, f in enumerate(BASE_HEADERS + BASE):
        where[f] = ("base", 0, None)
    where["core.h"] = ("core", 1, None)
    for i, f in enumerate(CORE):
        where[f] = ("core", 10 + i, None)
    for name, files in FEATURES.items():
        for f in files:
            where[f] = ("feature", 100, name)
    for f in TOP:
        where[f] = ("top", 1000, None)
    return where


def may_include(where, f, inc):
    layer, _, feat = where[f]
    il, _, ifeat = where.get(inc, (None, 0, None))
    if il is None:
        return False
    if layer == "top":
        return True
    if il == "base":
        return True
    if layer == "base":
        return False
    if inc == "core.h":
        return True
    if layer == "core":
        return False
    # a feature: its own headers, features.h (its registration), and the
    # headers of the features it uses
    if inc == "features.h":
        return f.endswith(".c")
    return il == "feature" and (ifeat == feat or ifeat in FEATURE_USES.get(feat, []))


def may_call(where, f, g):
    lf, rf, ff = where[f]
    lg, rg, fg = where[g]
    if lf == "top":
        return True
    if lg == "base":
        # the base's own files: the registry and the tables below them
        return lf != "base" or BASE.index(g) < BASE.index(f)
    if lf == "base":
        return False
    if lg == "core":
        return lf != "core" or rg < rf
    if lf == "core":
        return False
    if lg == "feature":
        return fg == ff or fg in FEATURE_USES.get(ff, [])
    return False


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "src/server"
    where = layer_of()
    files = sorted(f for f in os.listdir(d) if f.endswith((".c", ".h")))
    text = {f: open(os.path.join(d, f), errors="replace").read() for f in files}
    bad = {}

    for f in files:
        if f not in where:
            bad.setdefault(f, []).append("in no layer: add it to scripts/server-layers.py")
    for name in where:
        if name not in text:
            bad.setdefault(name, []).append("listed in scripts/server-layers.py but missing")

    owner = {}
    code = {f: strip(text[f]) for f in files if f.endswith(".c")}
    for f, s in code.items():
        for m in DEF.finditer(s):
            n = m.group(1)
            if n not in ("if", "while", "for", "switch", "return", "sizeof"):
                owner.setdefault(n, set()).add(f)
    for f in files:
        if f not in where:
            continue
        for inc in INCLUDE.findall(text[f]):
            if inc.startswith("qwd/") or "/" in inc or inc not in text:
                continue
            if not may_include(where, f, inc):
                bad.setdefault(f, []).append(
                    "may not include %s (%s layer)" % (inc, where.get(inc, ("?",))[0]))
    for n, fs in owner.items():
        if len(fs) != 1:
            continue
        (g,) = fs
        if g not in where:
            continue
        pat = re.compile(r"\b%s\s*\(" % re.escape(n))
        for f, s in code.items():
            if f == g or f not in where or not pat.search(s):
                continue
            if not may_call(where, f, g):
                bad.setdefault(f, []).append("calls %s of %s (%s %s, above it or beside it)"
                                             % (n, g, where[g][0], where[g][2] or ""))
    for f in sorted(bad):
        for why in sorted(set(bad[f])):
            print("server-layers: %s/%s: %s" % (d, f, why))
    failed = len(bad)
    print("server-layers: %d files checked, %d failed" % (len(files), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
