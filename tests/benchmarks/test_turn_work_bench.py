"""The turn-work benchmark runs and prints its table (no timing is asserted): the even draw's
candidate count is the same on every tile."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "turn_work.py"


def test_quick_run_counts_the_same_candidates_on_every_tile_with_the_even_draw():
    out = subprocess.run([sys.executable, str(SCRIPT), "--size", "12", "--tiles", "3", "--games", "2", "--turns", "5",
                          "--runs", "1"], check=True, capture_output=True, text=True, timeout=300).stdout
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in out.splitlines()
            if line.startswith("| ") and "---" not in line][1:]
    assert [r[0] for r in rows] == ["plain", "even"]
    assert rows[0][1] == rows[1][1] and int(rows[0][1]) > 0  # the same turns timed
    fewest, most = rows[1][2].split(" to ")
    assert fewest == most and float(fewest) > 30  # every candidate of every kind, on every tile
    assert all(0 < float(r[5]) <= 1 for r in rows)
