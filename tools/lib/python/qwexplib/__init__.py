"""qwexplib -- the pieces of the Python experiment tools (tools/experiment/
qwexp.py, tools/qwprof/qwprof.py), in tools/lib/python so both import
the one copy.

Design note
  The runner is split by what each piece owns, so each can be tested
  without starting a server:
    proc     /proc readers (RSS, CPU ticks of a process) and a sampler
             thread that reads them at a fixed period, at a fixed cost
    series   qwbots' --series CSV and --json report, read into numbers;
             capacity from a scale.csv; per-interval tables
    runs     starting and stopping qwd and qwbots, bounded in time,
             pinned with taskset, everything stopped on exit
    report   the machine's description and the Markdown/CSV writers
  Standard library only: the runner must work wherever python3 does.
"""
