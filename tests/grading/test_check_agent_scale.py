"""check-agent at a tournament's scale: --sizes, --maps, --max-action-ms, and progress."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.grading.conformance import check_agent, read_maps

SLOW = textwrap.dedent("""
    import time

    from treasure_cli.agents.greedy import GreedyAgent


    class SlowOnBig(GreedyAgent):
        def act(self, obs):
            if obs.island.width >= 32:
                time.sleep(0.25)  # slow by the island's size, not by computing
            return super().act(obs)
""")


def invoke(*args: str):
    return CliRunner().invoke(cli, ["check-agent", *args])


def checks_and_sizes(output: str) -> tuple[list[str], list[str]]:
    lines = output.splitlines()
    return ([line.split(":")[0] for line in lines if line[:4] in ("ok  ", "FAIL")],
            [line.split(":")[0].strip() for line in lines if line.startswith("    ") and "x" in line.split(":")[0]])


@pytest.fixture
def slow(tmp_path):
    (tmp_path / "slow.py").write_text(SLOW)
    return f"{tmp_path / 'slow.py'}:SlowOnBig"


def test_sizes_chooses_the_islands_and_each_size_has_its_line():
    result = invoke("greedy", "--sizes", "12, 20", "--games", "3")
    assert result.exit_code == 0, result.output
    checks, sizes = checks_and_sizes(result.stdout)
    assert checks == ["ok    loads", "ok    legal actions", "ok    deterministic", "ok    time per action"]
    assert sizes == ["12x12", "20x20"]
    assert "3 of 3 games played to the end" in result.stdout
    assert "within the budget" not in result.stdout  # no budget asked


def test_maps_are_played_too_one_game_each(tmp_path):
    for name in ("MAP_01.txt", "MAP_02.txt"):
        shutil.copy(ROOT / "input" / name, tmp_path / name)
    result = invoke("greedy", "--maps", str(tmp_path), "--games", "1")
    assert result.exit_code == 0, result.output
    _, sizes = checks_and_sizes(result.stdout)
    assert sizes == ["10x10", "16x16", "32x32"]  # the generated game, then the maps
    assert "3 of 3 games played to the end" in result.stdout


def test_maps_that_cannot_be_played_are_named_before_anything_is_played(tmp_path):
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    (tmp_path / "MAP_02.txt").write_text("3 3\n2\nx\n")
    result = invoke("greedy", "--maps", str(tmp_path))
    assert result.exit_code == 1
    assert result.output.startswith("Error: these maps cannot be played:\n" + str(tmp_path / "MAP_02.txt") + ":3:")
    assert "legal actions" not in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = invoke("greedy", "--maps", str(empty))
    assert result.exit_code == 1 and f"Error: no map files (*.txt) found in {empty}" in result.output


def test_sizes_out_of_range_are_refused():
    result = invoke("greedy", "--sizes", "16,5000")
    assert result.exit_code == 2 and "sizes must be between 5 and 4096" in result.output
    result = invoke("greedy", "--sizes", "big")
    assert result.exit_code == 2 and "expected a comma-separated list" in result.output


def test_an_agent_slow_only_on_big_islands_passes_small_ones_and_is_caught_at_scale(slow):
    small = invoke(slow, "--agent-isolation", "none", "--games", "3", "--max-action-ms", "100")
    assert small.exit_code == 0, small.output  # 10 to 24 tiles: it never sleeps
    assert "within the budget of 100 ms" in small.stdout
    big = invoke(slow, "--agent-isolation", "none", "--sizes", "16,32", "--games", "4", "--max-action-ms", "100")
    assert big.exit_code == 1, big.output
    checks, sizes = checks_and_sizes(big.stdout)
    assert checks == ["ok    loads", "ok    legal actions", "ok    deterministic", "FAIL  time per action"]
    assert sizes == ["16x16", "32x32"]
    assert "2 of 4 games played to the end (2 won); 2 stopped at an action over the budget" in big.stdout
    fail = next(line for line in big.stdout.splitlines() if line.startswith("FAIL"))
    assert "2 games stopped at an action over the budget of 100 ms, the first in game 2 (32x32, seed " in fail
    assert fail.endswith("turn 1")
    assert "    32x32: median " in big.stdout and "over 2 actions" in big.stdout  # each stopped at once


def test_progress_names_every_game_in_order_and_stays_off_a_pipe(tmp_path):
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    seen = []
    check_agent("greedy", games=2, sizes=(12,), maps=read_maps([str(tmp_path / "MAP_01.txt")]),
                on_game=lambda done, total, where: seen.append((done, total, where.split(" (")[0])))
    assert seen == [(0, 3, "game 1"), (1, 3, "game 2"), (2, 3, str(tmp_path / "MAP_01.txt"))]
    result = invoke("greedy", "--games", "1")
    assert result.exit_code == 0 and result.stderr == ""  # not a terminal: no progress bar


def test_on_a_terminal_a_progress_bar_names_each_game():
    leader, follower = pty.openpty()  # stderr is a terminal; stdout, the checks, a pipe
    done = subprocess.run([sys.executable, "-m", "treasure_cli", "check-agent", "greedy", "--games", "2"],
                          stdout=subprocess.PIPE, stderr=follower, text=True, timeout=60)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal's other end is closed: all is read
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert done.returncode == 0 and "ok    time per action" in done.stdout
    assert "checking" not in done.stdout  # the checks' output stays clean
    text = shown.decode()
    assert "checking" in text and "game 1 (10x10, seed " in text and "game 2 (16x16, seed " in text


LOOP = textwrap.dedent("""
    from treasure_cli import LargeScan


    class Loop:
        def act(self, obs):
            while obs.turn >= 2:
                pass
            return LargeScan()
""")


@pytest.mark.parametrize("level", ["process", "sandbox"])
def test_an_agent_that_loops_is_stopped_at_the_budget_not_at_the_games_limit(tmp_path, level):
    (tmp_path / "loop.py").write_text(LOOP)
    result = invoke(f"{tmp_path / 'loop.py'}:Loop", "--agent-isolation", level, "--games", "2",
                    "--game-timeout", "60", "--max-action-ms", "200")
    assert result.exit_code == 1, result.output
    assert "0 of 2 games played to the end (0 won); 2 stopped at an action over the budget" in result.stdout
    assert "ran past" not in result.stdout
    fail = next(line for line in result.stdout.splitlines() if line.startswith("FAIL  time per action"))
    assert "2 games stopped at an action over the budget of 200 ms, the first in game 1 (" in fail
    assert fail.endswith("turn 2")


def test_an_action_cut_off_by_the_games_limit_is_not_within_the_budget(tmp_path):
    """In this process only the game's limit can stop a loop; its time is still over the budget."""
    (tmp_path / "loop.py").write_text(LOOP)
    result = invoke(f"{tmp_path / 'loop.py'}:Loop", "--agent-isolation", "none", "--games", "1",
                    "--game-timeout", "1", "--max-action-ms", "200")
    assert result.exit_code == 1, result.output
    fail = next(line for line in result.stdout.splitlines() if line.startswith("FAIL  time per action"))
    assert fail.endswith("over the budget of 200 ms") and "within the budget" not in result.stdout
