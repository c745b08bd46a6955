"""The contest's third part is time per action: each game records its agent's actions (bench, run,
the store since schema 8), and a store of schema 7 keeps its rows, compared per turn."""

from __future__ import annotations

import dataclasses
import sqlite3

from helpers import ROOT

from treasure_cli.formats.map_file import parse_map
from treasure_cli.grading.contest import contest_json, place
from treasure_cli.grading.store import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, Row, Store, _statements
from treasure_cli.play.games import play_game
from treasure_cli.rules import events as ev
from treasure_cli.view.contest import contest_table

CRASHES = ("from treasure_cli.agents.greedy import GreedyAgent\n\n\nclass Crashes(GreedyAgent):\n"
           "    def act(self, obs):\n        if obs.turn == 3:\n            raise RuntimeError('crash on turn 3')\n"
           "        return super().act(obs)\n")


def game(agent: str, index: int, turns: int, seconds: float, actions: int | None) -> Row:
    return Row(agent, "package:x", "{}", "M.txt", "d", index, 100 + index, "16x16", "WIN", "found", None, turns,
               seconds, "0", actions=actions)


def actions_in(events: list) -> int:
    """The actions among a game's events, counted here on their own: moves, large scans, hints, teleports."""
    return sum(isinstance(e, (ev.AgentMoved, ev.HintVerified, ev.Teleported))
               or (isinstance(e, ev.AreaScanned) and e.size == 5) for e in events)


def test_agents_equal_on_wins_and_turns_are_ordered_by_time_per_action():
    # Both win 3 in 6 turns. ann takes 12 actions a game in 60 ms (5 ms an action, 10 a turn);
    # bob takes 6 in 50 ms (8.33 an action, 8.33 a turn): per turn bob would come first.
    rows = ([game("a.py:A", i, 6, 0.06, 12) for i in range(3)]
            + [game("b.py:B", i, 6, 0.05, 6) for i in range(3)])
    contest = place(rows, {"a.py:A": "ann", "b.py:B": "bob"}, "M.txt", 3)
    assert contest.time_unit == "action"
    assert [(p.name, p.rank, p.ms_per_action) for p in contest.placings] == [("ann", 1, 5.0), ("bob", 2, 8.33)]


def test_a_store_with_games_of_no_action_count_compares_every_agent_per_turn():
    rows = ([game("a.py:A", i, 6, 0.06, 12 if i else None) for i in range(3)]
            + [game("b.py:B", i, 6, 0.05, 6) for i in range(3)])
    contest = place(rows, {"a.py:A": "ann", "b.py:B": "bob"}, "M.txt", 3)
    assert contest.time_unit == "turn"
    assert [(p.name, p.rank, p.ms_time) for p in contest.placings] == [("bob", 1, 8.33), ("ann", 2, 10.0)]


def test_a_store_of_schema_7_is_migrated_and_keeps_its_rows(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    for step in range(1, 8):
        for statement in _statements(MIGRATIONS[step]):
            db.execute(statement)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 7")
    db.execute("INSERT INTO games (agent, agent_digest, settings, map_path, map_digest, game_index, seed, size, "
               "outcome, reason, turns, seconds, program_version, finished_at, play_digest) VALUES "
               "('logic', 'package:x', '{}', 'M.txt', 'd', 0, 7, '16x16', 'WIN', 'found', 4, 0.02, '0.9', "
               "'2026-01-01', 'abc')")
    db.close()
    with Store(path) as store:
        store.add(game("greedy", 1, 5, 0.01, 9))
        rows = store.rows()
    assert [(r.agent, r.turns, r.play_digest, r.actions, r.map_style) for r in rows] == [
        ("logic", 4, "abc", None, ""), ("greedy", 5, None, 9, "")]
    with sqlite3.connect(path) as again:
        assert again.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 10


def test_a_game_records_its_agents_actions_and_a_failed_game_those_before_its_failure(tmp_path):
    island = parse_map((ROOT / "input" / "MAP_03.txt").read_text(), "MAP_03.txt")
    record, events = play_game(island, "logic", 5, map_name="MAP_03.txt")
    assert events is not None and record.won
    assert record.actions == actions_in(events) and record.actions >= record.turns
    (tmp_path / "crashes.py").write_text(CRASHES)
    crashed, events = play_game(island, f"{tmp_path / 'crashes.py'}:Crashes", 5, map_name="MAP_03.txt",
                                isolation="none", failed_events=True)
    assert crashed.failed and crashed.turns == 3 and events is not None
    assert crashed.actions == actions_in(events) >= 2


def test_a_group_whose_every_game_failed_is_not_ranked_above_one_that_played_on_its_time():
    # Neither wins; carl's games all failed at turn 0 (no time measured), dora lost hers: carl's
    # "0.00 ms" once put him first among the two.
    failed = [dataclasses.replace(game("c.py:C", i, 0, 0.0, 0), outcome="failed", reason="agent-error")
              for i in range(3)]
    lost = [dataclasses.replace(game("d.py:D", i, 20, 0.4, 40), outcome="LOSE", reason="pirate") for i in range(3)]
    contest = place(failed + lost, {"c.py:C": "carl", "d.py:D": "dora"}, "M.txt", 3)
    assert [(p.name, p.rank) for p in contest.placings] == [("dora", 1), ("carl", 2)]
    carl = contest.placings[1]
    assert carl.ms_text == "-" and contest_json(contest)["placings"][1]["ms_per_action"] is None
    assert "carl" in contest_table(contest) and contest_table(contest).splitlines()[2].split()[5] == "-"
