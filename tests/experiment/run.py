#!/usr/bin/env python3
"""run.py -- run the Python tests of tests/experiment/ and print the
suite's closing line ("experiment: N passed, M failed, K skipped"), the
form scripts/suite.py adds up.  Exit 1 on any failure or error, or when
nothing ran."""

import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py",
                                            top_level_dir=here)
result = unittest.TextTestRunner(verbosity=2).run(suite)
bad = len(result.failures) + len(result.errors)
skipped = len(result.skipped)
passed = result.testsRun - bad - skipped
print("experiment: %d passed, %d failed, %d skipped" % (passed, bad, skipped))
sys.exit(0 if bad == 0 and passed > 0 else 1)
