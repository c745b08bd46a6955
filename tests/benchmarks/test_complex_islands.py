"""The complex-islands benchmark makes valid snake, thin and maze maps and runs them (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "complex_islands.py"


def test_small_shapes_are_valid_maps_and_each_run_prints_a_row(tmp_path):
    out = subprocess.run([sys.executable, str(SCRIPT), "--shapes", "snake:9,snake:10,thin:40,maze:12",
                          "--cache", str(tmp_path)], check=True, capture_output=True, text=True,
                         timeout=300).stdout.splitlines()
    rows = [line.split("|")[1:-1] for line in out[2:]]
    assert [r[0].strip() for r in rows] == ["snake 9x9", "snake 10x10", "thin 40x3, --max-turns 10", "maze 12x12"]
    for r in rows:
        assert r[2].strip().startswith(("WIN", "LOSE")), r  # played, not failed
        assert float(r[4]) > 0 and float(r[5]) > 0
    check = subprocess.run([sys.executable, "-m", "treasure_cli", "check", str(tmp_path)], capture_output=True,
                           text=True, timeout=120)
    assert check.returncode == 0 and check.stdout.count(": ok,") == 4, check.stdout
