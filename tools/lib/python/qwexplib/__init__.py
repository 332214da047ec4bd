"""qwexplib -- the pieces of the Python experiment tools (tools/experiment/
qwexp.py, tools/qwprof/qwprof.py), in tools/lib/python so both import
the one copy.

Design note
  The tools are split by what each piece owns, so each can be tested
  without starting a server (tests/experiment/, run by make test):
    proc         /proc readers (CPU of a process in ns and ticks, RSS,
                 the machine's jiffies), a sampler thread that reads them
                 at a fixed period and a fixed cost, and the growth of a
                 counter over a window, interpolated at its ends
    series       qwbots' and udpecho's outputs (--series CSV, --json
                 reports) read into numbers; what a scale.csv says:
                 capacity, saturation, the floor's points
    qwdstats     qwd's stats lines (qwd -stats) over a window
    measure      the figures of one run and the rows of the study's CSVs
    stats        medians, spreads and the summaries of repeated runs
    valgrind     callgrind_annotate, callgrind, cachegrind and lackey outputs
    runs         starting and stopping qwd, MVDSV, qwbots, udpecho,
                 bounded in time, pinned with taskset, all stopped on exit
    report       the machine's description, env.txt, number formatting,
                 CSV and Markdown tables
    studyreport  report.md of a scaling-study folder
    plots        gnuplot, run on the study's scripts
  Standard library only: the tools must work wherever python3 does.
"""
