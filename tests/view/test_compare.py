"""Two games side by side: which steps are shown together, and which logs are refused."""

from __future__ import annotations

import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.view.page import aligned


def test_steps_are_aligned_turn_by_turn():
    # A: setup, turn 1 (3 steps), turn 2 (1 step, the end); B: setup, turn 1 (1 step), turn 2 (2), turn 3 (1)
    a = [0, 1, 1, 1, 2]
    b = [0, 1, 2, 2, 3]
    assert aligned(a, b) == [(0, 0), (1, 1), (2, 1), (3, 1), (4, 2), (4, 3), (4, 4)]
    assert aligned(a, a) == [(i, i) for i in range(len(a))]


def _run(tmp_path, name: str, *extra: str, map_id: str = "01"):
    result = CliRunner().invoke(cli, ["run", str(tmp_path / f"MAP_{map_id}.txt"), str(tmp_path / name), *extra])
    assert result.exit_code == 0, result.output
    return str(tmp_path / name / f"LOG_{map_id}.txt")


def test_two_logs_of_different_games_are_refused(tmp_path):
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    logic = _run(tmp_path, "logic")
    greedy = _run(tmp_path, "greedy", "--agent", "greedy")
    other_seed = _run(tmp_path, "seed9", "--agent", "greedy", "--seed", "9")
    replay = ["replay", "--map", str(tmp_path / "MAP_01.txt")]
    page = str(tmp_path / "cmp.html")
    result = CliRunner().invoke(cli, [*replay, logic, other_seed, "--html", page])
    assert result.exit_code == 1 and "not the same game: seeds" in result.output
    assert not (tmp_path / "cmp.html").exists()
    shutil.copy(ROOT / "input" / "MAP_02.txt", tmp_path / "MAP_02.txt")
    other_map = _run(tmp_path, "map2", map_id="02")
    result = CliRunner().invoke(cli, ["replay", logic, other_map, "--html", page])
    assert result.exit_code == 1 and "not on the same map" in result.output
    result = CliRunner().invoke(cli, [*replay, logic, greedy])  # the terminal shows one game
    assert result.exit_code == 2 and "give --html PAGE.html" in result.output
    result = CliRunner().invoke(cli, [*replay, logic, greedy, logic, "--html", page])
    assert result.exit_code == 2 and "two logs of the same game" in result.output
    result = CliRunner().invoke(cli, [*replay, logic, greedy, "--html", page])
    assert result.exit_code == 0 and (tmp_path / "cmp.html").read_text().count("<iframe") == 2
