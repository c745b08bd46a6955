"""The tournament benchmark's Dask mode runs and accounts its CPU (no timing is asserted)."""

from __future__ import annotations

import re
import subprocess
import sys

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "tournament.py"


def test_dask_mode_plays_on_1_and_2_workers_and_splits_the_cpu():
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "dask", "--maps", "2", "--size", "16", "--games", "1"],
        check=True, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    ).stdout.splitlines()
    runs = [re.fullmatch(r"(\d) worker\(s\): (\d+) games on 16x16 in [\d.]+ s, ([\d.]+) games/s; CPU ms per game: "
                         r"games ([\d.]+), workers' Dask threads ([\d.]+), client \+ scheduler process ([\d.]+)", line)
            for line in out[:2]]
    assert all(runs), out
    assert [m.group(1) for m in runs] == ["1", "2"]
    for m in runs:
        assert m.group(2) == "4"  # 2 maps x 1 game x 2 agents
        assert float(m.group(3)) > 0 and float(m.group(4)) > 0  # the games' thread did work
    assert re.fullmatch(r"speed-up of 2 workers over 1: [\d.]+x", out[2]), out
