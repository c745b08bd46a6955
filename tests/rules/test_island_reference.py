"""The island's terrain masks against the versions they replaced.

Rewritten for fewer numpy calls on small maps; the earlier code is kept here
as an oracle and compared value for value, type for type, on islands of odd
shapes (empty, one row or column) and odd contents (all sea, one region,
specks of many regions, huge or negative region numbers as a foreign caller
may pass).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import region_grids

from treasure_cli.rules.island import SEA, Island


def old_adjacent_pairs(island: Island) -> tuple[tuple[int, int], ...]:
    reg = island.regions
    codes = []
    for x, y in ((reg[:, :-1], reg[:, 1:]), (reg[:-1, :], reg[1:, :])):
        touch = x != y
        x, y = x[touch], y[touch]
        land = (x != SEA) & (y != SEA)
        a, b = x[land].astype(np.int64), y[land].astype(np.int64)
        codes.append((np.minimum(a, b) << 31) | np.maximum(a, b))
    allc = np.unique(np.concatenate(codes))
    return tuple(zip((allc >> 31).tolist(), (allc & ((1 << 31) - 1)).tolist()))


def old_all_boundaries(island: Island) -> np.ndarray:
    reg = island.regions
    out = np.zeros(reg.shape, dtype=bool)
    for x, y, sx, sy in (
        (reg[:, :-1], reg[:, 1:], np.s_[:, :-1], np.s_[:, 1:]),
        (reg[:-1, :], reg[1:, :], np.s_[:-1, :], np.s_[1:, :]),
    ):
        touch = (x != y) & (x != SEA) & (y != SEA)
        out[sx] |= touch
        out[sy] |= touch
    return out


def old_prisons(island: Island) -> tuple[tuple[int, int], ...]:
    rows, cols = np.nonzero(island.prison)
    return tuple((int(r), int(c)) for r, c in zip(rows, cols))


def old_present(values: np.ndarray, count: int) -> tuple[int, ...]:
    if count <= 4 * values.size + 1024 and (not values.size or values.min() >= 0):
        seen = np.zeros(count, dtype=bool)
        seen[values] = True
        return tuple(np.flatnonzero(seen).tolist())
    return tuple(np.unique(values).tolist())


def old_land_regions(island: Island) -> tuple[int, ...]:
    return tuple(i for i in old_present(island.regions.ravel(), island.region_count) if i != SEA)


def old_mountain_regions(island: Island) -> tuple[int, ...]:
    return old_present(island.regions[island.mountain & island.land], island.region_count)


def old_prison_reach(island: Island) -> np.ndarray:
    if not island.prisons:
        return island.walkable
    pieces = island.walk_pieces
    table = np.zeros(int(pieces.max()) + 1, dtype=bool)
    table[pieces[island.prison]] = True
    return table[pieces]


@st.composite
def odd_islands(draw) -> Island:
    regions = draw(region_grids())
    h, w = regions.shape
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mountain = (regions != 0) & (rng.random((h, w)) < 0.1)
    prison = rng.random((h, w)) < draw(st.sampled_from([0.0, 0.05, 0.5]))  # anywhere, even on the sea
    if draw(st.booleans()):  # read-only arrays in another memory layout: the island keeps them as they are
        regions, mountain, prison = (np.asfortranarray(a, dtype=t) for a, t in
                                     ((regions, np.int32), (mountain, bool), (prison, bool)))
        for a in (regions, mountain, prison):
            a.setflags(write=False)
    return Island(regions, mountain, prison, 2, 5)


def outcome(compute):
    """What `compute()` gives, or the error it raises (type and message)."""
    try:
        return "value", compute()
    except Exception as exc:
        return "error", type(exc), str(exc)


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


@settings(max_examples=400, deadline=None)
@given(odd_islands(), st.booleans())
def test_region_contacts_and_prisons_match_the_earlier_versions(island, boundaries_first):
    # Either mask may be asked for first: each computes both.
    if boundaries_first:
        island.all_boundaries  # noqa: B018  (computed first)
    pairs, bounds = island.adjacent_pairs, island.all_boundaries
    assert pairs == old_adjacent_pairs(island)
    assert all(type(x) is int for pair in pairs for x in pair)
    assert same(bounds, old_all_boundaries(island)) and not bounds.flags.writeable
    assert island.public().adjacent_pairs is pairs and island.public().all_boundaries is bounds
    prisons = island.prisons
    assert prisons == old_prisons(island) and all(type(x) is int for p in prisons for x in p)


@settings(max_examples=400, deadline=None)
@given(odd_islands())
def test_region_sets_and_prison_reach_match_the_earlier_versions(island):
    for name, old in (("land_regions", old_land_regions), ("mountain_regions", old_mountain_regions)):
        # (All regions negative and no mountain: both fail alike, on a table of R <= 0 entries.)
        got, want = outcome(lambda: getattr(island, name)), outcome(lambda: old(island))  # noqa: B023  (called here)
        assert got == want and (got[0] == "error" or all(type(x) is int for x in got[1]))
    reach = island.prison_reach
    assert same(reach, old_prison_reach(island)) and not reach.flags.writeable
