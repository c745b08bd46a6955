"""Knowledge.distance_from says -1 for the tiles it cannot reach (its docstring says so)."""

from __future__ import annotations

from helpers import SMALL_ROWS, island_from_grid

from treasure_cli.agents.knowledge import Knowledge


def test_distance_from_is_minus_one_where_no_walk_leads():
    island = island_from_grid(SMALL_ROWS, treasure=(1, 5))
    field = Knowledge(island.public()).distance_from((1, 1))
    assert field[1, 2] == 1 and field[3, 3] == 4 and field[1, 6] == 5
    assert field[0, 0] == -1 and field[2, 2] == -1  # the sea, and the mountain
