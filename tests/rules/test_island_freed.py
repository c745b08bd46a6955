"""A game's island is freed when its game is done, without the cyclic garbage collector.

Nothing the referee keeps with an island (its memos, the hint draw's testers) may refer back
to it: a cycle holds the island and all its tables until a collection of the oldest
generation comes by, which in a batch of big maps held several islands at once.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from treasure_cli import generate_island
from treasure_cli.formats.game_record import format_log
from treasure_cli.play.games import play_game


@pytest.mark.parametrize("agent", ["logic", "random"])
def test_islands_are_freed_by_reference_counting_alone(agent):
    alive = []
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for seed in range(6):
            island = generate_island(24, 20, rng=np.random.default_rng(seed))
            record, events = play_game(island, agent, seed, map_name="m", max_turns=12)
            assert events is not None, record.error
            format_log(events)
            alive.append(weakref.ref(island))
            del island, record, events
        assert [ref() is None for ref in alive] == [True] * len(alive)
    finally:
        if enabled:
            gc.enable()
