"""The generator benchmark runs and prints a row per size and way (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

from treasure_cli.islands import generator

SCRIPT = ROOT / "benchmarks" / "generator.py"


def test_quick_run_prints_a_row_per_size_and_way():
    out = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "8,12", "--islands", "3", "--rounds", "1"],
                         check=True, capture_output=True, text=True, timeout=120).stdout.splitlines()
    assert out[0] == "| size | steps | ms per island (median) | best |"
    rows = [line.split("|")[1:-1] for line in out[2:] if line.startswith("|")]
    ways = ["numpy"] + (["compiled"] if generator.COMPILED else [])
    assert [(r[0].strip(), r[1].strip()) for r in rows] == [(s, w) for s in ("8", "12") for w in ways]
    for row in rows:
        assert float(row[2]) > 0 and float(row[3]) > 0
