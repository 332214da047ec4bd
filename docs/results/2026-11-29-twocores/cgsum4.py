#!/usr/bin/env python3
"""cgsum4.py T1 T2 NATIVE... -- the pipelined frame's makespan on W
workers, simulated from instruction counts (cg.sh here).

T1: the sequential frame's callgrind profile, thread 1 part 2 (the
measured frames); T2: the pipelined run's (2 threads, sv_threads_execute
4) thread-1 part 2, the coordinator's: what a commit costs with its
checks, and an input's cost.  Callgrind runs one thread at a time, so
its split of the steps between the threads is not a real run's; the
shares come from NATIVE instead, framebench reports of real pipelined
runs of the same map and size (their sums): the moves resting, and the
share of the steps made ahead that were taken.

Per request, in thousands of instructions:
- step: a move's pmove step (T1's pmove_run over the requests);
- Q_exec, the commit in arrival order: T2's game_client_cmd less its
  pmove_run (the game, and the check of each step taken), plus a step
  for every move whose step was not taken (resting, or run again);
- S, the steps ahead: a step for every move not resting (the ones run
  again are thrown away, but run);
- P, the parallel items: the inputs and the snapshot (T2's
  pipe_prepare_item, scaled from its calls to every item) and the
  replies (T1's sv_send_replies less the sequential part T2's
  coordinator spent in it beside its items);
- Q_other, the rest of the frame, sequential: T1's frame less the
  game's commands and the replies, plus that sequential reply part.
The commit runs beside W - 1 workers' steps; once they lag, the
coordinator takes steps too:
  makespan(W) = Q_other + max(Q_exec, (Q_exec + S) / W) + P / W
speedup(W) = T1's frame / makespan(W); busy = (total work / W) /
makespan(W).  A simulation over instruction counts, not a run: caches,
spins and waits are not in it, and the real steps cost more than their
instructions say relative to the game's code (in the native runs the
worker lags and the coordinator takes 20% of the steps)."""
import importlib.util
import os
import re
import sys

# the inclusive costs by function: cgdiff.py's reading of
# callgrind_annotate (2026-11-28-crowd)
_spec = importlib.util.spec_from_file_location('cgdiff', os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '2026-11-28-crowd',
    'cgdiff.py'))
cgdiff = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cgdiff)


def incl(path):
    """({function: inclusive cost}, {function: calls}) of one dump; the
    calls from the out file's "calls=" lines under each "cfn=" """
    _, by_where = cgdiff.load(path, True)
    fn = {}
    for where, v in by_where.items():
        fn[where.rsplit(':', 1)[-1]] = fn.get(where.rsplit(':', 1)[-1], 0) + v
    names, calls, callee = {}, {}, None
    for line in open(path):
        if line.startswith(('fn=', 'cfn=')):
            # "(N) name" names N for fn= and cfn= alike; "(N)" after
            m = re.match(r'c?fn=\((\d+)\)(?: (.*))?$', line.strip())
            if m and m.group(2):
                names[m.group(1)] = m.group(2)
            if line.startswith('cfn='):
                callee = names.get(m.group(1)) if m else line[4:].strip()
        elif line.startswith('calls=') and callee:
            calls[callee] = calls.get(callee, 0) + int(line[6:].split()[0])
    return fn, calls


def native(paths):
    moves = rest = taken = made = segs = 0
    for p in paths:
        t = open(p).read()
        req = re.search(r"players' side: (\d+) requests", t)
        m = re.search(r"speculative moves: (\d+) segments, (\d+) first steps ahead \((\d+) moves resting\); "
                      r"at their turn (\d+) taken", t)
        moves += int(req.group(1))
        segs += int(m.group(1))
        made += int(m.group(2))
        rest += int(m.group(3))
        taken += int(m.group(4))
    # a step not resting is made ahead in the model (the native runs'
    # worker lags and leaves some to the coordinator): taken as often as
    # the native runs took the ones made
    return rest / moves, (1 - rest / moves) * taken / made, segs / moves


t1, c1 = incl(sys.argv[1])
t2, c2 = incl(sys.argv[2])
rest, taken, segs = native(sys.argv[3:])
req = c1["game_client_cmd"]
k = lambda x: x / req / 1e3
step = k(t1["pmove_run"])
q_exec = k(t2["game_client_cmd"] - t2["pmove_run"]) * req / c2["game_client_cmd"] + (1 - taken) * step
s = (1 - rest) * step
prep = t2["pipe_prepare_item"] / c2["pipe_prepare_item"] * (1 + 16 * segs) / 1e3
seq_reply = (t2["sv_send_replies"] - t2.get("reply_item", 0) - t2.get("prefill_item", 0)) / c2["game_client_cmd"] / 1e3
p = prep + k(t1["sv_send_replies"]) - seq_reply
q_other = k(t1["server_frame"] - t1["game_client_cmd"] - t1["sv_send_replies"]) + seq_reply
frame = k(t1["server_frame"])
total = q_other + q_exec + s + p
print("requests %d; sequential frame %.2fk a request (a step %.2fk); moves resting %.1f%%, steps taken %.1f%% "
      "(native shares); model: Q_other %.2f, Q_exec %.2f, S %.2f, P %.2f (inputs and snapshot %.2f); total %.2f"
      % (req, frame, step, 100 * rest, 100 * taken, q_other, q_exec, s, p, prep, total))
print("| W | makespan k/request | speedup | workers busy |")
print("|---:|---:|---:|---:|")
for w in (1, 2, 4, 8, 16):
    mk = q_other + max(q_exec, (q_exec + s) / w) + p / w
    print("| %d | %.2f | %.2fx | %.0f%% |" % (w, mk, frame / mk, 100 * total / w / mk))
