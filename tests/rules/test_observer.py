"""rules.observation.Observer rebuilds, from the public events alone, the Observation the game makes.

The agent host in another process (sandbox/agent_host.py) gives its agent these rebuilt
observations: an agent must see the same thing in process and out of it.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
from helpers import RandomTeleporter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import treasure_cli
from treasure_cli.agents.logic import LogicAgent
from treasure_cli.formats import wire
from treasure_cli.play.loop import play_agent
from treasure_cli.rules import events as ev
from treasure_cli.rules.actions import Teleport, Verify
from treasure_cli.rules.game import Game
from treasure_cli.rules.observation import Observation, Observer

FIELDS = [f.name for f in dataclasses.fields(Observation)]


def assert_same(rebuilt: Observation, obs: Observation) -> None:
    for name in FIELDS:
        mine, theirs = getattr(rebuilt, name), getattr(obs, name)
        if name == "scanned":
            assert mine.shape == theirs.shape and mine.dtype == theirs.dtype
            assert np.array_equal(mine, theirs), name
            assert not mine.flags.writeable
        elif name == "verified":
            assert dict(mine) == dict(theirs), name
        elif name == "island":
            assert mine == theirs and mine.treasure is None
        else:
            assert mine == theirs, (name, mine, theirs)


class Checked:
    """Plays `agent`, checking before every action that two Observers see what the game shows:
    one fed the events themselves, one fed them through the wire (as the agent host is)."""

    def __init__(self, agent, island, truth_rate, max_turns):
        self.agent = agent
        self.direct = Observer(island, truth_rate, max_turns)
        self.wired = Observer(wire.decode_island(json.loads(json.dumps(wire.encode_island(island)))),
                              truth_rate, max_turns)
        self.checked = 0
        self.actions: list = []

    def act(self, obs):
        assert_same(self.direct.observe(obs.turn, obs.actions_left, obs.news), obs)
        news = tuple(wire.decode_event(json.loads(json.dumps(wire.encode_event(e, obs.island)))) for e in obs.news)
        assert_same(self.wired.observe(obs.turn, obs.actions_left, news), obs)
        self.checked += 1
        action = self.agent.act(obs)
        self.actions.append(action)
        return action


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(8, 16), st.integers(8, 16), st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1),
       st.sampled_from([0.0, 0.5, 1.0]), st.booleans())
def test_the_observer_sees_what_the_game_shows(w, h, island_seed, seed, truth_rate, logic):
    island = treasure_cli.generate_island(w, h, rng=np.random.default_rng(island_seed))
    game = Game(island, seed, truth_rate=truth_rate, max_turns=40)
    agent = LogicAgent() if logic else RandomTeleporter(seed)
    checked = Checked(agent, game.public_island, truth_rate, game.max_turns)
    events = list(play_agent(game, checked))
    assert type(events[-1]) is ev.GameEnded
    assert checked.checked == len(checked.actions) >= 1


def test_the_random_games_teleport_verify_and_meet_the_pirate():
    """The property above is not vacuous: its agents teleport, verify, and play past the pirate's release."""
    teleports = verifies = free = 0
    for seed in range(8):
        island = treasure_cli.generate_island(10, 10, rng=np.random.default_rng(seed))
        game = Game(island, seed, max_turns=40)
        checked = Checked(RandomTeleporter(seed), game.public_island, 0.5, game.max_turns)
        list(play_agent(game, checked))
        teleports += sum(isinstance(a, Teleport) for a in checked.actions)
        verifies += sum(isinstance(a, Verify) for a in checked.actions)
        free += checked.direct.pirate is not None
    assert teleports >= 4 and verifies >= 4 and free >= 2


def test_a_fresh_observer_knows_nothing():
    island = treasure_cli.generate_island(8, 8, rng=np.random.default_rng(0)).public()
    obs = Observer(island, 0.5, 10).observe(1, 2, ())
    assert obs.hints == () and dict(obs.verified) == {} and not obs.scanned.any()
    assert obs.prison is None and obs.pirate is None and obs.teleport_used is False
    assert obs.turn == 1 and obs.actions_left == 2 and obs.max_turns == 10 and obs.truth_rate == 0.5
