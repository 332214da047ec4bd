#!/usr/bin/env python3
# table.py DIR TAG... -- the README's rows from cg.sh's profiles in DIR.
#
# Design note: for each build TAG and crowd (2048 small, 2048 lqdm1, and
# 1024 of each when present) the 30-round profile minus the 10-round one
# (cgdiff.py's method: the steady state alone), per request, for the
# functions the README follows; and the three digests of the 30-round
# run, which must be the same for every TAG (the same game).
import importlib.util, os, re, sys

_spec = importlib.util.spec_from_file_location('cgdiff', os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '2026-11-28-crowd',
    'cgdiff.py'))
cgdiff = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cgdiff)


def diff(a, b):
    """b - a by function: inclusive and self (cgdiff.py's parsing)"""
    _, ia = cgdiff.load(a, True); _, ib = cgdiff.load(b, True)
    _, sa = cgdiff.load(a, False); _, sb = cgdiff.load(b, False)
    return ({k: ib.get(k, 0) - ia.get(k, 0) for k in ib},
            {k: sb.get(k, 0) - sa.get(k, 0) for k in sb})


COLS = [('server', 'server_frame', 'incl'), ('execute', 'run_step', 'incl'),
        ('pmove', 'pmove_run', 'incl'), ('reply', 'send_reply', 'incl'),
        ('select_spawn', 'select_spawn', 'incl'),
        ('telefrag', 'player_telefrag', 'incl'),
        ('world_test_box(_objs)', ('world_test_box', 'world_test_box_objs'), 'incl'),
        ('world_move', 'world_move', 'incl'),
        ('walks (self)', ('area_query_node', 'clip_to_links'), 'self')]
d = sys.argv[1]
print('| crowd | build | ' + ' | '.join(c[0] for c in COLS) + ' | digests |')
print('|---|---|' + '---:|' * len(COLS) + '---|')
for crowd in ('2048.small', '2048.lqdm1', '1024.small', '1024.lqdm1'):
    for tag in sys.argv[2:]:
        a = f'{d}/cg.{tag}.{crowd}.10.out'; b = f'{d}/cg.{tag}.{crowd}.30.out'
        if not (os.path.exists(a) and os.path.getsize(b) > 0):
            continue
        reqs = 20 * int(crowd.split('.')[0])
        inc, slf = diff(a, b)
        row = []
        for _, fn, kind in COLS:
            src = inc if kind == 'incl' else slf
            names = fn if isinstance(fn, tuple) else (fn,)
            # callgrind_annotate may list a function twice, by its
            # absolute and by its relative source path: counted once
            one = {}
            for k, x in src.items():
                if any(k.endswith(':' + n) or k.endswith(':' + n + "'2") for n in names):
                    k = re.sub(r'^/.*?/(?=(src|tools)/)', '', k)
                    one[k] = max(one.get(k, 0), x)
            v = sum(one.values())
            row.append(f'{v / reqs:,.0f}')
        log = open(f'{d}/cg.{tag}.{crowd}.30.log').read()
        dg = ' '.join(re.findall(r'digest .*: ([0-9a-f]{16})', log))
        print(f'| {crowd.replace(".", " ")} | {tag} | ' + ' | '.join(row) + f' | {dg} |')
