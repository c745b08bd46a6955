"""The compiled grid kernels (`treasure_cli.rules._grid`) against grid.py's numpy versions.

Every comparison is bit for bit: values, dtype, shape, and the flags callers
may rely on (a new, writable array of its own). The kernels are called
directly and must accept the ordinary inputs (a declined input would fall
back to numpy and compare numpy with itself); odd inputs they decline must
give through `grid` exactly what the numpy version gives.
"""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import needs_built

from treasure_cli import compiled
from treasure_cli.rules import grid
from treasure_cli.rules.actions import _MOVE_TABLE, legal_moves, py_legal_moves

try:
    from treasure_cli.rules import _grid
    NOT_BUILT = ""
except ImportError as exc:
    _grid, NOT_BUILT = None, f"{type(exc).__name__}: {exc}"

PURE_PYTHON_ASKED = compiled.PURE_PYTHON
needs_module = needs_built(_grid, "treasure_cli.rules._grid", f"({NOT_BUILT})")


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def fresh(a: np.ndarray) -> bool:
    """A new writable array of its own (callers may write to it or seal it)."""
    return a.flags.writeable and a.flags.owndata


@st.composite
def grids(draw, max_side: int = 40) -> np.ndarray:
    """Bool grids of many shapes (empty, one row or column) and contents: random specks
    at several densities, blobs, 1-wide corridors (a snake, a comb, a spiral), a
    checkerboard (the most pieces), all open, all blocked."""
    h, w = draw(st.integers(0, max_side)), draw(st.integers(0, max_side))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["specks", "specks", "blobs", "snake", "comb", "spiral", "checker", "full", "empty"]))
    if kind == "specks":
        mask = rng.random((h, w)) < draw(st.sampled_from([0.05, 0.3, 0.5, 0.6, 0.7, 0.9]))
    elif kind == "blobs":
        k = int(rng.integers(2, 6))
        coarse = rng.random((h // k + 1, w // k + 1)) < 0.5
        mask = np.kron(coarse, np.ones((k, k), dtype=bool))[:h, :w] & (rng.random((h, w)) < 0.9)
    elif kind == "snake":  # one long corridor, a tile wide
        mask = np.zeros((h, w), dtype=bool)
        mask[::2] = True
        mask[1::4, -1:] = True
        mask[3::4, :1] = True
    elif kind == "comb":
        mask = np.zeros((h, w), dtype=bool)
        mask[:, ::2] = True
        mask[slice(-1, None) if draw(st.booleans()) else slice(0, 1)] = True
    elif kind == "spiral":
        mask = np.zeros((h, w), dtype=bool)
        top, left, bottom, right = 0, 0, h - 1, w - 1
        while top <= bottom and left <= right:
            mask[top, left:right + 1] = mask[top:bottom + 1, right] = True
            mask[bottom, left:right + 1] = True
            mask[top + 2:bottom + 1, left] = True
            top, left, bottom, right = top + 2, left + 2, bottom - 2, right - 2
            if top <= bottom and left <= right:
                mask[top - 1, left] = True
    elif kind == "checker":
        mask = (np.add.outer(np.arange(h), np.arange(w)) % 2).astype(bool)
    else:
        mask = np.full((h, w), kind == "full")
    return mask


def layouts(mask: np.ndarray, how: str) -> np.ndarray:
    """The same grid in another memory layout or dtype, as callers may pass."""
    if how == "fortran":
        return np.asfortranarray(mask)
    if how == "view":  # a strided view of a larger array
        big = np.zeros((mask.shape[0], 2 * mask.shape[1] + 1), dtype=bool)
        big[:, 1::2] = mask
        return big[:, 1::2]
    if how == "uint8":
        return mask.astype(np.uint8) * 3
    if how == "float":  # non-zero floats, NaN among them; -0.0 is zero
        return np.where(mask, np.where(np.arange(mask.size).reshape(mask.shape) % 3, 0.5, np.nan), -0.0)
    if how == "int64":
        return mask.astype(np.int64) * -7
    return mask


LAYOUTS = st.sampled_from(["bool", "bool", "bool", "fortran", "view", "uint8", "float", "int64"])


def positions(draw, h: int, w: int, n: int) -> list:
    return [(draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))) for _ in range(n)]


@needs_module
@settings(max_examples=400, deadline=None)
@given(grids(max_side=12), LAYOUTS, st.data())
def test_legal_moves_match_python(walk, how, data):
    """rules.actions.legal_moves (the compiled loop) against py_legal_moves, the reference."""
    laid = layouts(walk, how)
    h, w = walk.shape
    if h == 0 or w == 0:
        return  # (no tile to stand on)
    for pos in positions(data.draw, h, w, 6):  # also off walkable land: the rule's answer
        got = _grid.legal_moves(_MOVE_TABLE, laid, pos)
        want = py_legal_moves(laid, pos)
        assert got == want and all(a[0] is b[0] for a, b in zip(got, want))
        assert all(type(x) is int for _, dst in got for x in dst)
        assert legal_moves(laid, pos) == want


@needs_module
def test_legal_moves_declines_what_python_decides():
    walk = np.ones((4, 4), dtype=bool)
    assert _grid.legal_moves(_MOVE_TABLE, walk, [1, 1]) is False  # not a tuple
    assert _grid.legal_moves(_MOVE_TABLE, walk.astype(np.complex64), (1, 1)) is False
    assert _grid.legal_moves(_MOVE_TABLE, np.ones(4, dtype=bool), (1, 1)) is False
    assert legal_moves(walk, [1, 1]) == py_legal_moves(walk, (1, 1))


def compiled_bfs(passable, sources, until=None, extra=0) -> np.ndarray:
    out = np.empty(np.shape(passable), dtype=np.int32)
    if isinstance(sources, np.ndarray):
        assert _grid.bfs(passable, None, sources, until, extra, out) is True
    else:
        assert _grid.bfs(passable, sources, None, until, extra, out) is True
    return out


@needs_module
@settings(max_examples=600, deadline=None)
@given(grids(), LAYOUTS, st.data())
def test_bfs_matches_numpy(passable, how, data):
    h, w = passable.shape
    passable = layouts(passable, how)
    if h and w:
        # Sources: none, one, several (repeats, blocked tiles) or a mask; until anywhere
        # (reachable or not, blocked, a source itself), extra from negative to a few layers.
        n = data.draw(st.integers(0, 4))
        sources = positions(data.draw, h, w, n)
        if data.draw(st.booleans()):
            sources = sources + sources[:1]
        if data.draw(st.booleans()):
            sources = [(np.int64(r), np.intp(c)) for r, c in sources]
        until = data.draw(st.none() | st.tuples(st.integers(0, h - 1), st.integers(0, w - 1)))
        if until is not None and sources and data.draw(st.booleans()):
            until = sources[0]
        extra = data.draw(st.integers(-2, 6))
    else:
        sources, until, extra = [], None, 0
    want = grid._bfs_distance_numpy(passable, sources, until, extra)
    got = compiled_bfs(passable, sources, until, extra)
    assert same(got, want)
    result = grid.bfs_distance(passable, sources, until=until, extra=extra)
    assert same(result, want) and fresh(result) and fresh(want)
    # The same sources as a mask (of any layout or dtype).
    mask = np.zeros((h, w), dtype=bool)
    for r, c in sources:
        mask[r, c] = True
    mask = layouts(mask, data.draw(LAYOUTS))
    want = grid._bfs_distance_numpy(passable, mask, until, extra)
    assert same(compiled_bfs(passable, mask, until, extra), want)
    assert same(grid.bfs_distance(passable, mask, until=until, extra=extra), want)


@needs_module
def test_bfs_edge_cases():
    corridor = np.ones((1, 9), dtype=bool)
    blocked = np.zeros((5, 4), dtype=bool)
    for passable, sources, until, extra in [
        (corridor, [(0, 0)], None, 0),
        (corridor, [(0, 4)], (0, 8), 0),          # until at the far end
        (corridor, [(0, 4)], (0, 6), 1),          # stops a layer after it
        (corridor, [(0, 4)], (0, 4), 0),          # until is the source: nothing more
        (corridor, [(0, 4)], (0, 4), 3),
        (corridor.T, [(8, 0)], (0, 0), -1),       # negative extra: the layer of until and no more
        (corridor, [], (0, 3), 2),                # no sources at all
        (blocked, [(2, 2)], (0, 0), 2),           # all blocked: only the source, until unreachable
        (blocked, np.ones((5, 4), dtype=bool), None, 0),
        (np.ones((3, 3), dtype=bool), [(1, 1)], (2, 2), 10**30),  # extra beyond any int32
    ]:
        want = grid._bfs_distance_numpy(passable, sources, until, extra)
        assert same(grid.bfs_distance(passable, sources, until=until, extra=extra), want)
        assert same(compiled_bfs(passable, sources, until, extra), want)
    d = grid.bfs_distance(blocked, [(2, 2)], until=(0, 0))
    assert d[2, 2] == 0 and (np.delete(d.ravel(), 2 * 4 + 2) == grid.UNREACHABLE).all()


@needs_module
def test_bfs_declines_what_numpy_decides():
    """Positions off the grid, of other types, other shapes: the kernel says False and
    `bfs_distance` gives numpy's answer (or numpy's error)."""
    passable = np.ones((4, 5), dtype=bool)
    out = np.empty((4, 5), dtype=np.int32)
    for sources, until in [([(4, 0)], None), ([(0, -1)], None), ([[1, 2]], None), ([(1.0, 2)], None),
                           ([(1, 2)], (0, 5)), ([(1, 2)], (-1, 0)), ([(1, 2)], [0, 0]),
                           (np.ones((3, 5), dtype=bool), None), (np.ones((4, 5), dtype=complex), None)]:
        mask = sources if isinstance(sources, np.ndarray) else None
        assert _grid.bfs(passable, None if mask is not None else sources, mask, until, 0, out) is False
        try:
            want = grid._bfs_distance_numpy(passable, sources, until)
        except Exception as exc:  # noqa: BLE001 - the very same error is expected
            with pytest.raises(type(exc)):
                grid.bfs_distance(passable, sources, until=until)
        else:
            assert same(grid.bfs_distance(passable, sources, until=until), want)
    # An output that is not a fresh C-ordered int32 array of the grid's shape is declined too.
    for bad in (np.empty((4, 5), dtype=np.int64), np.empty((5, 4), dtype=np.int32),
                np.empty((4, 5), dtype=np.int32, order="F"), np.empty((4, 10), dtype=np.int32)[:, ::2]):
        assert _grid.bfs(passable, [(0, 0)], None, None, 0, bad) is False
    assert _grid.bfs(np.ones((2, 2, 2), dtype=bool), [(0, 0)], None, None, 0, out) is False


@needs_module
@settings(max_examples=600, deadline=None)
@given(grids(max_side=64), LAYOUTS)
def test_components_match_numpy(passable, how):
    passable = layouts(passable, how)
    want = grid._components_numpy(passable)
    out = np.empty(passable.shape, dtype=np.int32)
    assert _grid.components(passable, out) is True
    assert same(out, want)
    result = grid.components(passable)
    assert same(result, want) and fresh(result)


@needs_module
def test_components_number_pieces_by_their_first_tile():
    # Pieces are numbered by their first tile even when a later row joins tiles
    # that started pieces of their own (the bottom row here).
    passable = np.array([[1, 0, 1, 0, 1],
                         [1, 0, 1, 0, 1],
                         [1, 1, 1, 0, 1],
                         [0, 0, 0, 0, 1],
                         [1, 1, 1, 1, 1]], dtype=bool)
    assert grid.components(passable).tolist() == [[1, 0, 1, 0, 2],
                                                  [1, 0, 1, 0, 2],
                                                  [1, 1, 1, 0, 2],
                                                  [0, 0, 0, 0, 2],
                                                  [2, 2, 2, 2, 2]]
    passable[4, 0:4] = [1, 0, 1, 1]
    passable[2, 1] = False
    labels = grid.components(passable)
    assert labels.tolist() == [[1, 0, 2, 0, 3],
                               [1, 0, 2, 0, 3],
                               [1, 0, 2, 0, 3],
                               [0, 0, 0, 0, 3],
                               [4, 0, 3, 3, 3]]
    assert same(labels, grid._components_numpy(passable))


@needs_module
@settings(max_examples=400, deadline=None)
@given(grids(max_side=64), LAYOUTS)
def test_manhattan_distance_matches_numpy(mask, how):
    for m in (mask, ~mask):  # few sources and many
        m = layouts(m, how)
        want = grid._manhattan_distance_to_numpy(m)
        out = np.empty(m.shape, dtype=np.int32)
        assert _grid.manhattan(m, out) is True
        assert same(out, want)
        result = grid.manhattan_distance_to(m)
        assert same(result, want) and fresh(result)


@needs_module
@settings(max_examples=300, deadline=None)
@given(grids(max_side=64), LAYOUTS)
def test_neighbours_match_numpy(mask, how):
    m = layouts(mask, how)
    if m.dtype.kind == "f":  # numpy's `|=` refuses floats: so must neighbours_of
        with pytest.raises(TypeError):
            grid._neighbours_of_numpy(m)
        with pytest.raises(TypeError):
            grid.neighbours_of(m)
        return
    want = grid._neighbours_of_numpy(m)
    result = grid.neighbours_of(m)
    assert same(result, want) and result.flags.writeable
    if m.dtype == bool:  # other dtypes are left to numpy's `|=`
        out = np.empty(m.shape, dtype=bool)
        assert _grid.neighbours(m, out) is True
        assert same(out, want)
    else:
        assert _grid.neighbours(m, np.empty(m.shape, dtype=bool)) is False


@needs_module
@settings(max_examples=400, deadline=None)
@given(grids(max_side=64), LAYOUTS, st.data())
def test_bounding_box_matches_numpy(mask, how, data):
    h, w = mask.shape
    if h and w and data.draw(st.booleans()):  # a few specks only: a small box anywhere
        mask = np.zeros((h, w), dtype=bool)
        for p in positions(data.draw, h, w, data.draw(st.integers(1, 3))):
            mask[p] = True
    m = layouts(mask, how)
    want = grid._bounding_box_numpy(m)
    got = _grid.bounding_box(m)
    assert got is not False and got == want
    assert grid.bounding_box(m) == want
    if want is not None:
        assert all(type(v) is int for s in got for v in (s.start, s.stop)) and got[0].step is None


@needs_module
def test_bounding_box_of_floats_reads_signs_and_nans_as_numpy_does():
    m = np.zeros((6, 7))
    m[1, 2] = -0.0  # zero
    m[4, 5] = np.nan  # not zero
    m[2, 1] = -1e-300
    assert grid.bounding_box(m) == grid._bounding_box_numpy(m) == np.s_[2:5, 1:6]
    m32 = m.astype(np.float32)  # -1e-300 is -0.0 there
    assert _grid.bounding_box(m32) == grid._bounding_box_numpy(m32) == np.s_[4:5, 5:6]
    assert _grid.bounding_box(np.zeros((3, 3), dtype=complex)) is False
    assert grid.bounding_box(np.zeros((3, 3), dtype=complex)) is None


@needs_module
@settings(max_examples=300, deadline=None)
@given(grids(max_side=70), LAYOUTS.filter(lambda how: how != "float"))  # numpy packs no float
def test_pack_bits_matches_numpy(mask, how):
    m = layouts(mask, how)
    want = grid._pack_bits_numpy(m)
    got = _grid.pack_bits(m)
    if m.dtype.itemsize != 1:  # only bytes: a wider dtype is declined, and numpy packs it
        assert got is False
    else:
        assert type(got) is bytes and got == want
    assert grid.pack_bits(m) == want and len(want) == (mask.size + 7) // 8


@needs_module
def test_pack_bits_puts_the_first_tile_in_the_top_bit_and_pads_with_zeros():
    m = np.zeros((3, 3), dtype=bool)
    m[0, 0] = m[2, 2] = True  # tiles 0 and 8: the first byte's top bit, the second byte's
    assert _grid.pack_bits(m) == bytes([0b1000_0000, 0b1000_0000])
    assert _grid.pack_bits(np.ones(9, dtype=bool)) is False  # not 2-D: numpy decides
    assert grid.pack_bits(np.ones(9, dtype=bool)) == bytes([0xFF, 0x80])


def test_the_comparisons_can_fail():
    # Labels in another order, or a distance off by one, are told apart.
    walk = np.array([[True, False, True]])
    assert not same(grid.components(walk), np.array([[2, 0, 1]], dtype=np.int32))
    assert not same(grid.bfs_distance(walk, [(0, 0)]), np.array([[0, -1, 0]], dtype=np.int32))
    assert not same(grid.manhattan_distance_to(walk), np.zeros((1, 3), dtype=np.int64))


@pytest.mark.skipif(PURE_PYTHON_ASKED, reason="TREASURE_CLI_PURE_PYTHON asks for numpy")
def test_the_package_uses_the_compiled_module():
    """The module is optional to install, so a failed build is quiet: this says it."""
    assert _grid is not None, f"treasure_cli.rules._grid does not import ({NOT_BUILT}); reinstall with a C compiler"
    assert grid.COMPILED and grid._c is _grid
