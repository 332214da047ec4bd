#!/usr/bin/env python3
"""qwprof.py -- simulated hardware counters for qwd under a bot load.

Design note
  The project's VMs expose no PMU (perf_event_open refuses the hardware
  events), so the figures the 2001 study took with EMON are simulated
  here with valgrind, deterministically, and labelled so:
    * cachegrind --cache-sim=yes --branch-sim=yes over the whole run gives
      Ir, data reads/writes (Dr, Dw), conditional and indirect branches
      (Bc, Bi) and their misses.  From them: Table I (instruction mix),
      Table II (miss and misprediction rates), Table III (share of data
      references served by L1, LL and memory).
    * lackey --detailed-counts=yes (optional, --lackey) counts conditional
      jumps and the loads, stores and floating-point operations of the
      VEX IR; it gives the floating-point share.  Lackey is slower than
      cachegrind; --lackey-bots/--lackey-duration shorten its run when qwd
      cannot keep up (its response rate is printed with the table).
    * callgrind --toggle-collect=server_frame (optional, --callgrind)
      charges instructions to the frame's phases by the inclusive cost of
      their functions (src/server/frame.c): world = game_frame, receive +
      execute = net_udp_recv_batch + sv_client_packet, execute = the move
      and command functions, reply = sv_send_replies.
  Approximations, printed with the tables: cachegrind counts data
  REFERENCES, not instructions (a read-modify-write counts as one read; an
  instruction that reads one place and writes another, push of a memory
  operand or movs, counts twice; a call or ret is both a branch and a
  memory reference), so "memory instructions" is approximated by
  (Dr + Dw) / Ir, and "other" by what is neither a branch nor a
  reference.  The cachegrind run and the lackey run are taken minus a
  start-up baseline (qwd loading the map under the same tool, stopped
  with no bot): all counts are additive, and start-up is deterministic
  for one map, so the difference is the frames under load (the bots'
  join and warm-up included).  The VM's CPUID reports a 512 MB LL, so the
  default LL is set to the host's 32 MB L3.  Under valgrind qwd runs
  30-50x slower: the default load (64 walker bots, 5 requests/s each) is
  one qwd sustains there (at 30 requests/s it would saturate).  The rate
  changes the work per request: a move covers 200 ms of game time
  instead of 33 ms, and the frames batch fewer requests.  qwd is stopped
  with SIGINT, on which it shuts down and valgrind writes its output.
  Python standard library and valgrind (callgrind_annotate for the
  phases); the outputs are read by qwexplib.valgrind, the processes run
  by qwexplib.runs.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "lib", "python"))

from qwexplib import report, runs, series, valgrind  # noqa: E402

CACHES = {
    "host": ["--LL=33554432,16,64"],
    "p2": ["--I1=16384,4,32", "--D1=16384,4,32", "--LL=524288,4,32"],
}


class Fail(Exception):
    pass


def say(text):
    print("qwprof: " + text, file=sys.stderr, flush=True)


def pct(a, b):
    return "%6.2f%%" % (100.0 * a / b) if b > 0 else "     -"


def row(label, value, study=None):
    if study is None:
        return "  %-58s %9s" % (label, value)
    return "  %-58s %9s  %s" % (label, value, study)


def cachegrind_tables(base, loaded):
    """Tables I-III (lines) from the baseline's and the loaded run's
    cachegrind outputs (valgrind.parse_cachegrind)."""
    b, w = base["events"], loaded["events"]
    if "Ir" not in w or "Bc" not in w:
        raise Fail("no cache or branch events in the cachegrind output")
    s = {k: w[k] - b.get(k, 0) for k in w}
    desc = loaded["desc"]
    cfg = "I1 %s, D1 %s, LL %s" % tuple(valgrind.cache_short(desc.get(k, ""))
                                        for k in ("I1", "D1", "LL"))
    ir, dr, dw, bc, bi = s["Ir"], s["Dr"], s["Dw"], s["Bc"], s["Bi"]
    d = dr + dw
    d1m = s["D1mr"] + s["D1mw"]
    dlm = s["DLmr"] + s["DLmw"]
    other = max(0, ir - bc - bi - d)
    out = ["Ir (instructions executed): %d under load (whole run %d, start-up baseline %d)"
           % (ir, w["Ir"], b.get("Ir", 0)), ""]
    out += [
        "Table I. Instruction mix -- simulated (cachegrind, %s)" % cfg,
        row("class", "simulated", "study"),
        row("branches ((Bc + Bi) / Ir)", pct(bc + bi, ir), "15.7%"),
        row("  conditional (Bc / Ir)", pct(bc, ir)),
        row("  indirect (Bi / Ir)", pct(bi, ir)),
        row("memory instructions ~ (Dr + Dw) / Ir (references)", pct(d, ir), "63.5%"),
        row("  reading ~ Dr / Ir", pct(dr, ir)),
        row("  writing ~ Dw / Ir", pct(dw, ir)),
        row("other ~ 1 - branches - memory", pct(other, ir)),
        row("floating point", "see lackey", "4.8%"),
        "",
        "Table II. Miss and misprediction rates -- simulated (cachegrind, %s)" % cfg,
        row("rate", "simulated", "study"),
        row("I1 misses / instruction fetch (I1mr / Ir)", pct(s["I1mr"], ir)),
        row("LL instruction misses / fetch (ILmr / Ir)", pct(s["ILmr"], ir)),
        row("D1 misses / data reference ((D1mr + D1mw) / (Dr + Dw))", pct(d1m, d)),
        row("  D1 read misses / read (D1mr / Dr)", pct(s["D1mr"], dr)),
        row("  D1 write misses / write (D1mw / Dw)", pct(s["D1mw"], dw)),
        row("LL data misses / data reference ((DLmr + DLmw) / (Dr + Dw))", pct(dlm, d)),
        row("LL data misses / D1 data miss (local LL miss rate)", pct(dlm, d1m)),
        row("branch mispredictions / branch ((Bcm + Bim) / (Bc + Bi))",
            pct(s["Bcm"] + s["Bim"], bc + bi), "14%"),
        row("  conditional (Bcm / Bc)", pct(s["Bcm"], bc)),
        row("  indirect (Bim / Bi)", pct(s["Bim"], bi)),
        "",
        "Table III. Share of references served by each level -- simulated (cachegrind, %s)"
        % cfg,
    ]

    def level(label, refs, l1_miss, ll_miss):
        return "  %-30s %9s %9s %9s" % (label, pct(refs - l1_miss, refs),
                                        pct(l1_miss - ll_miss, refs), pct(ll_miss, refs))

    out += [
        "  %-30s %9s %9s %9s" % ("references", "L1", "LL", "memory"),
        level("data (Dr + Dw)", d, d1m, dlm),
        level("  reads (Dr)", dr, s["D1mr"], s["DLmr"]),
        level("  writes (Dw)", dw, s["D1mw"], s["DLmw"]),
        level("instruction fetches (Ir)", ir, s["I1mr"], s["ILmr"]),
    ]
    return out


def lackey_table(base, loaded, bots, rate, window):
    """The lackey Table I (lines) from the baseline's and the loaded run's
    counts (valgrind.parse_lackey)."""
    c = {k: loaded[k] - base[k] for k in loaded}
    gi = c["guest"]
    if gi <= 0:
        raise Fail("lackey wrote no counts")
    fp = c["fp_loads"] + c["fp_stores"] + c["fp_alu"]
    return [
        "Table I (lackey). Instruction mix -- simulated (lackey --detailed-counts=yes; %d bots "
        "at %s requests/s, %s s window; minus start-up baseline)" % (bots, rate, window),
        "  guest instructions: %d; VEX IR operations per guest instruction: loads %.3f, "
        "stores %.3f, ALU %.3f" % (gi, c["loads"] / gi, c["stores"] / gi, c["alu"] / gi),
        row("class", "simulated", "study"),
        row("conditional jumps (Jccs / guest instrs)", pct(c["jcc"], gi), "15.7% (all branches)"),
        row("memory ops ~ (IR loads + stores) / guest instrs", pct(c["loads"] + c["stores"], gi),
            "63.5%"),
        row("  loads", pct(c["loads"], gi)),
        row("  stores", pct(c["stores"], gi)),
        row("floating point ~ (F32/F64 IR ops) / guest instrs", pct(fp, gi), "4.8%"),
        row("  of which FP arithmetic (F32/F64 ALU)", pct(c["fp_alu"], gi)),
        row("vector (V128/V256 ALU) / guest instrs", pct(c["vector_alu"], gi)),
        "  (VEX IR operations counted against x86 instructions: one instruction may make "
        "several",
        "   IR operations, so the memory and FP shares are upper bounds)",
    ]


def phase_table(annotate_text, bots, rate, window):
    """Instructions per frame phase (lines) from callgrind_annotate
    --inclusive=yes."""
    total, entries = valgrind.parse_annotate(annotate_text)
    inc = valgrind.by_function(entries)
    frame = inc.get("server_frame", total or 0)
    world = inc.get("game_frame", 0)
    recv = inc.get("net_udp_recv_batch", 0) + inc.get("sv_client_packet", 0)
    exn = next((f for f in ("execute_move", "run_cmd") if f in inc), "pmove_run_cmd")
    ex = inc.get(exn, 0)
    reply = inc.get("sv_send_replies", 0)
    other = frame - world - recv - reply

    def line(label, v):
        return "  %-52s %15d %9s" % (label, v, pct(v, frame))

    return [
        "Instructions per phase -- simulated (callgrind --toggle-collect=server_frame; %d bots "
        "at %s requests/s, %s s window)" % (bots, rate, window),
        "  frames (server_frame inclusive): %d instructions" % frame,
        "  %-52s %15s %9s" % ("phase (function, inclusive Ir)", "Ir", "share"),
        line("world (game_frame)", world),
        line("receive (recv batch + sv_client_packet - execute)", recv - ex),
        line("execute (%s)" % exn, ex),
        line("reply (sv_send_replies)", reply),
        line("other (select, upkeep, profiler, netchan outside)", other),
        "  (user-space instructions only: system calls such as sendmmsg and recvmmsg run in "
        "the kernel, uncounted)",
    ]


class Prof:
    """One qwprof run: its work folder, qwd under each tool, qwbots."""

    def __init__(self, a):
        self.a = a
        self.ctl = runs.Ctl(os.getcwd(), a.build)
        self.name = os.path.basename(a.map)[:-4] if a.map.endswith(".bsp") \
            else os.path.basename(a.map)
        self.port = a.port or self.ctl.free_port()
        if a.out:
            os.makedirs(a.out, exist_ok=True)
            self.work = os.path.abspath(a.out)
        else:
            self.work = tempfile.mkdtemp(prefix="qwprof-")
        maps = os.path.join(self.work, "base", "id1", "maps")
        os.makedirs(maps, exist_ok=True)
        self.bsp = os.path.join(maps, self.name + ".bsp")
        shutil.copyfile(a.map, self.bsp)

    def path(self, name):
        return os.path.join(self.work, name)

    def run_tool(self, name, bots, window, tool_args):
        """qwd under valgrind, qwbots against it (none for 0 bots: the
        start-up baseline, stopped as soon as the map is loaded), then
        SIGINT; leaves WORK/NAME.*"""
        a = self.a
        if bots > 0:
            say("%s: %d bots at %s requests/s, %s s warm-up, %s s window"
                % (name, bots, a.rate, a.warmup, window))
        else:
            say("%s: start-up baseline (map load, no bots)" % name)
        try:
            srv = self.ctl.start_qwd(self.work, self.port, self.name, max(32, bots),
                                     sets=[("sv_maxrate", 0)], timeout=300,
                                     basedir=self.path("base"), wrapper=["valgrind"] + tool_args,
                                     log_path=self.path(name + ".server.log"))
        except runs.RunError as e:
            raise Fail("%s: qwd did not load the map under valgrind\n%s" % (name, e))
        if bots > 0:
            q = self.ctl.start_bots(
                self.work, name + ".qwbots", self.port, bots, window, self.bsp,
                qwdx="on" if bots > 32 else "off", rate=a.rate,
                extra=["--warmup", a.warmup, "--seed", a.seed, "--join-rate", "20",
                       "--join-timeout", "120", "--behaviour", "walker",
                       "--server-pid", str(srv.pid), "--quiet"],
                files={"--json": self.path(name + ".qwbots.json")})
            deadline = time.monotonic() + bots / 20.0 + 120 + float(a.warmup) + float(window) + 60
            st = self.ctl.wait(q, deadline, say)
            if st != 0:
                say("%s: qwbots exit status %s (see %s)"
                    % (name, st, self.path(name + ".qwbots.log")))
        if self.ctl.stop(srv, sig=signal.SIGINT, grace=120) == -signal.SIGKILL:
            raise Fail("%s: qwd did not stop" % name)

    def served(self, name):
        doc = series.read_json(self.path(name + ".qwbots.json"))

        def t(k):
            return report.num(series.value(doc, "totals." + k)) or "?"
        return "  run: %s bots in the game, %s requests/s, %s replies/s, response rate %s" % (
            t("bots_in_game"), t("requests_per_s"), t("replies_per_s"), t("response_rate"))


def run(a):
    p = Prof(a)
    try:
        return profile(p)
    finally:
        p.ctl.close()
        if a.out:
            say("files kept in " + p.work)
        else:
            shutil.rmtree(p.work, ignore_errors=True)


def profile(p):
    a = p.a
    caches = CACHES.get(a.caches, a.caches.split())
    cg = ["--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes"] + caches
    # the start-up baseline first: its counts are subtracted from the
    # loaded run's, which leaves the frames under load
    p.run_tool("cg0", 0, 0, cg + ["--cachegrind-out-file=" + p.path("cg0.out")])
    p.run_tool("cg", a.bots, a.duration, cg + ["--cachegrind-out-file=" + p.path("cg.out")])
    base = valgrind.read_cachegrind(p.path("cg0.out"))
    loaded = valgrind.read_cachegrind(p.path("cg.out"))
    if base is None or loaded is None:
        raise Fail("cachegrind wrote no output in " + p.work)
    doc = series.read_json(p.path("cg.qwbots.json"))

    def t(k):
        return report.num(series.value(doc, "totals." + k)) or "?"

    version = subprocess.run(["valgrind", "--version"], capture_output=True,
                             text=True).stdout.strip().replace("valgrind-", "")
    lines = [
        "qwprof: simulated counters for qwd (valgrind %s)" % version,
        "workload: %d walker bots (qwbots, seed %s) at %s requests/s each on %s, %s s warm-up + "
        "%s s window; %s in the game, %s requests/s, %s replies/s, response rate %s (under "
        "valgrind)" % (a.bots, a.seed, a.rate, p.name, a.warmup, a.duration, t("bots_in_game"),
                       t("requests_per_s"), t("replies_per_s"), t("response_rate")),
        "note: under valgrind qwd runs ~30-50x slower, hence %s requests/s per bot instead of "
        "the study's 30;" % a.rate,
        "      figures are the loaded run minus a start-up baseline (qwd loading %s, no bots),"
        % p.name,
        "      so they cover the frames from the first bot's connect to SIGINT",
        "",
    ]
    print("\n".join(lines + cachegrind_tables(base, loaded)), flush=True)

    if a.lackey:
        print(flush=True)
        p.run_tool("lk0", 0, 0, ["--tool=lackey", "--detailed-counts=yes"])
        p.run_tool("lk", a.lackey_bots, a.lackey_duration,
                   ["--tool=lackey", "--detailed-counts=yes"])
        # lackey prints its counts on stderr at exit, into the server log
        lk0 = valgrind.parse_lackey(valgrind.read_text(p.path("lk0.server.log")))
        lk = valgrind.parse_lackey(valgrind.read_text(p.path("lk.server.log")))
        try:
            if lk0 is None or lk is None:
                raise Fail("lackey wrote no counts")
            print("\n".join(lackey_table(lk0, lk, a.lackey_bots, a.rate, a.lackey_duration)))
        except Fail as e:
            print("qwprof: %s" % e)
            say("lackey figures unavailable")
        print(p.served("lk"), flush=True)

    if a.callgrind:
        print(flush=True)
        p.run_tool("cl", a.bots, a.duration, ["--tool=callgrind", "--toggle-collect=server_frame",
                                              "--callgrind-out-file=" + p.path("cl.out")])
        if not shutil.which("callgrind_annotate"):
            say("no callgrind_annotate: phases skipped")
        else:
            text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                                   p.path("cl.out")], capture_output=True, text=True).stdout
            print("\n".join(phase_table(text, a.bots, a.rate, a.duration)))
            print(p.served("cl"), flush=True)
    return 0


def number(text):
    try:
        float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %s" % text)
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="qwprof.py", description="simulated hardware counters for qwd under valgrind "
        "(the study's Tables I-III, labelled simulated)")
    ap.add_argument("--build", default="build", help="qwd and qwbots in BUILD (build)")
    ap.add_argument("--map", default=os.path.join(runs.realmaps_dir(ROOT), "lqdm1.bsp"),
                    help="the .bsp (default $QWD_REALMAPS or ../shared/realmaps, lqdm1.bsp)")
    ap.add_argument("--bots", type=int, default=64, help="bots (64)")
    ap.add_argument("--rate", type=number, default="5",
                    help="requests/s per bot (5: what qwd sustains under valgrind)")
    ap.add_argument("--duration", type=number, default="20", help="measurement window (20)")
    ap.add_argument("--warmup", type=number, default="5", help="warm-up after the join (5)")
    ap.add_argument("--seed", type=int, default=1, help="qwbots seed (1)")
    ap.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    ap.add_argument("--out", help="keep the runs' files in OUT (default: a temporary "
                    "directory, removed)")
    ap.add_argument("--callgrind", action="store_true", help="also instructions per phase")
    ap.add_argument("--lackey", action="store_true",
                    help="also the instruction mix from lackey (slow)")
    ap.add_argument("--lackey-bots", type=int,
                    help="bots of the lackey run (default --bots; fewer if qwd cannot keep "
                    "up under lackey: check its response rate)")
    ap.add_argument("--lackey-duration", type=number,
                    help="window of the lackey run (default --duration)")
    ap.add_argument("--all", action="store_true", help="--callgrind and --lackey")
    ap.add_argument("--caches", default="host",
                    help='simulated caches: host (cachegrind\'s L1 detection, LL 32 MB 16-way '
                    '64 B as the host\'s L3; the VM\'s CPUID reports a bogus 512 MB LL), p2 '
                    '(the study\'s Pentium II: 16 kB 4-way L1s, 512 kB 4-way L2, 32 B lines), '
                    'or valgrind options ("--I1=.. --D1=.. --LL=..")')
    a = ap.parse_args(argv)
    if a.all:
        a.callgrind = a.lackey = True
    a.lackey_bots = a.lackey_bots or a.bots
    a.lackey_duration = a.lackey_duration or a.duration
    if not shutil.which("valgrind"):
        ap.exit(2, "qwprof: valgrind not found\n")
    for prog in ("qwd", "qwbots"):
        if not os.access(os.path.join(a.build, prog), os.X_OK):
            ap.exit(2, "qwprof: no %s/%s (make BUILD=%s all)\n" % (a.build, prog, a.build))
    if not os.path.isfile(a.map):
        ap.exit(2, "qwprof: no map %s\n" % a.map)
    try:
        return run(a)
    except Fail as e:
        say(str(e))
        return 1
    except KeyboardInterrupt:
        return 1


if __name__ == "__main__":
    sys.exit(main())
