"""A map's style, told from its terrain (islands/style.py): what `generate --style` made, and a
hand-drawn map by what it looks like."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import island_from_grid

from treasure_cli.islands.generator import generate_island, limits
from treasure_cli.islands.style import MAZE_SHARE, map_style


@pytest.mark.parametrize("size", [8, 16, 32, 64, 128])
@pytest.mark.parametrize("style", ["island", "maze"])
def test_a_generated_map_is_named_after_the_style_it_was_made_in(style, size):
    for seed in range(3):
        assert map_style(generate_island(size, size, style=style, rng=np.random.default_rng(seed))) == style


@pytest.mark.parametrize("size", [16, 64])
def test_an_island_with_as_many_mountains_as_generate_allows_is_still_an_island(size):
    island = generate_island(size, size, mountains=limits(size, size)["mountains"], rng=np.random.default_rng(2))
    assert map_style(island) == "island"


def _walls(mountain_rows: int) -> list[str]:
    """A 7x8 land block (one region, sea border) whose first `mountain_rows` inner rows are walls
    of mountains but for one gap, and a prison in the last row."""
    rows = ["0 0 0 0 0 0 0 0"]
    for i in range(5):
        if i < mountain_rows and i % 2 == 0:
            rows.append("0 1M 1M 1M 1M 1M 1 0")
        else:
            rows.append("0 1 1 1 1 1 1 0")
    rows[-1] = "0 1P 1 1 1 1 1 0"
    return rows + ["0 0 0 0 0 0 0 0"]


def test_a_hand_drawn_map_is_a_maze_from_the_share_of_its_land_that_is_mountain():
    # 30 land tiles: walls in rows 1 and 3 are 10 mountains (33 %), one wall is 5 (17 %).
    maze = island_from_grid(_walls(4), treasure=(2, 3))
    open_ = island_from_grid(_walls(1), treasure=(2, 3))
    assert np.count_nonzero(maze.mountain) / np.count_nonzero(maze.regions) >= MAZE_SHARE
    assert map_style(maze) == "maze" and map_style(open_) == "island"
