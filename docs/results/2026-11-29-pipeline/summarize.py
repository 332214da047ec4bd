#!/usr/bin/env python3
# summarize.py DIR -- the table of run.sh's runs: per map, size and kind,
# the mean frames/s, the ratio to one thread, CPU/wall in server_frame,
# the phases' per-frame means, the state digests (equal or not), and
# the pipelined runs' steps taken.
import glob, os, re, sys, collections
d = sys.argv[1]
runs = collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(d, '*.txt'))):
    m = re.match(r'(\w+)-(\d+)-(t1|t2-d|t2-p)-(\d+)\.txt', os.path.basename(f))
    if not m:
        continue
    t = open(f).read()
    fps = float(re.search(r'([\d.]+) frames/s', t).group(1))
    w = re.search(r'\(([\d.]+) s in server_frame, CPU ([\d.]+) s\)', t)
    ph = {k: float(v) for k, v in re.findall(r'^  (world|receive|execute|reply) +([\d.]+) us', t, re.M)}
    dig = re.search(r'state digest.*: (\w+)', t).group(1)
    sp = re.search(r'at their turn (\d+) taken \(([\d.]+)%\)', t)
    runs[(m.group(1), int(m.group(2)), m.group(3))].append(
        dict(fps=fps, cpu=float(w.group(2)) / float(w.group(1)), ph=ph, dig=dig,
             taken=float(sp.group(2)) if sp else None))
print('| map | players | t1 frames/s | t2 default | t2 pipelined | default / t1 | pipelined / t1 | CPU/wall t2-p | t1 execute / reply us | t2-p execute / reply us | steps taken | digests equal |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|')
mean = lambda xs: sum(xs) / len(xs)
for mp in ('small', 'large', 'lqdm1'):
    for n in (1024, 2048):
        r = {k: runs.get((mp, n, k)) for k in ('t1', 't2-d', 't2-p')}
        if not all(r.values()):
            continue
        f = {k: mean([x['fps'] for x in v]) for k, v in r.items()}
        digs = {x['dig'] for v in r.values() for x in v}
        p = r['t2-p']
        print(f"| {mp} | {n} | {f['t1']:.1f} | {f['t2-d']:.1f} | {f['t2-p']:.1f} | "
              f"{f['t2-d']/f['t1']:.2f} | {f['t2-p']/f['t1']:.2f} | {mean([x['cpu'] for x in p]):.2f} | "
              f"{mean([x['ph']['execute'] for x in r['t1']]):.0f} / {mean([x['ph']['reply'] for x in r['t1']]):.0f} | "
              f"{mean([x['ph']['execute'] for x in p]):.0f} / {mean([x['ph']['reply'] for x in p]):.0f} | "
              f"{mean([x['taken'] for x in p if x['taken'] is not None]):.1f}% | {'yes' if len(digs) == 1 else 'NO'} |")
