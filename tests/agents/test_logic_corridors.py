"""On a long corridor the logic agent keeps its teleport while a jump would leave candidates
beyond its walking reach (issue 23); on open islands the rule never binds (the bench md5s).
The rules are logic-greedy's (issue 44); the planner that is now `logic` asks them first."""

from __future__ import annotations

import importlib.util
from unittest import mock

from helpers import ROOT

from treasure_cli.agents.logic import LogicAgent
from treasure_cli.play.games import play_game


def snake(n: int):
    spec = importlib.util.spec_from_file_location("complex_islands", ROOT / "benchmarks" / "complex_islands.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.snake_island(n)


def test_on_a_129_snake_keeping_the_teleport_wins_the_game_that_the_race_jump_loses():
    island = snake(129)  # the pirate's walk is 8190 tiles, the turn limit 1032 turns
    record = play_game(island, "logic-greedy", 3, map_name="snake", keep_events=False)[0]
    assert record.outcome == "WIN" and record.turns < 100
    with mock.patch.object(LogicAgent, "_in_walking_reach", lambda self, obs, target: True):  # the old rule
        old = play_game(island, "logic-greedy", 3, map_name="snake", keep_events=False)[0]
    assert old.outcome == "LOSE" and old.reason == "timeout"



def test_on_a_97_snake_the_agent_no_longer_walks_back_and_forth_between_two_windows():
    """Seed 1: once the few candidates lie at the snake's far west end, two windows there
    take turns as the richest; a straight-line step toward one undid the walk toward the
    other, and the game ran out of turns (776) with the treasure's tile nearly known."""
    from treasure_cli.agents import logic

    island = snake(97)
    record = play_game(island, "logic-greedy", 1, map_name="snake", keep_events=False)[0]
    assert record.outcome == "WIN" and record.turns < 200
    with mock.patch.object(logic, "_after", lambda pos, move: None):  # no tile is refused: the old rule
        old = play_game(island, "logic-greedy", 1, map_name="snake", keep_events=False)[0]
    assert old.outcome == "LOSE" and old.reason == "timeout"


def test_the_planner_wins_both_snakes_too():
    for n, seed, limit in ((129, 3, 100), (97, 1, 200)):
        record = play_game(snake(n), "logic", seed, map_name="snake", keep_events=False)[0]
        assert record.outcome == "WIN" and record.turns < limit, (n, record.turns)
