"""The whole-job benchmark script runs and prints its table (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "whole_job.py"


def test_quick_run_prints_the_header_and_one_row_per_size(tmp_path):
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "8,16", "--games", "2", "--cache", str(tmp_path)],
        check=True, capture_output=True, text=True, timeout=120,
    ).stdout.splitlines()
    assert out[0] == ("| size | games | read ms | masks ms | game ms | log ms | total ms | turns | ms/turn"
                      " | peak MB |")
    rows = [line.split("|")[1:-1] for line in out[2:]]
    assert [r[0].strip() for r in rows] == ["8", "16"]
    for row in rows:
        assert len(row) == 10 and row[1].strip() == "2"
        values = [float(cell) for cell in row[2:]]
        assert all(v >= 0 for v in values) and values[5] >= 1  # at least one turn was played
        assert float(row[6]) >= max(float(row[2]), float(row[4]))  # the total holds its parts
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MAP_16_1.txt", "MAP_16_2.txt", "MAP_8_1.txt", "MAP_8_2.txt"]
