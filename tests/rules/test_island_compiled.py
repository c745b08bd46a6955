"""The island's masks from the compiled kernels (`region_tables`, `positions`, `piece_reach`
in treasure_cli.rules._grid) against island.py's numpy code, bit for bit.

Each island is asked for its masks twice, on two fresh copies: once as the
package does it, once with the masks' compiled twins switched off (each
`_terrain`'s `compiled` set to None: its numpy code, the reference and the
fallback; the grid functions they call are compared in test_grid_compiled.py).
Values, dtypes, shapes, memory order, read-only flags, the types inside tuples
and any error raised must be the same, whichever mask is asked for first.
"""

from __future__ import annotations

import contextlib
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import needs_built, region_grids

from treasure_cli.islands.generator import generate_island
from treasure_cli.rules import grid
from treasure_cli.rules.island import TERRAIN_MASKS, Island

try:
    from treasure_cli.rules import _grid
except ImportError:
    _grid = None

needs_module = needs_built(_grid, "treasure_cli.rules._grid")
NAMES = TERRAIN_MASKS + ("reachable_prisons",)


@st.composite
def islands(draw) -> Island:
    regions = draw(region_grids())
    h, w = regions.shape
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    # Mountains mostly on land, sometimes on the sea too; prisons anywhere, on several pieces.
    mountain = (rng.random((h, w)) < draw(st.sampled_from([0.0, 0.1, 0.4])))
    if draw(st.booleans()):
        mountain &= regions != 0
    prison = rng.random((h, w)) < draw(st.sampled_from([0.0, 0.02, 0.2, 0.6]))
    if draw(st.booleans()):  # read-only arrays in another layout: the island keeps them as they are
        regions, mountain, prison = (np.asfortranarray(a, dtype=t) for a, t in
                                     ((regions, np.int32), (mountain, bool), (prison, bool)))
        for a in (regions, mountain, prison):
            a.setflags(write=False)
    treasure = None
    if h and w and draw(st.booleans()):
        treasure = (draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1)))
    return Island(regions, mountain, prison, 2, 5, treasure)


@contextlib.contextmanager
def numpy_only():
    with contextlib.ExitStack() as stack:
        for name in TERRAIN_MASKS:
            stack.enter_context(mock.patch.object(vars(Island)[name], "compiled", None))
        yield


def fresh(island: Island) -> Island:
    return Island(island.regions, island.mountain, island.prison, island.reveal_turn, island.free_turn,
                  island.treasure)


def outcome(island: Island, name: str):
    try:
        return "value", getattr(island, name)
    except Exception as exc:  # noqa: BLE001 - the same error is expected both ways
        return "error", type(exc), str(exc)


def assert_same(got, want, where: str) -> None:
    assert type(got) is type(want), where
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape, where
        assert np.array_equal(got, want), where
        for flag in ("WRITEABLE", "C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA"):
            assert got.flags[flag] == want.flags[flag], (where, flag)
    elif isinstance(want, tuple):
        assert len(got) == len(want), where
        for g, w in zip(got, want):
            assert_same(g, w, where)
    else:
        assert got == want, where


def compare(island: Island, order: list[str]) -> None:
    names = [n for n in order if n != "reachable_prisons" or island.treasure is not None]
    compiled = fresh(island)
    got = {name: outcome(compiled, name) for name in names}
    reference = fresh(island)
    with numpy_only():
        want = {name: outcome(reference, name) for name in names}
    for name in names:
        assert got[name][0] == want[name][0], (name, got[name], want[name])
        if want[name][0] == "error":
            assert got[name] == want[name], name
        else:
            assert_same(got[name][1], want[name][1], name)
    # The public copy shares them: the same objects.
    for name in TERRAIN_MASKS:
        if got.get(name, ("error",))[0] == "value":
            assert getattr(compiled.public(), name) is got[name][1]


@needs_module
@settings(max_examples=500, deadline=None)
@given(islands(), st.randoms(use_true_random=False))
def test_the_masks_match_numpy(island, random):
    order = list(NAMES)
    random.shuffle(order)  # whichever is asked first computes its group
    compare(island, order)


@needs_module
@settings(max_examples=60, deadline=None)
@given(st.integers(5, 90), st.integers(5, 90), st.integers(0, 2**32 - 1))
def test_generated_islands_match_numpy(w, h, seed):
    island = generate_island(w, h, rng=np.random.default_rng(seed))
    compare(island, list(NAMES))


@needs_module
@settings(max_examples=300, deadline=None)
@given(region_grids(), st.integers(0, 2**32 - 1))
def test_the_kernels_take_ordinary_inputs(regions, seed):
    """Called directly on C-ordered int32 regions, the kernels must not decline (else
    the comparisons above would compare numpy with itself): only the case where
    numpy's table of R < 0 entries raises is left to numpy."""
    regions = np.ascontiguousarray(regions, dtype=np.int32)  # the layout the kernel takes; others go to numpy
    rng = np.random.default_rng(seed)
    mountain = (rng.random(regions.shape) < 0.2) & (regions != 0)
    outs = [np.empty(regions.shape, dtype=bool) for _ in range(3)]
    got = _grid.region_tables(regions, mountain, *outs)
    count = int(regions.max()) + 1 if regions.size else 1
    if count < 0 and not mountain.any():
        assert got is False
    else:
        assert got is not False and got[0] == count
    prison = rng.random(regions.shape) < 0.1
    assert _grid.positions(prison) == tuple(zip(*(a.tolist() for a in prison.nonzero())))
    pieces = grid.components(regions > 0)
    assert _grid.piece_reach(pieces, prison, outs[0]) in (1, 2)


@needs_module
def test_negative_regions_keep_their_error():
    """Region numbers all below -1 and no mountain on land: R < 0, and numpy's table of R
    entries for the mountain regions raises ValueError. Both ways raise it; the kernel
    declines the island."""
    regions = np.array([[-2, -3], [-3, -3]], dtype=np.int32)
    mountain = np.zeros((2, 2), dtype=bool)
    island = Island(regions, mountain, np.zeros((2, 2), dtype=bool), 2, 5)
    assert _grid.region_tables(island.regions, island.mountain, *(np.empty((2, 2), dtype=bool)
                                                                  for _ in range(3))) is False
    for way in (fresh(island), fresh(island)):
        with pytest.raises(ValueError, match="negative dimensions"):
            way.mountain_regions  # noqa: B018  (the read raises)
        assert way.region_count == -1 and way.land_regions == (-3, -2)
        assert way.adjacent_pairs == ((-1, 2147483646),)  # numpy's int64 codes of negative pairs, as they were
    compare(island, list(NAMES))
    # A mountain on that land: no table, no error.
    island = Island(regions, np.array([[True, False], [False, False]]), np.zeros((2, 2), dtype=bool), 2, 5)
    assert island.mountain_regions == (-2,)
    compare(island, list(NAMES))


def test_the_comparison_can_fail():
    a = np.zeros((2, 2), dtype=bool)
    b = a.copy()
    b.setflags(write=False)
    with pytest.raises(AssertionError):
        assert_same(a, b, "flags")
    with pytest.raises(AssertionError):
        assert_same(((1, 2),), ((1, np.int64(2)),), "types")
    with pytest.raises(AssertionError):
        assert_same(np.asfortranarray(np.zeros((2, 3), dtype=bool)), np.zeros((2, 3), dtype=bool), "order")
