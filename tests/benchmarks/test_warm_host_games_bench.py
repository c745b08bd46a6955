"""The warm-host benchmark forks a game's process per game and prints its parts and the floor (no timing is asserted)."""

from __future__ import annotations

import re
import subprocess
import sys

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "warm_host_games.py"


def test_quick_run_prints_the_start_and_each_action_with_its_faults():
    for extra in ([], ["--no-island"]):
        out = subprocess.run([sys.executable, str(SCRIPT), "--games", "3", "--size", "16", "--rounds", "1", *extra],
                             check=True, capture_output=True, text=True, timeout=300).stdout.splitlines()
        assert out[0].startswith("3 games of ") and ("read its island" in out[0]) == (not extra)
        assert re.fullmatch(r"agent loaded, hello answered: \d+ us", out[1])
        assert re.fullmatch(r"start: \d+ us", out[2])
        rows = [line.split("|")[1:-1] for line in out[5:-2]]
        assert [r[0].strip() for r in rows][0] == "1" and len(rows) >= 2
        assert all(int(r[1]) > 0 and int(r[2]) >= 0 for r in rows)
        assert re.fullmatch(r"every action: \d+ us", out[-2])
        floor = re.fullmatch(r"the floor of a fresh process per game .*: (\d+\.\d+) ms; a whole game of logic in "
                             r"process: (\d+\.\d+) ms; in a fresh process, at least (\d+\.\d)x that", out[-1])
        assert floor is not None, out[-1]
        fork, game, bound = (float(x) for x in floor.groups())
        assert fork > 0 and game > 0 and bound > 1 and abs(bound - (game + fork) / game) < 0.1
