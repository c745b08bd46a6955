"""The agent-isolation benchmark runs and prints its four tables (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "agent_isolation.py"


def test_quick_run_prints_the_four_tables_with_the_same_games_at_every_level():
    out = subprocess.run([sys.executable, str(SCRIPT), "--size", "12", "--games", "3", "--starts", "1",
                          "--db-maps", "2", "--db-games", "1", "--levels", "process,sandbox"],
                         check=True, capture_output=True, text=True, timeout=300).stdout.splitlines()
    rows = [line.split("|")[1:-1] for line in out if line.startswith("| ") and "---" not in line]
    games = [r for r in rows if r[0].strip().startswith("logic")]
    assert [r[0].strip() for r in games] == ["logic, built in, in process", "logic (planner.py) as a file, process",
                                              "logic (planner.py) as a file, sandbox"]
    assert len({r[4].strip() for r in games}) == 1  # the same games, in process and out
    header = next(line for line in out if line.startswith("| median µs of an action by its place"))
    assert [c.strip() for c in header.split("|")[2:-1]] == ["in process", "process", "sandbox"]
    places = {r[0].strip(): r[1:] for r in rows if r[0].strip().startswith(("a game's", "a turn's"))}
    assert list(places) == ["a game's first", "a turn's first", "a turn's second"]
    assert all(float(c) > 0 for c in places["a game's first"])  # every game has a first action, at every level
    starts = [r for r in rows if r[0].strip() in ("process", "sandbox") and "(" in r[1]]
    assert [r[0].strip() for r in starts] == ["process", "sandbox"]  # a game's process, and its warm host
    assert all(float(r[1].split()[0]) > 0 and float(r[2].split()[0]) > 0 for r in starts)
    rates = {r[0].strip(): float(r[1]) for r in rows
             if len(r) == 3 and "(" not in r[1] and r[0].strip() in ("none", "process", "sandbox")}
    assert set(rates) == {"none", "process", "sandbox"} and all(v > 0 for v in rates.values())
