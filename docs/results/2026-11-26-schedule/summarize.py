#!/usr/bin/env python3
# summarize.py -- the table of README.md from the runs' JSON files
# (MAP-PLAYERS-RULE.json, framebench --schedule --json), one row a run.
import json, glob, os, sys

here = os.path.dirname(os.path.abspath(__file__))
maps = ["small", "large", "lqdm1"]
rules = ["shots", "lines", "moves", "local"]
print("| map | players | rule | jobs/frame mean (p50) | entities/job mean (p99, max) "
      "| clients/job p99 | largest job's share mean | LPT 2: max/mean | one-job frames "
      "| simulated speedup W=2 / 4 / 8 / 16 |")
print("|---|---|---|---|---|---|---|---|---|---|")
for m in maps:
    for n in (512, 1024, 2048):
        for r in rules:
            f = os.path.join(here, "%s-%d-%s.json" % (m, n, r))
            if not os.path.exists(f):
                continue
            s = json.load(open(f))["schedule"]
            sp = {x["workers"]: x["speedup"] for x in s["simulated_lpt"]}
            print("| %s | %d | %s | %.1f (%d) | %.1f (%d, %d) | %d | %.0f%% | %.2f | %d of %d | %.2f / %.2f / %.2f / %.2f |" % (
                m, n, r, s["jobs_per_frame"]["mean"], s["jobs_per_frame"]["p50"],
                s["entities_per_job"]["mean"], s["entities_per_job"]["p99"],
                s["entities_per_job"]["max"], s["clients_per_job"]["p99"],
                s["largest_job_share_pct"]["mean"], s["lpt2_max_over_mean"]["mean"],
                s["global_frames"], s["frames"], sp[2], sp[4], sp[8], sp[16]))
