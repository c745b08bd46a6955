"""The notes-cost benchmark runs on a few small maps and prints a row per pass (no timing is asserted)."""

from __future__ import annotations

import shutil
import subprocess
import sys

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "notes_cost.py"


def test_quick_run_prints_a_row_per_pass_and_the_logs_digests(tmp_path):
    for name in ("MAP_01.txt", "MAP_02.txt"):
        shutil.copy(ROOT / "input" / name, tmp_path / name)
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path), "--passes", "2"],
                         check=True, capture_output=True, text=True, timeout=120).stdout.splitlines()
    rows = [line.split("|")[1:-1] for line in out[2:4]]
    assert [r[0].strip() for r in rows] == ["1", "2"] and all(r[1].strip() == "2" for r in rows)
    assert all(float(cell) > 0 for r in rows for cell in r[2:])
    assert out[4].startswith("median on / off: whole job ") and "logs without notes " in out[4]
