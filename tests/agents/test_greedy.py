"""The greedy baseline: always legal, follows its simple rules, beats random."""

from __future__ import annotations

import numpy as np
from helpers import island_from_grid
from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_cli.rules import events as ev
from treasure_cli.agents.greedy import _last_direction
from treasure_cli.play.bench import BenchOptions, run_bench
from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.actions import legal_actions
from treasure_cli.rules.grid import Direction
from treasure_cli.play.games import build_game
from treasure_cli.play.loop import play_agent


class Checked:
    """The agent, each of its actions checked against the rules' list of legal actions for what it saw."""

    def __init__(self, agent):
        self.agent = agent

    def act(self, obs):
        action = self.agent.act(obs)
        assert action in legal_actions(obs), (obs.turn, obs.position, action)
        return action


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(6, 22),
    island_seed=st.integers(0, 2**32),
    game_seed=st.integers(0, 2**32),
    free_turn=st.one_of(st.none(), st.integers(1, 6)),
    truth_rate=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_greedy_only_makes_legal_actions(size, island_seed, game_seed, free_turn, truth_rate):
    island = generate_island(size, size, free_turn=free_turn, rng=np.random.default_rng(island_seed))
    game, agent = build_game(island, "greedy", game_seed, truth_rate=truth_rate)
    list(play_agent(game, Checked(agent)))  # (the engine would also refuse an illegal action)


def test_greedy_is_legal_when_the_walkable_land_is_in_two_pieces():
    # The treasure's piece (right) is cut off from most starts by the sea
    # column; the agent must teleport or keep scanning, never walk across.
    rows = [
        "0 0 0 0 0 0 0 0 0",
        "0 1 1 1 0 2 2 2 0",
        "0 1 1 1 0 2 2 2 0",
        "0 1 1 1 0 2P 2 2 0",
        "0 0 0 0 0 0 0 0 0",
    ]
    for seed in range(30):
        for f in (3, 30):
            game, agent = build_game(island_from_grid(rows, (1, 7), r=2, f=f), "greedy", seed)
            list(play_agent(game, Checked(agent)))


def test_greedy_teleports_onto_the_pirate_when_he_is_freed():
    checked = 0
    for i in range(30):
        island = generate_island(24, 24, free_turn=2, rng=np.random.default_rng(i))
        events = list(play_agent(*build_game(island, "greedy", i)))
        freed = [e for e in events if isinstance(e, ev.PirateMoved)]
        teleports = [e for e in events if isinstance(e, ev.Teleported)]
        if not freed or freed[0].dst == island.treasure:
            continue  # lost before acting or won before the release
        assert len(teleports) == 1
        assert teleports[0].turn == freed[0].turn and teleports[0].dst == freed[0].dst
        checked += 1
    assert checked >= 10


def test_greedy_wins_clearly_more_than_random_on_32x32():
    stats = run_bench(BenchOptions(agents=("greedy", "random"), sizes=(32,), games=40, seed=3)).stats
    greedy, random_ = stats
    assert (greedy.agent, random_.agent) == ("greedy", "random")
    assert greedy.win_low > random_.win_high, (greedy, random_)


def test_the_pirates_heading_after_straight_and_corner_moves():
    assert _last_direction((5, 5), (3, 5), None) is Direction.N
    assert _last_direction((5, 5), (5, 6), Direction.N) is Direction.E
    # A corner: he keeps his old heading first, so the other leg came last.
    assert _last_direction((5, 5), (4, 6), Direction.E) is Direction.N
    assert _last_direction((5, 5), (4, 6), Direction.N) is Direction.E
    assert _last_direction((5, 5), (6, 4), None) is Direction.S
    assert _last_direction((5, 5), (5, 5), Direction.W) is Direction.W
