"""The tournament's progress on a terminal: games done of total, the ETA and the failures per agent,
and the report's replays counted too; nothing of it when stderr is not a terminal."""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import sys

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

OOPS = "class Oops:\n    def act(self, obs):\n        raise ValueError('no')\n"


def on_a_terminal(args: list[str], cwd) -> tuple[int, str]:
    """Run `treasure ARGS` with stderr on a pseudo-terminal; its exit status and what that terminal got."""
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "treasure_cli", *args], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    got = b""
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal's last writer is gone
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    return proc.wait(timeout=60), got.decode("utf-8", "replace").replace("\r\n", "\n")


def test_progress_counts_games_eta_and_failures_on_a_terminal_only(tmp_path):
    (tmp_path / "maps").mkdir()
    for name in ("MAP_01.txt", "MAP_02.txt"):
        shutil.copy(ROOT / "input" / name, tmp_path / "maps")
    (tmp_path / "oops.py").write_text(OOPS)
    args = ["tournament", "oops.py", "--with", "random", "--maps", "maps", "--games", "2", "--seed", "1",
            "--db", "r.sqlite", "--agent-isolation", "process", "--jobs", "1"]
    status, shown = on_a_terminal(args, tmp_path)
    assert status == 1, shown  # oops fails every game
    last = shown.split("\r")[-1].splitlines()[0]
    assert last.startswith("playing 8 of 8 games · ETA 0:00 · failed: oops 4"), shown
    assert "playing 0 of 8 games · ETA --:--" in shown

    status, shown = on_a_terminal(["tournament", "--db", "r.sqlite", "--report", "--maps", "maps",
                                   "--html", "board", "--agent-isolation", "process"], tmp_path)
    assert status == 0, shown
    done = re.search(r"replaying the games (\d+) of \1 · ETA 0:00", shown)
    assert done and int(done[1]) == 8, shown  # every game has its page, wins included

    quiet = CliRunner().invoke(cli, [*args[:-5], "--db", str(tmp_path / "q.sqlite")], catch_exceptions=False)
    assert " games · ETA" not in quiet.stderr


def test_the_eta_trace_logs_every_estimate_with_its_game(tmp_path, monkeypatch):
    """TREASURE_CLI_ETA_TRACE (benchmarks/eta_accuracy.py): the plan (each game's key and unit), each
    game handed over and each game ended, with its worker's busy time (at least its own) and the ETA then, also without a terminal."""
    import json

    (tmp_path / "maps").mkdir()
    for name in ("MAP_01.txt", "MAP_02.txt"):
        shutil.copy(ROOT / "input" / name, tmp_path / "maps")
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("TREASURE_CLI_ETA_TRACE", str(trace))
    got = CliRunner().invoke(cli, ["tournament", "--with", "greedy,random", "--maps", str(tmp_path / "maps"),
                                   "--games", "2", "--seed", "1", "--db", str(tmp_path / "r.sqlite"), "--jobs", "1"],
                             catch_exceptions=False)
    assert got.exit_code == 0, got.output
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    plan = events[0]["plan"]  # agent, tiles, key, unit (its map and seed), island (its map) of each game
    assert sorted({a for a, *_ in plan}) == ["greedy", "random"] and len(plan) == 8
    assert all(t > 0 for _, t, *_ in plan)
    assert events[0]["workers"] == 1
    units = [tuple(map(str, u)) for *_, u, _ in plan]
    assert len(set(units)) == 4 and all(units.count(u) == 2 for u in units)  # 2 maps x 2 games, both agents
    assert len({island for *_, island in plan}) == 2 and all(island == u[1] for (*_, u, island) in plan)
    starts = [e for e in events if "start" in e]
    assert sorted(map(tuple, (key for _, _, key, _, _ in plan))) == sorted(map(tuple, (e["key"] for e in starts)))
    ends = [e for e in events if "end" in e]
    assert len(starts) == len(ends) == 8
    assert [e["done"] for e in ends] == list(range(1, 9)) and {e["total"] for e in ends} == {8}
    assert all(e["busy"] >= e["seconds"] >= 0 for e in ends)
    assert sorted(map(tuple, (e["key"] for e in ends))) == sorted(map(tuple, (e["key"] for e in starts)))
    assert all(e["eta"] >= 0 for e in ends) and ends[-1]["eta"] == 0
    times = [e["t"] for e in events]
    assert times == sorted(times)
