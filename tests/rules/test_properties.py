"""Invariants of the rules, checked on generated islands with hypothesis."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treasure_cli.rules import events as ev
from treasure_cli.agents.registry import agent_names
from treasure_cli.islands.generator import generate_island
from treasure_cli.agents.knowledge import Knowledge
from treasure_cli.formats.game_record import format_log
from treasure_cli.rules.pirate import pirate_path
from treasure_cli.play.games import build_game
from treasure_cli.play.loop import play_agent

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

games = st.tuples(
    st.integers(8, 24),                 # width
    st.integers(8, 24),                 # height
    st.integers(0, 2**32 - 1),          # island seed
    st.integers(0, 2**32 - 1),          # game seed
    st.sampled_from(agent_names()),
    st.sampled_from([0.0, 0.3, 0.5, 1.0]),
    st.booleans(),                      # early release: a tight race with the pirate
)


def play(case):
    w, h, island_seed, seed, agent, truth_rate, early = case
    extra = {"reveal_turn": 1, "free_turn": 2} if early else {}
    island = generate_island(w, h, rng=np.random.default_rng(island_seed), **extra)
    game, player = build_game(island, agent, seed, truth_rate=truth_rate)
    return island, game, list(play_agent(game, player))  # an illegal action would raise here


@SETTINGS
@given(games)
def test_every_game_ends_once_and_its_log_counts_its_lines(case):
    island, game, events = play(case)
    ends = [e for e in events if isinstance(e, ev.GameEnded)]
    assert len(ends) == 1 and events[-1] is ends[0]
    end = ends[0]
    assert (end.outcome, end.reason) in {
        (ev.Outcome.WIN, ev.EndReason.FOUND),
        (ev.Outcome.LOSE, ev.EndReason.PIRATE),
        (ev.Outcome.LOSE, ev.EndReason.TIMEOUT),
    }
    if end.reason is ev.EndReason.TIMEOUT:
        assert end.turn == game.max_turns
    lines = format_log(events).splitlines()
    assert int(lines[0]) == len(lines) - 3


@SETTINGS
@given(games)
def test_hint_truth_is_treasure_in_s(case):
    island, game, events = play(case)
    for e in events:
        if isinstance(e, ev.HintGiven):
            assert e.truthful == bool(e.hint.mask(island)[island.treasure])
            if e.number == 1:
                assert e.truthful
        if isinstance(e, ev.HintVerified):
            assert e.truthful == bool(game.hints[e.number - 1].mask(island)[island.treasure])


@SETTINGS
@given(games)
def test_pirate_walks_a_shortest_path_two_tiles_a_turn(case):
    island, game, events = play(case)
    path = pirate_path(island.walkable, island.treasure_distance, game.prison)
    assert len(path) - 1 == island.treasure_distance[game.prison]
    for (r1, c1), (r2, c2) in zip(path, path[1:]):
        assert abs(r1 - r2) + abs(c1 - c2) == 1 and island.walkable[r2, c2]
    moves = [e for e in events if isinstance(e, ev.PirateMoved)]
    index = 0
    for m in moves:
        assert m.src == path[index]
        index = min(index + 2, len(path) - 1)
        assert m.dst == path[index]
        assert m.turn >= island.free_turn


@SETTINGS
@given(games)
def test_knowledge_never_rules_out_the_treasure(case):
    island, game, events = play(case)
    know = Knowledge(island.public())
    for e in events:
        seen = ev.public_view(e, game.hint_truths_public)
        if seen is None:
            continue
        know.update(seen)
        assert know.candidates[island.treasure], f"treasure ruled out after {e}"
