#!/usr/bin/env python3
"""summary.py -- the tables of README.md from raw/*.json (run.sh's runs):
per map, players and behaviour, each server's frames/s, the phases per
request, the EXECUTE steps per frame, the local share of the scheduled
segments, and CPU/wall of the server's frames (above 1: the time both
threads were busy, the study's full-parallelism share)."""
import glob
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
runs = {}
for path in sorted(glob.glob(os.path.join(here, "raw", "*.json"))):
    name = os.path.basename(path)[:-5]
    cfg = next(c for c in ("t2-r", "t2-x", "t1", "t2") if name.endswith("-" + c))
    m, players, beh = name[: -(len(cfg) + 1)].rsplit("-", 2)
    with open(path) as f:
        runs[(m, int(players), beh, cfg)] = json.load(f)

cfgs = ["t1", "t2-r", "t2", "t2-x"]
print("| map | players | walkers | server | frames/s | vs t1 | world | receive | execute | reply (us/request) | schedule | workers | commit | shared | arrival (us/frame) | local share | CPU/wall | state digest |")
print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for key in sorted({k[:3] for k in runs}):
    base = runs.get(key + ("t1",))
    for cfg in cfgs:
        r = runs.get(key + (cfg,))
        if not r:
            continue
        ph = r["phase_us_per_request"]
        x = r.get("execute", {})
        frames = r["server"]["frames"] or 1
        moves = x.get("local_moves", 0) + x.get("shared_moves", 0)
        share = "%.0f%%" % (100.0 * x["local_moves"] / moves) if moves else "-"
        step = lambda k: "%.0f" % (x.get(k, 0) / 1000.0 / frames)
        rel = "%.2f" % (r["frames_per_s"] / base["frames_per_s"]) if base else "-"
        cpu = r["server"]["frame_cpu_s"] / r["server"]["frame_wall_s"]
        same = "=" if base and r["state_digest"] == base["state_digest"] else "DIFFERS"
        print("| %s | %d | %s | %s | %.1f | %s | %.2f | %.2f | %.2f | %.2f | %s | %s | %s | %s | %s | %s | %.2f | %s |" % (
            key[0], key[1], key[2], cfg, r["frames_per_s"], rel,
            ph["world"]["mean"], ph["receive"]["mean"], ph["execute"]["mean"], ph["reply"]["mean"],
            step("schedule_ns"), step("workers_ns"), step("commit_ns"), step("shared_ns"), step("arrival_ns"),
            share, cpu, same))
