"""The draws micro-benchmark runs and prints a row per class (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

try:
    from treasure_cli.rules._draws import Draws as CompiledDraws
except ImportError:
    CompiledDraws = None

SCRIPT = ROOT / "benchmarks" / "draws.py"


def test_quick_run_prints_a_row_per_class():
    out = subprocess.run([sys.executable, str(SCRIPT), "--repeat", "1"],
                         check=True, capture_output=True, text=True, timeout=120).stdout.splitlines()
    assert out[0] == "| class | Draws(keys) µs | below µs | sample(600, 6) µs | hint-like mix µs |"
    rows = [line.split("|")[1:-1] for line in out[2:] if line.startswith("|")]
    assert [r[0].strip() for r in rows] == ["python"] + (["compiled"] if CompiledDraws else [])
    for row in rows:
        assert len(row) == 5 and all(float(cell) > 0 for cell in row[1:])
