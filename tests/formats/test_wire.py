"""The agent protocol's JSON codec (formats/wire.py): what crosses the wire comes back equal."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import RandomTeleporter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import treasure_cli
from treasure_cli.agents.logic import LogicAgent
from treasure_cli.formats import json_lines
from treasure_cli.formats import wire
from treasure_cli.formats.wire import ProtocolError
from treasure_cli.play.loop import play_agent
from treasure_cli.rules import events as ev
from treasure_cli.rules.actions import LargeScan, Move, Teleport, Verify
from treasure_cli.rules.game import Game
from treasure_cli.rules.grid import Direction

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _island(w: int, h: int, seed: int):
    return treasure_cli.generate_island(w, h, rng=np.random.default_rng(seed))


def _through_json(data):
    return json.loads(json.dumps(data))


games = st.tuples(st.integers(8, 14), st.integers(8, 14), st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1),
                  st.booleans())


@SETTINGS
@given(games)
def test_every_public_event_of_a_game_round_trips(game_args):
    w, h, island_seed, seed, logic = game_args
    island = _island(w, h, island_seed)
    public = island.public()
    game = Game(island, seed, max_turns=12)
    agent = LogicAgent() if logic else RandomTeleporter(seed)
    seen = [e for e in (ev.public_view(e) for e in play_agent(game, agent)) if e is not None]
    assert seen and type(seen[-1]) is ev.GameEnded
    for event in seen:
        data = _through_json(wire.encode_event(event, public))
        assert data["event"] == wire.EVENT_NAMES[type(event)]
        assert data["turn"] == event.turn
        back = wire.decode_event(data)
        assert type(back) is type(event)
        assert back == event
        if type(event) is ev.HintGiven:
            assert data["hint"]["text"] == event.hint.sentence()
            assert data["hint"]["kind"] == event.hint.kind.name.lower()
            tiles = wire.runs_mask(data["hint"]["tiles"], island.shape)
            assert np.array_equal(tiles, event.hint.mask(public))
            assert data["truthful"] is (True if event.number == 1 else None)
            # An agent that reads the sentence itself ("tiles": false in its hello) gets no tiles.
            bare = _through_json(wire.encode_event(event, public, tiles=False))
            assert "tiles" not in bare["hint"] and wire.decode_event(bare) == event


def test_the_kinds_of_events_a_random_teleporter_sees():
    """The round trip above covers moves, scans, teleports, verifications and the pirate."""
    kinds = set()
    for seed in range(6):
        island = _island(10, 10, seed)
        game = Game(island, seed, max_turns=30)
        kinds |= {type(e) for e in (ev.public_view(e) for e in play_agent(game, RandomTeleporter(seed)))
                  if e is not None}
    assert {ev.AgentMoved, ev.AreaScanned, ev.Teleported, ev.HintVerified, ev.HintGiven, ev.HintAdded,
            ev.PirateMoved, ev.PrisonRevealed, ev.PirateFreed, ev.GameEnded, ev.AgentPlaced,
            ev.ScheduleAnnounced, ev.TurnStarted} <= kinds
    assert kinds.isdisjoint({ev.GameStarted, ev.TreasureHidden})


@SETTINGS
@given(st.integers(8, 20), st.integers(8, 20), st.integers(0, 2**32 - 1))
def test_the_public_island_round_trips(w, h, seed):
    public = _island(w, h, seed).public()
    data = _through_json(wire.encode_island(public))
    assert data["width"] == w and data["height"] == h
    assert len(data["mountain"]) == h and all(len(row) == w for row in data["mountain"])
    back = wire.decode_island(data)
    assert back == public
    assert back.treasure is None
    assert np.array_equal(back.walkable, public.walkable)


def test_the_island_with_its_treasure_is_never_encoded():
    island = _island(8, 8, 3)
    with pytest.raises(ValueError, match="public island"):
        wire.encode_island(island)
    assert "treasure" not in json.dumps(wire.encode_island(island.public()))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12).flatmap(lambda h: st.integers(1, 12).flatmap(
    lambda w: arrays(bool, (h, w)))))
def test_tile_runs_round_trip(mask):
    runs = wire.tile_runs(mask)
    assert all(type(x) is int for x in runs)
    starts, lengths = runs[0::2], runs[1::2]
    assert all(n > 0 for n in lengths)
    assert all(s + n < t for s, n, t in zip(starts, lengths, starts[1:]))  # sorted, apart, maximal
    assert sum(lengths) == int(mask.sum())
    assert np.array_equal(wire.runs_mask(runs, mask.shape), mask)


def test_tile_runs_exact():
    mask = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 0]], dtype=bool)
    assert wire.tile_runs(mask) == [0, 2, 4, 3]
    assert wire.tile_runs(np.zeros((2, 2), bool)) == []
    assert wire.tile_runs(np.ones((2, 3), bool)) == [0, 6]


ACTIONS = ([Verify(n) for n in (1, 2, 7)] + [LargeScan()]
           + [Move(d, s) for d in Direction for s in (1, 2, 3, 4)]
           + [Teleport((0, 0)), Teleport((5, 9)), Teleport((63, 2))])


@pytest.mark.parametrize("action", ACTIONS, ids=repr)
def test_every_action_round_trips(action):
    data = _through_json(wire.encode_action(action))
    assert data["type"] == "action"
    back = wire.decode_action(data)
    assert back == action and type(back) is type(action)


def test_action_messages_are_as_documented():
    assert wire.encode_action(Verify(3)) == {"type": "action", "action": "verify", "hint": 3}
    assert wire.encode_action(Move(Direction.W, 2)) == {"type": "action", "action": "move", "direction": "W",
                                                        "steps": 2}
    assert wire.encode_action(LargeScan()) == {"type": "action", "action": "scan"}
    assert wire.encode_action(Teleport((5, 9))) == {"type": "action", "action": "teleport", "to": [5, 9]}


@pytest.mark.parametrize("message", [
    {"type": "action", "action": "verify", "hint": True},
    {"type": "action", "action": "verify", "hint": 2.0},
    {"type": "action", "action": "verify", "hint": "2"},
    {"type": "action", "action": "verify"},
    {"type": "action", "action": "move", "direction": "N", "steps": True},
    {"type": "action", "action": "move", "direction": "N"},
    {"type": "action", "action": "move", "steps": 1},
    {"type": "action", "action": "move", "direction": "NE", "steps": 1},
    {"type": "action", "action": "move", "direction": "n", "steps": 1},
    {"type": "action", "action": "move", "direction": ["N"], "steps": 1},
    {"type": "action", "action": "teleport", "to": [1]},
    {"type": "action", "action": "teleport", "to": [1, 2, 3]},
    {"type": "action", "action": "teleport", "to": [1, True]},
    {"type": "action", "action": "teleport", "to": [1.0, 2]},
    {"type": "action", "action": "teleport", "to": "1,2"},
    {"type": "action", "action": "teleport", "to": {"row": 1, "col": 2}},
    {"type": "action", "action": "teleport"},
    {"type": "action", "action": "jump"},
    {"type": "action", "action": None},
    {"type": "action"},
], ids=lambda m: json.dumps(m))
def test_malformed_actions_are_protocol_errors(message):
    with pytest.raises(ProtocolError):
        wire.decode_action(message)


def test_an_invalid_action_is_a_reason_not_an_error():
    sent = wire.encode_action("scan please")
    assert sent == {"type": "action", "action": "invalid", "repr": "'scan please'"}
    back = wire.decode_action(_through_json(sent))
    assert back == "'scan please'"  # the agent's own repr: the game refuses it in its own words
    assert wire.decode_action({"type": "action", "action": "invalid", "repr": "x" * 1000}) == "x" * 200


def test_a_line_reads_back_the_same_with_orjson_and_with_the_json_module(monkeypatch):
    # orjson is a dependency; the json module is the fallback where it is missing: one protocol.
    message = {"type": "act", "turn": 3, "actions_left": 2, "position": [4, 5], "teleport_used": False,
               "news": [{"event": "hint_given", "turn": 3, "number": 3, "truthful": None,
                         "hint": {"kind": "in_regions", "text": "the treasure is in région 2 \n"}}],
               "seed": 2**64 - 1, "rate": 0.5}
    fast = wire.dump_line(message)
    assert json_lines.orjson is not None and fast.endswith(b"\n") and fast.count(b"\n") == 1
    monkeypatch.setattr(json_lines, "orjson", None)
    slow = wire.dump_line(message)
    assert slow.count(b"\n") == 1
    assert wire.load_line(fast) == wire.load_line(slow) == message
    with pytest.raises(ValueError):
        wire.load_line(b"garbage, not JSON")


def test_runs_may_overlap_and_come_in_any_order_their_union_is_the_set():
    """As docs/agent-protocol.md says of a note's tiles: two runs starting on one tile, nested runs,
    runs out of order, an empty run."""
    shape = (2, 6)
    for runs, tiles in [([0, 2, 0, 3], {0, 1, 2}), ([0, 5, 1, 1], {0, 1, 2, 3, 4}), ([8, 2, 1, 2], {1, 2, 8, 9}),
                        ([4, 0, 11, 1], {11}), ([2, 3] * 200, {2, 3, 4})]:
        expected = np.zeros(12, dtype=bool)
        expected[sorted(tiles)] = True
        assert np.array_equal(wire.runs_mask(runs, shape), expected.reshape(shape)), runs
