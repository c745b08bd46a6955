"""Knowledge.distance_from says -1 for the tiles it cannot reach (its docstring says so)."""

from __future__ import annotations

from helpers import SMALL_ROWS, island_from_grid

from treasure_cli.agents.knowledge import Knowledge


def test_distance_from_is_minus_one_where_no_walk_leads():
    island = island_from_grid(SMALL_ROWS, treasure=(1, 5))
    field = Knowledge(island.public()).distance_from((1, 1))
    assert field[1, 2] == 1 and field[3, 3] == 4 and field[1, 6] == 5
    assert field[0, 0] == -1 and field[2, 2] == -1  # the sea, and the mountain


def test_the_pirates_distance_is_a_search_from_him_on_every_candidate():
    """pirate_distance reads the prison's field instead of searching from him: on a maze, move
    by move, it must match the search on the tiles that can still hold the treasure."""
    import numpy as np

    from treasure_cli.islands.generator import generate_island
    from treasure_cli.rules import events as ev
    from treasure_cli.rules.grid import bfs_distance
    from treasure_cli.rules.pirate import next_stop, pirate_path

    island = generate_island(21, 21, style="maze", rng=np.random.default_rng(3))
    prison = island.reachable_prisons[0]
    path = pirate_path(island.walkable, island.treasure_distance, prison)
    know = Knowledge(island.public())
    know.update(ev.PirateFreed(1))
    index, checked = 0, 0
    while index < len(path) - 1:
        src, index = path[index], next_stop(path, index)
        know.update(ev.PirateMoved(1 + index, src, path[index]))
        know.game_goes_on()
        cand = know.candidates
        assert cand[island.treasure] or path[index] == island.treasure
        searched = bfs_distance(island.walkable, [path[index]])
        assert np.array_equal(know.pirate_distance(np.s_[:, :])[cand], searched[cand])
        checked += int(cand.sum())
    assert checked > len(path)  # candidates were there to compare
