"""The reply-timing benchmark runs and prints its table (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "reply_timing.py"


def test_quick_run_prints_both_settings_with_every_turn_timed():
    out = subprocess.run([sys.executable, str(SCRIPT), "--size", "12", "--tiles", "3", "--games", "3", "--turns", "6"],
                         check=True, capture_output=True, text=True, timeout=300).stdout.splitlines()
    rows = [line.split("|")[1:-1] for line in out if line.startswith("| ") and "---" not in line][1:]
    assert [r[0].strip() for r in rows] == ["as they come", "steady (tournament)"]
    for row in rows:
        assert 0 <= float(row[6]) <= 1  # a p-value
        assert float(row[4]) >= 0
        assert float(row[1]) > 0
    # Each of the 3 x 3 games times its turns 2..6 unless a scan finds the treasure first.
    late, timed = rows[1][3].split(" of ")
    assert 0 < int(timed) <= 45 and 0 <= int(late) <= int(timed)
