"""The soak test's CI size (issue 38): tests/soak.py with 300 cells (the
first 100 run again as the last 100) in one kernel session, on the CPU; the
same criteria as the full 2,000-cell run on the GPU machine: memory of both
processes (and the GPU pools' used bytes, 0 here) within 5% of its level
after the first 100 cells, the median cell time of the last 100 within 10%
of the first 100's, every cell run (interrupted ones stopped as they should).

About 3 minutes with a release kernel on 2 cores. Run by
tests/run_kernel_tests.sh (CUPRITE_TEST_FILES=test_soak.py for this one);
CUPRITE_SOAK_CELLS changes the number of cells.
"""

import json
import os
import unittest

import soak

CELLS = int(os.environ.get("CUPRITE_SOAK_CELLS", "300"))


class SoakTests(unittest.TestCase):
    def test_a_long_session_neither_grows_nor_slows(self):
        opts = soak.parse_args(["--cells", str(CELLS), "--window", "100"])
        summary = soak.soak(opts)
        print(json.dumps(summary, indent=1))
        self.assertEqual(summary["cells_run"], CELLS, summary["failures"])
        self.assertGreater(summary["cell_kinds"].get("notebook", 0), 0)
        self.assertGreater(summary["cell_kinds"].get("interrupt", 0), 0)
        self.assertEqual(summary["failures"], [])
