"""A map's style, read from the map itself: `island` or `maze`, the two styles `generate` makes.

A map file does not say how it was made (the format has no place for it), so a
map's style is told from its terrain, by the one thing that makes a maze: walls
of mountains. `generate --style maze` turns about 49 % of the land into
mountains (47-53 % at 8x8 to 256x256); `--style island` about 6 %, and at its
`--mountains` cap at most 21 %. So a map whose mountains are at
least MAZE_SHARE of its land is named a maze, any other an island. A map drawn
by hand gets the name of the style it looks like.
"""

from __future__ import annotations

import numpy as np

from treasure_cli.rules.island import Island

MAZE_SHARE = 0.3  # mountains' share of the land from which a map is a maze (island: 21 % at most; maze: 47 % at least)


def map_style(island: Island) -> str:
    """`maze` when at least MAZE_SHARE of the island's land is mountain, else `island`."""
    land = int(np.count_nonzero(island.regions > 0))
    mountains = int(np.count_nonzero(island.mountain))
    return "maze" if land and mountains >= MAZE_SHARE * land else "island"
