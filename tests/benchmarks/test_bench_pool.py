"""The bench pool benchmark runs, on 1 and 2 processes, and accounts every island (no timing is asserted)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "bench_pool.py"
NUMBER = r"[\d.]+"


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_small_run_prints_the_parent_and_each_process(jobs):
    out = subprocess.run([sys.executable, str(SCRIPT), "--games", "6", "--jobs", str(jobs), "--size", "12",
                          "--agents", "logic,greedy"],
                         check=True, capture_output=True, text=True, timeout=300).stdout.splitlines()
    assert re.fullmatch(rf"start-up \(imports, before the pool\): wall {NUMBER} s, cpu {NUMBER} s", out[0]), out
    assert re.match(r"run_bench: 12 games, wall ", out[1]), out
    processes = [re.fullmatch(rf"process \d+: (\d+) islands in (\d+) chunks, .*; cpu ({NUMBER}) ms an island = "
                              rf"generate ({NUMBER}) \+ masks ({NUMBER}) \+ play ({NUMBER}) \+ rest (-?{NUMBER}); .*",
                              line) for line in out[2:-1]]
    assert all(processes), out
    assert 1 <= len(processes) <= jobs
    assert sum(int(m.group(1)) for m in processes) == 6  # every island, once
    for m in processes:
        assert float(m.group(4)) > 0 and float(m.group(6)) > 0  # islands were generated and played there
    assert out[-1].startswith("tail: "), out
