#!/usr/bin/env python3
# cgdiff.py A.out B.out REQUESTS [TOP] -- what B did beyond A, per request.
#
# Design note: A and B are callgrind profiles of the same framebench
# options but the number of measured rounds, so B - A is the steady state
# alone (the joins and the level load cancel).  callgrind_annotate gives
# every function's inclusive and self instructions; the differences are
# divided by REQUESTS (the rounds B ran beyond A x the players) and listed
# by inclusive, then by self cost.  Recursive functions appear once per
# recursion level callgrind separates ('2): read their self columns.
import subprocess, sys, re
def load(f, incl):
    out = subprocess.run(['callgrind_annotate', '--inclusive=' + ('yes' if incl else 'no'), '--threshold=100', '--auto=no', f], capture_output=True, text=True).stdout
    d = {}; total = None
    for line in out.splitlines():
        m = re.match(r'\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(?:\*\s+)?(\S.*)$', line)
        if not m or '=>' in line: continue
        v = int(m.group(1).replace(',', ''))
        name = m.group(2)
        if 'PROGRAM TOTALS' in name: total = v; continue
        name = name.split(' [')[0]
        d[name] = d.get(name, 0) + v
    return total, d
def main():
    a, b, reqs = sys.argv[1], sys.argv[2], float(sys.argv[3])
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 30
    ta, ia = load(a, True); tb, ib = load(b, True)
    _, sa = load(a, False); _, sb = load(b, False)
    T = tb - ta
    print(f'total {T} Ir, {T/reqs:.0f} Ir per request')
    rows = sorted(((ib.get(k,0)-ia.get(k,0), sb.get(k,0)-sa.get(k,0), k) for k in ib), reverse=True)
    print(f'{"incl/req":>10} {"incl%":>6} {"self/req":>9} {"self%":>6}  function')
    for inc, sf, k in rows[:top]:
        print(f'{inc/reqs:10.0f} {100*inc/T:6.1f} {sf/reqs:9.0f} {100*sf/T:6.1f}  {k}')
    print('--- by self')
    rows.sort(key=lambda r: -r[1])
    for inc, sf, k in rows[:top]:
        print(f'{inc/reqs:10.0f} {100*inc/T:6.1f} {sf/reqs:9.0f} {100*sf/T:6.1f}  {k}')

if __name__ == '__main__':
    main()
