"""The island masks benchmark runs and prints a row per mask (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

from treasure_cli.rules.island import TERRAIN_MASKS

SCRIPT = ROOT / "benchmarks" / "island_masks.py"


def test_quick_run_prints_a_row_per_mask():
    out = subprocess.run([sys.executable, str(SCRIPT), "--size", "12", "--islands", "25", "--rounds", "1"],
                         check=True, capture_output=True, text=True, timeout=120).stdout.splitlines()
    assert out[0].startswith("| mask (12x12, 25 islands) |")
    rows = [line.split("|")[1:-1] for line in out[2:]]
    assert [r[0].strip() for r in rows] == list(TERRAIN_MASKS) + ["reachable_prisons", "precompute"]
    assert all(float(cell) >= 0 for r in rows for cell in r[1:])
