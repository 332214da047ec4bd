#!/usr/bin/env python3
# summarize.py DIR... -- run.sh's runs (t1 and t2-p) per map and size:
# each alternation's pipelined / t1 frames/s, the median and mean of
# those ratios, the second thread's busy share (CPU/wall - 1 inside
# server_frame), and the control: the reply phase's t1 / t2-p time in
# the same alternation (the replies are split evenly over the threads,
# so this ratio is what the second CPU gave that run; 2.0 is a whole
# CPU).  State digests: every run of a map and size must agree.
import glob, os, re, sys, collections, statistics
runs = collections.defaultdict(dict)
for d in sys.argv[1:]:
    for f in sorted(glob.glob(os.path.join(d, '*.txt'))):
        m = re.match(r'(\w+)-(\d+)-(t1|t2-p)-(\d+)\.txt', os.path.basename(f))
        if not m:
            continue
        t = open(f).read()
        fps = re.search(r'([\d.]+) frames/s', t)
        if not fps:
            continue
        w = re.search(r'\(([\d.]+) s in server_frame, CPU ([\d.]+) s\)', t)
        ph = {k: float(v) for k, v in re.findall(r'^  (world|receive|execute|reply) +([\d.]+) us', t, re.M)}
        dig = re.search(r'state digest.*: (\w+)', t).group(1)
        key = (m.group(1), int(m.group(2)))
        runs[key].setdefault((d, int(m.group(4))), {})[m.group(3)] = dict(
            fps=float(fps.group(1)), busy=float(w.group(2)) / float(w.group(1)) - 1,
            ph=ph, dig=dig)
print('| map | players | pairs | t1 frames/s (median) | t2 frames/s (median) | t2 / t1 per pair | median | mean | pairs >= 1.6 | 2nd thread busy (median) | reply phase t1 / t2 per pair | digests equal |')
print('|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---|')
for mp in ('small', 'large', 'lqdm1'):
    for n in (1024, 2048):
        pairs = [p for _, p in sorted(runs.get((mp, n), {}).items()) if 't1' in p and 't2-p' in p]
        if not pairs:
            continue
        ratio = [p['t2-p']['fps'] / p['t1']['fps'] for p in pairs]
        rep = [p['t1']['ph']['reply'] / p['t2-p']['ph']['reply'] for p in pairs]
        digs = {p[k]['dig'] for p in pairs for k in p}
        print(f"| {mp} | {n} | {len(pairs)} | {statistics.median([p['t1']['fps'] for p in pairs]):.1f} | "
              f"{statistics.median([p['t2-p']['fps'] for p in pairs]):.1f} | "
              f"{', '.join(f'{r:.2f}' for r in ratio)} | **{statistics.median(ratio):.2f}** | {statistics.mean(ratio):.2f} | "
              f"{sum(r >= 1.6 for r in ratio)} of {len(ratio)} | {statistics.median([p['t2-p']['busy'] for p in pairs]):.2f} | "
              f"{', '.join(f'{r:.2f}' for r in rep)} | {'yes' if len(digs) == 1 else 'NO'} |")
# every pair of the dirs by its control (the reply phase's t1 / t2-p):
# what the frame gained as the second CPU gave more
allp = [(p['t1']['ph']['reply'] / p['t2-p']['ph']['reply'], p['t2-p']['fps'] / p['t1']['fps'], key)
        for key, d in runs.items() for p in d.values() if 't1' in p and 't2-p' in p]
print()
print('| reply phase t1 / t2 (the second CPU) | pairs | frames/s t2 / t1: median | min - max | pairs >= 1.6 |')
print('|---|---:|---:|---|---:|')
for lo, hi in ((0, 1.3), (1.3, 1.6), (1.6, 1.8), (1.8, 9)):
    b = [r for c, r, _ in allp if lo <= c < hi]
    if b:
        name = f'under {hi}' if lo == 0 else (f'{lo} and over' if hi == 9 else f'{lo} - {hi}')
        print(f'| {name} | {len(b)} | {statistics.median(b):.2f} | {min(b):.2f} - {max(b):.2f} | {sum(r >= 1.6 for r in b)} |')
