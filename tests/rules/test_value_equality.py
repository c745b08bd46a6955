"""Values that hold numpy arrays compare by value, as one bool, and are not hashable: the same on
every Python (a dataclass's own __eq__ raises on arrays from Python 3.13 on). The suite runs on
each supported interpreter (noxfile.py), this file with it."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import numpy as np
import pytest

import treasure_cli
from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.actions import LargeScan
from treasure_cli.rules.game import Game
from treasure_cli.rules.observation import Note, Observation
from treasure_cli.rules.values import compares_arrays
from treasure_cli.view.steps import FrameState, Replay


def two_games_observed(seed: int = 3) -> tuple[Observation, Observation]:
    """The first observation after a large scan in two separate games of one seed: equal values,
    no array shared between them."""
    out = []
    for _ in range(2):
        game = Game(generate_island(12, 12, rng=np.random.default_rng(seed)), seed)
        game.start()
        game.step(LargeScan())
        out.append(game.observe())
    return out[0], out[1]


def test_observations_of_one_state_are_equal_without_sharing_arrays():
    a, b = two_games_observed()
    assert a.scanned is not b.scanned and a.island is not b.island
    assert a.scanned.any()  # the scan shows: the arrays compared hold something
    assert (a == b) is True and (a != b) is False


def test_observations_differ_when_only_an_array_field_differs():
    a, _ = two_games_observed()
    other = a.scanned.copy()
    other[0, 0] = not other[0, 0]
    b = dataclasses.replace(a, scanned=other)
    assert (a == b) is False and (a != b) is True
    assert dataclasses.replace(a, scanned=a.scanned[:-1]) != a  # another shape: unequal, no error
    assert dataclasses.replace(a, turn=a.turn + 1) != a
    assert a != "not an observation"


def test_values_holding_arrays_are_not_hashable():
    a, _ = two_games_observed()
    with pytest.raises(TypeError):
        hash(a)
    frame = _frames()[-1]
    with pytest.raises(TypeError):
        hash(frame)


def _frames() -> list[FrameState]:
    """The frames of the setup and a first large scan, replayed from a new game's events."""
    island = generate_island(10, 10, rng=np.random.default_rng(5))
    game = Game(island, 5)
    events = list(game.start())
    events += game.step(LargeScan())
    replay = Replay(island, events)
    return [replay.state(i) for i in range(replay.last_step() + 1)]


def test_frame_states_of_one_game_are_equal_and_differ_by_a_mask():
    a, b = _frames(), _frames()
    assert len(a) > 1 and a == b
    assert a[-1].candidates is not b[-1].candidates
    changed = b[-1].candidates.copy()
    changed[changed.nonzero()[0][0], changed.nonzero()[1][0]] = False
    assert dataclasses.replace(b[-1], candidates=changed) != a[-1]
    assert isinstance(a[-1], FrameState)


def test_every_dataclass_with_an_array_field_compares_arrays_by_value():
    """No class of the package keeps a dataclass's own __eq__ over an array field."""
    found = []
    for info in pkgutil.walk_packages(treasure_cli.__path__, "treasure_cli."):
        if info.name.startswith("treasure_cli.gym"):
            pytest.importorskip("gymnasium")
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if not (isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == info.name):
                continue
            # (a field left out of the comparison, such as TileSetHint's cached mask, is never compared)
            if any("ndarray" in str(f.type) for f in dataclasses.fields(value) if f.compare):
                found.append(value.__name__)
                assert not value.__dataclass_params__.eq, value  # not the generated __eq__
                assert "__eq__" in vars(value) and value.__hash__ is None, value
    assert {"Observation", "FrameState", "Island", "Note"} <= set(found)


def test_notes_compare_their_masks_by_value():
    mask = np.zeros((4, 5), dtype=bool)
    mask[1, 2] = True
    a, b = Note("verify 7", mask), Note("verify 7", mask.copy())
    assert (a == b) is True
    assert a != Note("verify 7", ~mask) and a != Note("verify 8", mask.copy())
    assert Note("x", [(1, 2)]) == Note("x", [(1, 2)]) and Note("x", [(1, 2)]) != Note("x", mask)
    with pytest.raises(TypeError):
        hash(a)


def test_compares_arrays_refuses_a_class_with_the_generated_eq():
    @dataclasses.dataclass(frozen=True)
    class Boxed:
        values: np.ndarray

    with pytest.raises(TypeError, match="eq=False"):
        compares_arrays(Boxed)
