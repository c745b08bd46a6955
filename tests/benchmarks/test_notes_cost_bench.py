"""The notes-cost benchmark runs on a few small maps and prints a row per pass (no timing is asserted)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "notes_cost.py"


def run(folder, *args: str) -> list[str]:
    return subprocess.run([sys.executable, str(SCRIPT), str(folder), *args],
                          check=True, capture_output=True, text=True, timeout=120).stdout.splitlines()


def test_quick_run_prints_a_row_per_pass_the_ratios_and_the_logs_digests(tmp_path):
    for name in ("MAP_01.txt", "MAP_02.txt"):
        shutil.copy(ROOT / "input" / name, tmp_path / name)
    out = run(tmp_path, "--passes", "2")
    assert out[0].startswith("A: notes off; B: notes on; 2 maps")
    rows = [line.split("|")[1:-1] for line in out[3:5]]
    assert [r[0].strip() for r in rows] == ["1", "2"]
    assert all(float(cell) > 0 for r in rows for cell in r[1:])
    for line, part in zip(out[5:7], ("whole job", "game and log text")):
        m = re.fullmatch(part + r": B / A ([0-9.]+) \(95 % interval ([0-9.]+)-([0-9.]+)\), "
                         r"median of the per-map ratios [0-9.]+", line)
        assert m and float(m[2]) <= float(m[1]) <= float(m[3]), line
    without, with_notes = re.fullmatch(r"logs without notes (\w{12}), with notes (\w{12})", out[7]).groups()
    assert without != with_notes
    # The A/A control times notes off twice: its two digests are the logs without notes.
    control = run(tmp_path, "--passes", "1", "--control")
    assert control[0].startswith("A: notes off; B: notes off again (control)")
    assert control[-1] == f"logs without notes {without}, again {without}"
