"""plots.py -- the figures of a scaling-study folder, drawn by gnuplot.

Design note
  The figures are gnuplot scripts beside the runner (tools/experiment/
  scale.gp, compare.gp, floor.gp): each reads a CSV by column name and
  takes its file names and captions as variables (gnuplot -e), so the
  scripts never change with the runner.  gnuplot (Debian gnuplot-nox)
  is installed with apt-get when missing and the runner is root; without
  it the CSVs and the report are still written, without figures.
  Variables are passed as gnuplot strings (single quotes, a quote inside
  doubled), numbers as they are.  gnuplot's messages go to gnuplot.log
  in the folder.
"""

import shutil
import subprocess

from . import runs


def ensure_gnuplot(say):
    if runs.ensure_packages(["gnuplot-nox"], lambda: shutil.which("gnuplot") is not None, say):
        return True
    say("gnuplot is not installed (Debian: apt-get install gnuplot-nox): no figures")
    return False


def gp_value(v):
    if isinstance(v, (int, float)):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def gnuplot(script, variables, log_path, append=False):
    """Runs script with variables (a list of (name, value)); True when
    gnuplot exits 0."""
    expr = "; ".join("%s=%s" % (k, gp_value(v)) for k, v in variables)
    with open(log_path, "a" if append else "w") as log:
        r = subprocess.run(["gnuplot", "-e", expr, script], stdout=log,
                           stderr=subprocess.STDOUT)
    return r.returncode == 0
