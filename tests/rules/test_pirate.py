from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from helpers import island_from_grid
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.map_file import format_map, parse_map
from treasure_cli.rules import grid
from treasure_cli.rules.island import Island
from treasure_cli.rules.pirate import island_pirate_path, next_stop, pirate_path


def test_tie_break_prefers_previous_direction_then_north_east_south_west():
    isl = island_from_grid(
        [
            "1P 1 1",
            "1 1 1",
            "1 1 1",
        ],
        treasure=(2, 2),
    )
    path = pirate_path(isl.walkable, isl.treasure_distance, (0, 0))
    # E before S at the start (N, E, S, W order), then keeps going E while it can.
    assert path == [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)]


def test_path_goes_round_mountains_and_is_shortest():
    isl = island_from_grid(
        [
            "0 0 0 0 0 0",
            "0 1P 1M 1 1 0",
            "0 1 1M 1 1 0",
            "0 1 1 1 1 0",
            "0 0 0 0 0 0",
        ],
        treasure=(1, 3),
    )
    path = pirate_path(isl.walkable, isl.treasure_distance, (1, 1))
    assert path[0] == (1, 1) and path[-1] == (1, 3)
    assert len(path) - 1 == isl.treasure_distance[1, 1] == 6
    for (r1, c1), (r2, c2) in zip(path, path[1:]):
        assert abs(r1 - r2) + abs(c1 - c2) == 1
        assert isl.walkable[r2, c2]
    # From (2,1) going S the previous direction is kept: down to row 3 before turning E.
    assert path[:4] == [(1, 1), (2, 1), (3, 1), (3, 2)]


def test_two_tiles_a_turn_then_one_when_one_remains():
    path = [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert next_stop(path, 0) == 2
    assert next_stop(path, 2) == 3
    assert next_stop(path, 3) == 3


def test_unreachable_treasure_is_refused():
    walk = np.array([[True, False, True]])
    dist = np.array([[-1, -1, 0]])
    try:
        pirate_path(walk, dist, (0, 0))
    except ValueError as exc:
        assert "cannot be reached" in str(exc)
    else:
        raise AssertionError("expected ValueError")


@pytest.fixture(params=["as built", "bit layers"])
def path_way(request):
    """island_pirate_path as the package takes it, and with the bit layers (numpy's fallback
    takes them on maps up to 128x128; with the compiled BFS they are not used)."""
    if request.param == "bit layers":
        with mock.patch.object(grid, "COMPILED", False):
            yield request.param
    else:
        yield request.param


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(5, 140), st.integers(5, 140), st.integers(0, 2**32 - 1))
def test_the_bit_layer_path_is_the_distance_field_path(path_way, w, h, seed):
    # A map read from text has no distance field cached: small ones take the bit layers
    # (without the compiled BFS), the others the BFS up to the prison's layer.
    island = parse_map(format_map(generate_island(w, h, rng=np.random.default_rng(seed))))
    assert "treasure_distance" not in island.__dict__
    field = island.walk_distance([island.treasure])
    for prison in island.reachable_prisons:
        lazy = island_pirate_path(island, prison)
        want = pirate_path(island.walkable, field, prison)
        assert len(lazy) == len(want) and lazy[-1] == want[-1]  # its length known before it is walked
        assert list(lazy) == want
    assert "treasure_distance" not in island.__dict__  # neither way computed the whole field


def test_the_bit_layer_path_refuses_an_unreachable_treasure(path_way):
    isl = Island(np.array([[1, 1, 1]]), np.array([[False, True, False]]), np.array([[True, False, False]]),
                 2, 3, (0, 2))  # a mountain between the prison and the treasure
    with pytest.raises(ValueError, match="cannot be reached"):
        island_pirate_path(isl, (0, 0))
