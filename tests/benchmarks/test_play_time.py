"""The play-time benchmark runs and prints a row per size (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "play_time.py"


def test_quick_run_prints_a_row_per_size():
    out = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "8,12", "--games", "5", "--passes", "2"],
                         check=True, capture_output=True, text=True, timeout=120).stdout.splitlines()
    assert out[0] == "| size | games | wall ms per game (each pass) | CPU ms per game (each pass) | outcomes |"
    rows = [line.split("|")[1:-1] for line in out[2:]]
    assert [r[0].strip() for r in rows] == ["8", "12"]
    for row in rows:
        wall, cpu = row[2].split(), row[3].split()
        assert row[1].strip() == "5" and len(wall) == len(cpu) == 2 and all(float(t) > 0 for t in wall + cpu)
