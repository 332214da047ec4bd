#!/usr/bin/env python3
"""summarize.py DIR -- the table of README.md from run.sh's runs: per map
and players, the mean frames/s of each configuration (t1, t2-s, t2-r),
t2-s over t1, CPU/wall of the frames, the share of first steps run ahead and of those taken,
the state digests' agreement, and the load average around the runs."""
import json
import os
import re
import sys
from collections import defaultdict

d = sys.argv[1] if len(sys.argv) > 1 else "runs"
runs = defaultdict(list)
for name in sorted(os.listdir(d)):
    m = re.match(r"(\w+)-(\d+)-(t1|t2-s|t2-r)-(\d)\.json$", name)
    if not m:
        continue
    with open(os.path.join(d, name)) as f:
        j = json.load(f)
    with open(os.path.join(d, name[:-5] + ".txt")) as f:
        loads = [float(x) for x in re.findall(r"load average: ([0-9.]+)", f.read())]
    runs[(m.group(1), int(m.group(2)))].append((m.group(3), j, loads))

print("| map | players | t1 frames/s | t2-s | t2-r | t2-s / t1 | CPU/wall t1 / t2-s "
      "| steps ahead | taken of those | digests equal | load (1 min) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
for (mp, n), rs in sorted(runs.items(), key=lambda k: (["small", "large", "lqdm1"].index(k[0][0]), k[0][1])):
    fps = defaultdict(list)
    cpu = defaultdict(list)
    digests = set()
    taken = None
    ahead = None
    loads = []
    for mode, j, ld in rs:
        fps[mode].append(j["frames_per_s"])
        s = j["server"]
        cpu[mode].append(s["frame_cpu_s"] / s["frame_wall_s"])
        digests.add(j["state_digest"])
        loads += ld
        x = j["execute"]
        asked = x["spec_hits"] + x["spec_inputs"] + x["spec_world"]
        if mode == "t2-s" and asked:
            taken = 100.0 * x["spec_hits"] / asked
            ahead = 100.0 * x["spec_moves"] / (x["spec_moves"] + x.get("spec_rested", 0))

    def mean(v):
        return sum(v) / len(v) if v else float("nan")

    print("| %s | %d | %.1f | %.1f | %.1f | %.2f | %.2f / %.2f | %.1f%% | %.1f%% | %s | %.1f-%.1f |" % (
        mp, n, mean(fps["t1"]), mean(fps["t2-s"]), mean(fps["t2-r"]),
        mean(fps["t2-s"]) / mean(fps["t1"]), mean(cpu["t1"]), mean(cpu["t2-s"]),
        ahead or 0, taken or 0, "yes" if len(digests) == 1 else "NO (%d)" % len(digests),
        min(loads), max(loads)))
