"""The game's setup (prison, start tile, the pirate's walk) is what it was when made the plain way.

The setup draws once came from a numpy Generator (`seeds.stream`) and the
pirate's walk was found in `Game.__init__`; the reference functions below
keep that code, and the tests compare the game with them.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_cli.islands.generator import generate_island
from treasure_cli.rules import seeds
from treasure_cli.rules.draws import PyDraws
from treasure_cli.rules.game import Game, start_tiles
from treasure_cli.rules.pirate import island_pirate_path


def reference_setup(island, seed: int):
    """Prison and start tile as drawn from the setup stream's numpy Generator."""
    setup = seeds.stream(seed, seeds.SETUP)
    prisons = island.reachable_prisons
    prison = prisons[int(setup.integers(len(prisons)))]
    starts = start_tiles(island)
    flat = int(starts[int(setup.integers(starts.size))])
    return prison, (flat // island.width, flat % island.width)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(-2**70, 2**70), first=st.integers(1, 5000), second=st.integers(1, 2**24))
def test_two_setup_draws_are_the_setup_streams_integers(seed, first, second):
    """below(n - 1) twice on the setup Draws gives integers(n) twice on the setup stream,
    the spare half-word of the first draw included (both implementations)."""
    old = seeds.stream(seed, seeds.SETUP)
    want = (int(old.integers(first)), int(old.integers(second)))
    for new in (seeds.draws(seed, seeds.SETUP), PyDraws(seeds.entropy(seed, seeds.SETUP))):
        assert (new.below(first - 1), new.below(second - 1)) == want


@settings(max_examples=60, deadline=None)
@given(size=st.integers(6, 40), island_seed=st.integers(0, 2**32), seed=st.integers(0, 2**63 - 1))
def test_the_game_places_prison_and_agent_as_the_setup_stream_does(size, island_seed, seed):
    island = generate_island(size, size, rng=np.random.default_rng(island_seed))
    game = Game(island, seed)
    assert (game.prison, game.position) == reference_setup(island, seed)
    # The walk, found when first asked for, is the one the setup used to find.
    assert list(game.path) == list(island_pirate_path(island, game.prison))
    assert game.pirate == game.path[0] == game.prison
