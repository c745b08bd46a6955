"""`Draws` gives, call for call, the values of numpy's Generator on the same seed.

The hints of every log depend on it: if numpy ever changes how its Generator
methods use the bits, these tests say so (and `Draws`, which owns its
algorithms, keeps the logs as they are).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_cli.formats.generator import generate_island
from treasure_cli.rules import seeds
from treasure_cli.rules.draws import Draws
from treasure_cli.rules.hint_draw import HintContext, draw_hint

# One draw: ("random",), ("int", low, span) or ("sample", population, size).
ops = st.one_of(
    st.just(("random",)),
    st.tuples(st.just("int"), st.integers(-50, 50),
              st.one_of(st.integers(1, 40), st.sampled_from([2**31, 2**32 - 1, 2**32]), st.integers(1, 2**32))),
    st.integers(1, 12000).flatmap(lambda n: st.tuples(st.just("sample"), st.just(n), st.integers(0, min(n, 15)))),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=3), st.lists(ops, min_size=1, max_size=60))
def test_every_draw_equals_the_generator_s(keys, sequence):
    ours, numpy_ = Draws(keys), np.random.default_rng(keys)
    for op in sequence:
        if op[0] == "random":
            assert ours.random() == numpy_.random()
        elif op[0] == "int":
            _, low, span = op
            assert low + ours.below(span - 1) == int(numpy_.integers(low, low + span))
        else:
            _, n, size = op
            pool = np.arange(n, dtype=np.int64) * 7 + 3
            want = numpy_.choice(pool, size=size, replace=False)
            assert pool[ours.sample(n, size)].tolist() == want.tolist()
    # ...and the two are at the same place in the stream afterwards.
    assert ours.below(999) == int(numpy_.integers(0, 1000))
    assert ours.random() == numpy_.random()


@pytest.mark.parametrize("span", [2**31 + 1, 3 * 2**30, 2**32 - 5])
def test_wide_ranges_reject_like_the_generator(span):
    # About a third to a half of these draws fall in the biased sliver and are redrawn.
    for seed in range(20):
        ours, numpy_ = Draws([seed]), np.random.default_rng([seed])
        assert [ours.below(span - 1) for _ in range(50)] == numpy_.integers(0, span, size=50).tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 3), st.integers(0, 2**32 + 5), st.integers(0, 2**64 + 5)), min_size=1, max_size=4))
def test_any_non_negative_keys_seed_the_generator_s_stream(keys):
    # Draws hands SeedSequence the keys' 32-bit words itself: the same entropy as the keys.
    assert Draws(keys).random() == np.random.default_rng(keys).random()


def test_out_of_scope_requests_are_refused_not_answered_differently():
    with pytest.raises(ValueError):
        Draws([3, -1])
    d = Draws([1])
    with pytest.raises(ValueError):
        d.below(-1)
    with pytest.raises(ValueError):
        d.below(2**32)
    with pytest.raises(ValueError):
        d.sample(3, 4)
    with pytest.raises(ValueError):
        d.sample(20000, 500)  # numpy takes a different algorithm there
    assert d.random() == np.random.default_rng([1]).random()  # nothing was drawn by the refusals


@settings(max_examples=60, deadline=None)
@given(st.integers(6, 30), st.integers(6, 30), st.integers(0, 2**32 - 1))
def test_the_pirate_draws_the_same_hints_from_either_source(w, h, seed):
    island = generate_island(w, h, rng=np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    land, walk = np.argwhere(island.land), np.argwhere(island.walkable)
    for turn in range(1, 10):
        treasure = tuple(int(x) for x in land[rng.integers(len(land))])
        ctx = HintContext(turn, island.prisons[0], tuple(int(x) for x in walk[rng.integers(len(walk))]),
                          bool(rng.integers(2)))
        truthful = bool(rng.integers(2))
        ours, numpy_ = seeds.draws(seed, seeds.HINTS, turn), seeds.stream(seed, seeds.HINTS, turn)
        assert draw_hint(island, treasure, ctx, truthful, ours) == draw_hint(island, treasure, ctx, truthful, numpy_)
        assert ours.random() == numpy_.random()
