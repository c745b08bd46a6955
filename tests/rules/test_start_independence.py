"""Where the agent starts says nothing of where the treasure is (beyond the rule that it does not
start on it): over many games of one island, the start's distribution is the same whichever tile
holds the treasure."""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.stats import chi2_contingency

from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.seeds import bench_map_game_seed as map_game_seed
from treasure_cli.rules.game import Game


def test_the_start_is_independent_of_the_treasure_given_the_public_island():
    island = generate_island(24, 24, rng=np.random.default_rng(5))
    land = np.argwhere(island.walkable & ~island.prison)
    # Four treasure tiles far apart: the island's four quarters' first tiles.
    corners = [land[np.argmin(np.abs(land - np.array(c)).sum(1))] for c in ((0, 0), (0, 23), (23, 0), (23, 23))]
    quarter = lambda pos: 2 * (pos[0] >= 12) + (pos[1] >= 12)  # noqa: E731 - where a start falls
    table = []
    for treasure in corners:
        moved = dataclasses.replace(island, treasure=(int(treasure[0]), int(treasure[1])))
        counts = [0, 0, 0, 0]
        for i in range(400):  # bench's game seeds for this island, game index i
            game = Game(moved, map_game_seed(1, moved.digest, i))
            counts[quarter(game.position)] += 1
        table.append(counts)
    table = np.array(table)
    assert table.sum() == 1600 and (table > 0).all()
    # The start falls in each quarter as often whichever quarter holds the treasure.
    assert chi2_contingency(table).pvalue > 0.001, table
