#!/usr/bin/env python3
"""summary.py RAW -- the tables of README.md from framebench's JSON files
RAW/p<players>-t<threads>-r<rep>.json (threads 0: the build before this
work, sequential): per run, requests/s over the frames' wall time, the
REPLY phase per round (mean, p99), the four phases per round, CPU over
wall; then per (players, threads) the median of the runs against
threads 1, and whether the world digests agree (the reply digest is new
with this work: threads 0 has none)."""
import json
import os
import statistics
import sys

raw = sys.argv[1]
runs = {}
for name in sorted(os.listdir(raw)):
    if not name.endswith(".json"):
        continue
    p, t, r = name[:-5].split("-")
    with open(os.path.join(raw, name)) as f:
        j = json.load(f)
    runs[(int(p[1:]), int(t[1:]), int(r[1:]))] = j

print("| players | threads | run | requests/s | reply mean us | reply p99 us | all four mean us | CPU/wall | world digest | reply digest |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
for (p, t, r), j in sorted(runs.items()):
    ph = j["phase_us_per_frame"]
    s = j["server"]
    print(f"| {p} | {t} | {r} | {j['requests_per_s']:.0f} | {ph['reply']['mean']:.0f} | "
          f"{ph['reply']['p99']:.0f} | {ph['busy']['mean']:.0f} | "
          f"{s['frame_cpu_s'] / s['frame_wall_s']:.2f} | {j['world_digest']} | {j.get('reply_digest', '-')} |")
print()
print("| players | threads | requests/s (median) | reply mean us (median) | reply p99 us (median) | reply speed-up | requests/s gain | reply mean us (best) | requests/s (best) | reply speed-up (best) |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for p in sorted({k[0] for k in runs}):
    med = {}
    for t in sorted({k[1] for k in runs if k[0] == p}):
        js = [j for (pp, tt, _), j in runs.items() if pp == p and tt == t]
        med[t] = (statistics.median(j["requests_per_s"] for j in js),
                  statistics.median(j["phase_us_per_frame"]["reply"]["mean"] for j in js),
                  statistics.median(j["phase_us_per_frame"]["reply"]["p99"] for j in js),
                  min(j["phase_us_per_frame"]["reply"]["mean"] for j in js),
                  max(j["requests_per_s"] for j in js))
    for t, (rq, rm, r99, best, rqbest) in med.items():
        sp = f"{med[1][1] / rm:.2f}x" if 1 in med else "-"
        gain = f"{100.0 * (rq / med[1][0] - 1):+.1f}%" if 1 in med else "-"
        spb = f"{med[1][3] / best:.2f}x" if 1 in med else "-"
        print(f"| {p} | {t} | {rq:.0f} | {rm:.0f} | {r99:.0f} | {sp} | {gain} | {best:.0f} | {rqbest:.0f} | {spb} |")
    worlds = {j["world_digest"] for (pp, _, _), j in runs.items() if pp == p}
    replies = {j["reply_digest"] for (pp, _, _), j in runs.items() if pp == p and "reply_digest" in j}
    same = len(worlds) == 1 and len(replies) == 1
    print(f"\n{p} players: {'one world digest for every run, one reply digest for every run of threads 1 and 2' if same else 'DIGESTS DIFFER: ' + str(worlds) + ' ' + str(replies)}\n")
