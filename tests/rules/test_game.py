from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers import SMALL_ROWS as ROWS
from helpers import ScriptedAgent, island_from_grid, play, play_spec

from treasure_cli.rules import events as ev
from treasure_cli.rules.actions import LargeScan, Move, Teleport, Verify
from treasure_cli.errors import IllegalActionError
from treasure_cli.rules.game import Game
from treasure_cli.rules.grid import Direction


def make_game(actions, treasure=(1, 6), r=2, f=3, seed=5, **kw):
    isl = island_from_grid(ROWS, treasure, r=r, f=f)
    agent = ScriptedAgent(actions)
    return Game(isl, seed, **kw), agent


def kinds(events):
    return [type(e).__name__ for e in events]


def test_turn_order_of_the_rules():
    pace = [Move(Direction.E, 3), Move(Direction.W, 3)] * 10  # large moves do not scan
    game, agent = make_game([Teleport((4, 2))] + pace, treasure=(1, 6), r=2, f=3)
    events = play(game, agent)
    names = kinds(events)
    assert names[:4] == ["GameStarted", "TreasureHidden", "AgentPlaced", "ScheduleAnnounced"]
    # Turn 1: start, hint, add, two actions.
    t1 = [type(e).__name__ for e in events if getattr(e, "turn", 0) == 1]
    assert t1[:3] == ["TurnStarted", "HintGiven", "HintAdded"]
    t2 = [type(e).__name__ for e in events if getattr(e, "turn", 0) == 2]
    assert t2[:4] == ["TurnStarted", "PrisonRevealed", "HintGiven", "HintAdded"]
    t3 = [type(e).__name__ for e in events if getattr(e, "turn", 0) == 3]
    assert t3[:5] == ["TurnStarted", "PirateFreed", "HintGiven", "HintAdded", "PirateMoved"]


def test_first_hint_is_true_and_known_true():
    for seed in range(20):
        game, agent = make_game([LargeScan()] * 4, seed=seed, truth_rate=0.0)
        events = play(game, agent)
        first = next(e for e in events if isinstance(e, ev.HintGiven))
        assert first.number == 1 and first.truthful is True
        assert agent.observations[0].verified == {1: True}
        # later hints are all lies at truth rate 0
        assert all(not e.truthful for e in events if isinstance(e, ev.HintGiven) and e.number > 1)


def test_scan_covering_the_treasure_wins_at_once():
    game, agent = make_game([Teleport((2, 5)), LargeScan()], treasure=(1, 6))
    events = play(game, agent)
    assert isinstance(events[-1], ev.GameEnded)
    assert events[-1].outcome is ev.Outcome.WIN and events[-1].reason is ev.EndReason.FOUND
    assert events[-2] == ev.AreaScanned(1, (2, 5), 5, True)
    assert game.result.turn == 1


def test_small_move_scans_three_by_three_and_large_move_does_not():
    game, agent = make_game([Teleport((3, 1)), Move(Direction.E, 1), Move(Direction.E, 4)], treasure=(1, 6))
    events = play(game, agent)
    acted = [e for e in events if isinstance(e, (ev.Teleported, ev.AgentMoved, ev.AreaScanned))]
    assert acted[:4] == [
        acted[0],
        ev.AgentMoved(1, Direction.E, 1, (3, 1), (3, 2)),
        ev.AreaScanned(1, (3, 2), 3, False),
        ev.AgentMoved(1, Direction.E, 4, (3, 2), (3, 6)),
    ]
    assert acted[0].dst == (3, 1)
    assert acted[4].turn == 2  # no scan after the large move


@pytest.mark.parametrize(
    "actions, message",
    [
        ([Verify(1)], "hint 1 is already verified"),
        ([Verify(2)], "there is no hint 2"),
        ([Teleport((0, 0))], "walkable tile"),
        ([Teleport((2, 2))], "walkable tile"),  # a mountain
        ([Teleport((9, 9))], "walkable tile"),
        ([Teleport((3, 1)), Teleport((3, 2))], "only once"),
        ([Teleport((3, 1)), Move(Direction.W, 1)], "walkable tiles inside the map"),
        ([Teleport((3, 1)), Move(Direction.N, 5)], "1 to 4 tiles"),
        ([Teleport((1, 1)), Move(Direction.S, 1), Move(Direction.E, 1)], "walkable tiles"),  # onto the mountain
        (["scan please"], "not an action"),
    ],
)
def test_illegal_actions_raise_naming_the_action_and_state(actions, message):
    game, agent = make_game(actions)
    with pytest.raises(IllegalActionError) as info:
        play(game, agent)
    text = str(info.value)
    assert message in text
    assert "turn 1" in text and "from the agent at" in text


def test_pirate_reaching_the_treasure_loses():
    # Treasure two steps from the prison; the pirate is free on turn 1.
    game, agent = make_game([], treasure=(3, 2), r=1, f=1)
    events = play(game, agent)
    assert events[-1] == ev.GameEnded(1, ev.Outcome.LOSE, ev.EndReason.PIRATE)
    assert events[-2] == ev.PirateMoved(1, (4, 1), (3, 2))


def test_turn_limit_ends_in_a_timeout():
    pace = [Move(Direction.E, 3), Move(Direction.W, 3)] * 10
    game, agent = make_game([Teleport((4, 2))] + pace, treasure=(1, 6), f=50, max_turns=3)
    events = play(game, agent)
    assert events[-1] == ev.GameEnded(3, ev.Outcome.LOSE, ev.EndReason.TIMEOUT)


def test_observation_hides_the_truth():
    game, agent = make_game([LargeScan()] * 10, f=2, max_turns=4, treasure=(1, 6))
    play(game, agent)
    for obs in agent.observations:
        assert obs.island.treasure is None
        for event in obs.news:
            assert not isinstance(event, (ev.TreasureHidden, ev.GameStarted))  # no seed either
            if isinstance(event, ev.HintGiven) and event.number > 1:
                assert event.truthful is None
        assert not obs.scanned.flags.writeable
        fields = {f.name for f in dataclasses.fields(obs)}
        assert not {"treasure", "truths", "path"} & fields


def test_same_seed_same_events_other_seed_other_events():
    isl = island_from_grid(ROWS, (1, 6))

    def random_game(seed):
        return play_spec(isl, "random", seed, max_turns=30)

    assert random_game(11) == random_game(11)
    assert random_game(11) != random_game(12)


def test_agent_start_is_walkable_not_prison_not_treasure():
    isl = island_from_grid(ROWS, (1, 6))
    for seed in range(50):
        g = Game(isl, seed)
        assert isl.walkable[g.position] and not isl.prison[g.position] and g.position != (1, 6)
        assert g.prison == (4, 1)


def test_scanned_mask_is_clipped_at_the_edge():
    game, agent = make_game([Teleport((1, 1)), LargeScan(), LargeScan()], treasure=(4, 6))
    play(game, agent)
    seen = agent.observations[-1].scanned
    expected = np.zeros(seen.shape, bool)
    expected[0:4, 0:4] = True
    assert np.array_equal(seen, expected)


@pytest.mark.parametrize("reveal, free", [(0, 3), (2, 0), (-1, -1)])
def test_an_island_refuses_a_schedule_before_turn_1_however_it_is_made(reveal, free):
    import dataclasses

    import numpy as np

    from treasure_cli.islands.generator import generate_island
    from treasure_cli.rules.island import Island

    island = generate_island(12, 10, rng=np.random.default_rng(1))
    with pytest.raises(ValueError, match="1 or more"):
        dataclasses.replace(island, reveal_turn=reveal, free_turn=free)
    with pytest.raises(ValueError, match="1 or more"):
        Island(island.regions, island.mountain, island.prison, reveal, free, island.treasure)
