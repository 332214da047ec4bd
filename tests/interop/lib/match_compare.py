#!/usr/bin/env python3
"""match_compare.py -- what tests/interop/match-ktx.sh compares between a
match on qwd and the same match on MVDSV+KTX, beyond plain line lists.

  match_compare.py times QWD.txt KTX.txt
  match_compare.py json QWD.json KTX.json NAME...
  match_compare.py keys stats_keys.txt KTX.json

Design note
  times: matchduel's "time S status VALUE" / "time S print TEXT" lines
  (seconds since the countdown was seen) are paired by what happened and
  its occurrence (the second "status Standby" with the second); each
  pair both servers have must be within TOLERANCE + DRIFT x its time, and
  the start, the clock and the end must be among them.  TOLERANCE is
  0.15 s: a client
  knows when something happened only to the server frame that sent it
  (MVDSV's 77 fps and qwd's tick: 13 ms) plus the packet that carried it
  (the server answers the client's packets: matchduel's, ~72 a second,
  14 ms), at both ends of the interval (the countdown's start and the
  event), and four servers and four clients share two cores while the
  suite runs another job beside: a tenth of a second on top covers the
  scheduling, and stays well under a second, so a countdown of 2 or 4 s
  or a clock a second off still fails.  DRIFT, 5 ms a second: KTX's
  timer thinks again 1 s after the frame that ran it, not after the
  second it was due, so each of its seconds comes late by part of a
  frame and that adds up (measured on the idle VM: 0.03 to 0.09 s late
  after the minute, 1.5 ms a second at most; qwd counts from the start
  and does not drift); at the match's end, 63 s, 0.47 s in all, still
  under a second.  This compares behaviour (the 3 s countdown, the 60 s
  clock), not speed.
  json: the key paths of both files (objects' members joined by ".", a
  list's items under "[]": players[].stats.frags) must be the same and
  come in the same order, except for ALLOWED (each with its reason); a
  player's weapons and items are members named after what happened (a
  player standing on the yellow armour's spot at his spawn took it, on
  one server and not the other), so a weapon or item only one file has
  is left out when its name is one of KTX's (EVENT_NAMES), and so is a
  member KTX writes only when its value is not 0 (WHEN_NOT_ZERO: an
  armour worn under a second has no "time") under one both have; then the
  players' names must be NAME..., and each player's team, frags,
  deaths, kills and suicides the same in both; besides, the values' JSON types per key path,
  the header's version, map, mode, tl, dm, tp, duration and teams, and
  the demo's name up to its "]" (KTX adds a date after it).  keys: every key path of KTX's real file is
  in the key list written from KTX's source (tests/match/stats_keys.txt,
  for a richer duel than the one played here, so not the other way
  round; a weapon's or item's members under any of KTX's names).
  Exit status 0 when all agree; what differs is printed.
"""
import json
import sys

TOLERANCE = 0.15
DRIFT = 0.005

# key paths KTX writes and qwd deliberately does not (or the reverse)
ALLOWED = {
}


# KTX's names of weapons and items in a player's "weapons" and "items"
# (its stats.c's WpName and ItName)
EVENT_NAMES = {"axe", "sg", "ssg", "ng", "sng", "gl", "rl", "lg",
               "health_15", "health_25", "health_100", "ga", "ya", "ra",
               "q", "p", "r"}
EVENT_PARENTS = ("players[].weapons", "players[].items")
# the members of a weapon or item KTX writes only when their values are
# not 0 (its stats_json.c): under a weapon or item both files have, one
# of these on one side only is what happened (one server's player wore
# the green armour a second, the other's less), not the format
WHEN_NOT_ZERO = ("players[].weapons.*.acc", "players[].weapons.*.kills",
                 "players[].weapons.*.pickups", "players[].weapons.*.damage",
                 "players[].items.*.took", "players[].items.*.time")


def flatten(value, prefix, out):
    """Every key path under value, lists' items as PREFIX[], in the order
    first seen (a dict used as an ordered set)."""
    if isinstance(value, dict):
        for k, v in value.items():
            path = prefix + "." + k if prefix else k
            out[path] = True
            flatten(v, path, out)
    elif isinstance(value, list):
        for v in value:
            flatten(v, prefix + "[]", out)
    return out


def event_member(path):
    """The weapon or item a path is under (players[].items.ya), or None."""
    for parent in EVENT_PARENTS:
        if path.startswith(parent + "."):
            return ".".join(path.split(".")[:3])
    return None


def generalise(path):
    """players[].items.ya.took -> players[].items.*.took, for a name of
    KTX's; other paths as they are."""
    member = event_member(path)
    if not member or member.split(".")[2] not in EVENT_NAMES:
        return path
    return member.rsplit(".", 1)[0] + ".*" + path[len(member):]


def load(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return json.load(f)


def timed(path):
    """{(event, occurrence): seconds} from matchduel's time lines."""
    seen = {}
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("time "):
                continue
            _, t, what = line.rstrip("\n").split(" ", 2)
            # qwd folds KTX's "0 min left" into the Standby of the same
            # frame (match-ktx.sh's design note)
            if what == "status 0 min left":
                continue
            n = seen.get(what, 0)
            seen[what] = n + 1
            out[(what, n)] = float(t)
    return out


def times(qwd_txt, ktx_txt):
    q = timed(qwd_txt)
    k = timed(ktx_txt)
    ok = True
    for key in sorted(set(q) & set(k), key=lambda e: q[e]):
        d = q[key] - k[key]
        bad = abs(d) > TOLERANCE + DRIFT * max(q[key], k[key])
        ok = ok and not bad
        print("%-40s qwd %7.3f  KTX %7.3f  %+.3f%s" %
              (key[0], q[key], k[key], d, "  (too far)" if bad else ""))
    for need in ("status 1 min left", "print The match has begun",
                 "print [10] seconds", "print The match is over",
                 "status Standby"):
        if not any(key[0].startswith(need) for key in set(q) & set(k)):
            print("not timed on both: %s" % need)
            ok = False
    return ok


def values(doc, path):
    """The values at a key path (every list item's)."""
    found = [doc]
    for part in path.split("."):
        step = []
        for name in [part[:-2]] if part.endswith("[]") else [part]:
            for v in found:
                if isinstance(v, dict) and name in v:
                    step.append(v[name])
        if part.endswith("[]"):
            step = [i for v in step if isinstance(v, list) for i in v]
        found = step
    return found


def players(doc):
    return {p.get("name"): p for p in doc.get("players", [])}


def compare_json(qwd_json, ktx_json, names):
    q = load(qwd_json)
    k = load(ktx_json)
    ok = True
    qk = flatten(q, "", {})
    kk = flatten(k, "", {})
    both = {event_member(p) for p in qk} & {event_member(p) for p in kk}
    told = set()
    for side, a, b in (("qwd", qk, kk), ("KTX", kk, qk)):
        for path in a:
            if path in b or path in ALLOWED:
                continue
            member = event_member(path)
            if member and member not in both:
                name = member.split(".")[2]
                if name in EVENT_NAMES:
                    if member not in told:
                        print("(only %s's players took or used %s)" % (side, name))
                    told.add(member)
                    continue
            g = generalise(path)
            if member and any(g == k or g.startswith(k + ".") for k in WHEN_NOT_ZERO):
                print("(only %s's has %s: KTX writes it when not 0)" % (side, path))
                continue
            print("only %s's has %s" % (side, path))
            ok = False
    qo = [p for p in qk if p in kk and p not in ALLOWED]
    ko = [p for p in kk if p in qk and p not in ALLOWED]
    if qo != ko:
        print("the keys both have come in another order:")
        print("  qwd: %s" % " ".join(qo))
        print("  KTX: %s" % " ".join(ko))
        ok = False
    for path in qo:
        qt = {type(v).__name__ for v in values(q, path)}
        kt = {type(v).__name__ for v in values(k, path)}
        if qt != kt:
            print("%s: qwd's %s, KTX's %s" % (path, sorted(qt), sorted(kt)))
            ok = False
    for key in ("version", "map", "mode", "tl", "dm", "tp", "duration", "teams"):
        if q.get(key) != k.get(key):
            print("%s: qwd %r, KTX %r" % (key, q.get(key), k.get(key)))
            ok = False
    # the demo's name up to its map (KTX adds its k_demoname_date)
    qd = str(q.get("demo", "")).split("]")[0]
    kd = str(k.get("demo", "")).split("]")[0]
    if qd != kd:
        print("demo: qwd %r, KTX %r" % (q.get("demo"), k.get("demo")))
        ok = False
    qp = players(q)
    kp = players(k)
    for side, p in (("qwd", qp), ("KTX", kp)):
        if sorted(p) != sorted(names):
            print("%s's players: %s, not %s" % (side, sorted(p), sorted(names)))
            ok = False
    for name in names:
        a = qp.get(name, {})
        b = kp.get(name, {})
        for what, get in (("team", lambda p: p.get("team")),
                          ("frags", lambda p: p.get("stats", {}).get("frags")),
                          ("deaths", lambda p: p.get("stats", {}).get("deaths")),
                          ("kills", lambda p: p.get("stats", {}).get("kills")),
                          ("suicides", lambda p: p.get("stats", {}).get("suicides"))):
            if get(a) != get(b):
                print("%s's %s: qwd %r, KTX %r" % (name, what, get(a), get(b)))
                ok = False
            else:
                print("%s's %s: %r" % (name, what, get(a)))
    return ok


def keys(listed, ktx_json):
    with open(listed, encoding="utf-8") as f:
        known = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    real = flatten(load(ktx_json), "", {})
    # the list's weapons and items are those of its richer duel: a
    # weapon's or item's members are looked for under any of its names
    generic = {generalise(p) for p in known}
    missing = sorted(p for p in real
                     if p not in known and generalise(p) not in generic)
    for path in missing:
        print("KTX's file has %s, the key list not" % path)
    return not missing


def main(argv):
    if len(argv) == 4 and argv[1] == "times":
        return times(argv[2], argv[3])
    if len(argv) >= 4 and argv[1] == "json":
        return compare_json(argv[2], argv[3], argv[4:])
    if len(argv) == 4 and argv[1] == "keys":
        return keys(argv[2], argv[3])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv) else 1)
