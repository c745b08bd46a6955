"""Game.observe rebuilds its snapshots of hints, verified and scanned only when they change;
every Observation must still show the game's state at that moment, and keep showing it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treasure_cli.agents.registry import resolve
from treasure_cli.islands.generator import generate_island
from treasure_cli.play.loop import play_agent
from treasure_cli.rules.game import Game
from treasure_cli.rules.observation import Observation


class Watcher:
    """Plays like `inner`, and records each observation with the game's state beside it."""

    def __init__(self, inner):
        self.inner = inner
        self.game: Game | None = None
        self.seen = []

    def reset(self, seed):
        getattr(self.inner, "reset", lambda s: None)(seed)

    def act(self, obs):
        g = self.game
        self.seen.append((obs, g.scanned.copy(), dict(g.verified), list(g.hints)))
        return self.inner.act(obs)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(6, 20), st.integers(0, 2**32 - 1), st.sampled_from(["logic", "random", "greedy"]))
def test_every_observation_is_the_state_when_it_was_made(size, seed, agent):
    island = generate_island(size, size, rng=np.random.default_rng(seed))
    watcher = Watcher(resolve(agent).build())
    game = Game(island, seed, truth_rate=0.5)
    watcher.game = game
    list(play_agent(game, watcher))
    for obs, scanned, verified, hints in watcher.seen:  # checked after the game: still as they were
        assert np.array_equal(obs.scanned, scanned) and not obs.scanned.flags.writeable
        assert dict(obs.verified) == verified and obs.hints == tuple(hints)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(6, 20), st.integers(0, 2**32 - 1), st.sampled_from(["logic", "random"]))
def test_the_game_observations_are_what_observation_init_makes(size, seed, agent):
    """The game builds its observations without Observation.__init__ (make_observation):
    each is what the dataclass's own __init__ makes of the same fields, with nothing left out
    (a __post_init__ would be skipped: there must be none)."""
    assert "__post_init__" not in vars(Observation)
    island = generate_island(size, size, rng=np.random.default_rng(seed))
    watcher = Watcher(resolve(agent).build())
    game = Game(island, seed, truth_rate=0.5)
    watcher.game = game
    list(play_agent(game, watcher))
    names = [f.name for f in dataclasses.fields(Observation)]
    for obs, *_ in watcher.seen:
        assert type(obs) is Observation and sorted(vars(obs)) == sorted(names)
        made = Observation(**{name: getattr(obs, name) for name in names})
        assert made == obs and vars(made) == vars(obs) and repr(made) == repr(obs)
        with pytest.raises(dataclasses.FrozenInstanceError):
            obs.turn = 0
