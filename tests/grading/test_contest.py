"""The contest's ranking: wins, then mean turns to a win, then time per turn; ties only where all
three are equal; built-ins are baselines, never ranked; every agent plays the same seeds."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.grading.contest import place
from treasure_cli.grading.store import Row


def game(agent: str, index: int, turns: int, won: bool, seconds: float = 0.01) -> Row:
    return Row(agent, "package:x", "{}", "M.txt", "d", index, 100 + index, "16x16", "WIN" if won else "LOSE",
               "found" if won else "pirate", None, turns, seconds, "0", "", index + 1)


def test_wins_then_turns_then_time_and_ties_only_where_all_three_are_equal():
    rows = ([game("a.py:A", i, 6, True) for i in range(3)]                  # 3 wins in 6
            + [game("b.py:B", i, 4, i < 2) for i in range(3)]               # 2 wins: below a, however fast
            + [game("c.py:C", i, 5, True) for i in range(3)]                # 3 wins in 5: first
            + [game("d.py:D", i, 6, True, 0.02) for i in range(3)]          # as a, but slower per turn
            + [game("e.py:E", i, 6, True) for i in range(3)]                # a's equal in all three
            + [game("logic", i, 3, True) for i in range(3)])                # a baseline, the best score
    names = {"a.py:A": "ann", "b.py:B": "bob", "c.py:C": "cyd", "d.py:D": "dan", "e.py:E": "eve"}
    contest = place(rows, names, "M.txt", 3)
    shown = [(contest.rank_text(p), p.name) for p in contest.placings]
    assert shown == [("-", "logic"), ("1", "cyd"), ("=2", "ann"), ("=2", "eve"), ("4", "dan"), ("5", "bob")]
    logic = contest.placings[0]
    assert logic.baseline and logic.rank is None and len(contest.groups) == 5
    assert contest.placings[1].mean_turns_win == 5 and contest.placings[4].ms_per_turn > contest.placings[2].ms_per_turn


def test_a_group_with_no_win_comes_after_every_group_with_one():
    rows = [game("a.py:A", 0, 40, True), game("b.py:B", 0, 2, False)]
    contest = place(rows, {"a.py:A": "ann", "b.py:B": "bob"}, "M.txt", 1)
    assert [(p.name, p.rank, p.mean_turns_win) for p in contest.placings] == [("ann", 1, 40), ("bob", 2, None)]


def test_the_contest_command_plays_the_same_seeds_for_every_agent(tmp_path):
    (tmp_path / "class").mkdir()
    for name in ("ann", "bob"):
        (tmp_path / "class" / f"{name}.py").write_text(
            "from treasure_cli.agents.greedy import GreedyAgent\n\n\nclass Group(GreedyAgent):\n    pass\n")
    result = CliRunner().invoke(cli, ["contest", str(ROOT / "input" / "MAP_01.txt"), str(tmp_path / "class"),
                                      "--with", "random", "--games", "3", "--db", str(tmp_path / "c.sqlite"),
                                      "--json", "--jobs", "1", "--agent-isolation", "none"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    seeds = {p["name"]: [g["seed"] for g in p["games"]] for p in data["placings"]}
    assert set(seeds) == {"ann", "bob", "random"} and len(set(map(tuple, seeds.values()))) == 1
    assert len(set(seeds["ann"])) == 3
    random = next(p for p in data["placings"] if p["name"] == "random")
    assert random["baseline"] and random["rank"] is None and random["rank_text"] == "-"
    assert {p["rank"] for p in data["placings"] if not p["baseline"]} <= {1, 2}


def test_a_group_left_out_of_the_contest_has_its_line_and_a_group_with_no_win_no_podium(tmp_path):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "ann.py").write_text(
        "from treasure_cli.agents.greedy import GreedyAgent\n\n\nclass Group(GreedyAgent):\n    pass\n")
    (tmp_path / "class" / "bob.py").write_text(
        "from treasure_cli import Agent\n\n\nclass Group(Agent):\n    def act(self, obs):\n        raise ValueError\n")
    (tmp_path / "class" / "cat.py").write_text("class Broken(:\n")
    args = ["contest", str(ROOT / "input" / "MAP_01.txt"), str(tmp_path / "class"), "--games", "2", "--seed", "4",
            "--db", str(tmp_path / "c.sqlite"), "--jobs", "1", "--agent-isolation", "process"]
    table = CliRunner().invoke(cli, args + ["--html", str(tmp_path / "page")])
    assert table.exit_code == 1, table.output  # (bob's games failed)
    assert re.search(r"^left out: cat: .*syntax", table.stdout, re.M | re.I), table.stdout
    data = json.loads(CliRunner().invoke(cli, args + ["--json"]).stdout)
    assert [g["name"] for g in data["left_out"]] == ["cat"] and data["left_out"][0]["verdict"] == "left out"
    page = (tmp_path / "page" / "index.html").read_text()
    shown = json.loads(re.search(r'<script id="contest-data" type="application/json">(\{.*?\})</script>', page, re.S).group(1))
    assert [g["name"] for g in shown["left_out"]] == ["cat"]
    assert "bob" not in [p["name"] for p in shown["podium"]]  # ranked 2nd of 2, but it won nothing
    assert [p["name"] for p in shown["podium"]] == ["ann"]
