from __future__ import annotations

import numpy as np
from helpers import island_from_grid

from treasure_cli import events as ev
from treasure_cli.knowledge import Knowledge

ROWS = [
    "0 0 0 0 0 0 0",
    "0 1 1 1 1 1 0",
    "0 1 1M 1 1 1 0",
    "0 1P 1 1 1 1 0",
    "0 0 0 0 0 0 0",
]


def test_starts_with_plain_land_and_scans_rule_out_tiles():
    isl = island_from_grid(ROWS, (1, 5)).public()
    k = Knowledge(isl)
    assert k.count == 15 - 2  # 15 land tiles, one mountain, one prison
    k.update(ev.AreaScanned(1, (1, 1), 3, False))
    assert not k.candidates[0:3, 0:3].any()
    assert k.count == 13 - 3  # (1,1), (1,2), (2,1); (2,2) is a mountain


def test_pirate_moves_keep_only_tiles_on_his_shortest_paths():
    isl = island_from_grid(ROWS, (1, 5)).public()
    k = Knowledge(isl)
    k.update(ev.PrisonRevealed(2, (3, 1)))
    k.update(ev.PirateMoved(3, (3, 1), (3, 3)))
    # Every tile t left satisfies dist(prison, t) == 2 + dist((3, 3), t).
    d_p = isl.walk_distance([(3, 1)])
    d_q = isl.walk_distance([(3, 3)])
    assert np.array_equal(k.candidates, isl.walkable & ~isl.prison & (d_q >= 0) & (d_p == d_q + 2))
    assert k.candidates[1, 5] and not k.candidates[1, 1]
