"""The compiled and numpy grid functions against the plain implementations they replaced.

The reference versions below are the project's earlier code, kept here only
as an oracle: labels, distances and reach must match them bit for bit (values
and dtypes) on random islands, including odd ones (one row, no land, the
treasure off walkable land, prisons on mountains).
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_cli.rules import grid
from treasure_cli.rules.island import Island
from treasure_cli.rules.pirate import pirate_path

UNREACHABLE = -1


def ref_bfs(passable: np.ndarray, sources, until=None, extra: int = 0) -> np.ndarray:
    """A textbook queue, layer by layer, with the same `until`/`extra` stop."""
    h, w = passable.shape
    dist = np.full((h, w), UNREACHABLE, dtype=np.int32)
    layer = sorted({(int(r), int(c)) for r, c in (zip(*np.nonzero(sources)) if isinstance(sources, np.ndarray)
                                                    else sources)})
    for p in layer:
        dist[p] = 0
    last = extra if until is not None and dist[until] != UNREACHABLE else None
    step = 0
    while layer and (last is None or step < last):
        step += 1
        nxt = []
        for r, c in layer:
            for nr, nc in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
                if 0 <= nr < h and 0 <= nc < w and passable[nr, nc] and dist[nr, nc] == UNREACHABLE:
                    dist[nr, nc] = step
                    nxt.append((nr, nc))
        layer = nxt
        if until is not None and last is None and dist[until] != UNREACHABLE:
            last = step + extra
    return dist


def ref_components(passable: np.ndarray) -> np.ndarray:
    """One BFS per piece, started at the first unlabelled tile in row-major order."""
    labels = np.zeros(passable.shape, dtype=np.int32)
    todo = passable.copy()
    label = 0
    while todo.any():
        label += 1
        start = np.unravel_index(int(np.argmax(todo)), todo.shape)
        piece = ref_bfs(passable, [(int(start[0]), int(start[1]))]) >= 0
        labels[piece] = label
        todo &= ~piece
    return labels


def ref_manhattan(mask: np.ndarray) -> np.ndarray:
    """Brute force: the minimum over every True tile."""
    h, w = mask.shape
    rows, cols = np.nonzero(mask)
    if not rows.size:
        return np.full((h, w), h + w + 1, dtype=np.int32)
    rr, cc = np.indices((h, w))
    d = np.abs(rr[..., None] - rows) + np.abs(cc[..., None] - cols)
    return d.min(axis=2).astype(np.int32)


@contextmanager
def grid_path(compiled: bool):
    """grid as the package runs it (compiled if built), or its numpy reference only, for a while."""
    if compiled:
        yield
        return
    kept, grid._c = grid._c, None
    try:
        yield
    finally:
        grid._c = kept


BOTH_PATHS = (True, False)  # as the package runs (compiled if built), numpy


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


@st.composite
def random_islands(draw) -> Island:
    h, w = draw(st.integers(1, 24)), draw(st.integers(1, 24))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    land_share, mountain_share = draw(st.sampled_from([0.0, 0.3, 0.6, 0.9, 1.0])), draw(st.sampled_from([0, 0.1, 0.35]))
    regions = np.where(rng.random((h, w)) < land_share, rng.integers(1, 6, size=(h, w)), 0)
    mountain = (regions > 0) & (rng.random((h, w)) < mountain_share)
    prison = (regions > 0) & (rng.random((h, w)) < 0.1)  # may sit on a mountain: odd, still an Island
    treasure = (int(rng.integers(h)), int(rng.integers(w)))  # anywhere, walkable or not
    return Island(regions, mountain, prison, 2, 5, treasure)


@settings(max_examples=200, deadline=None)
@given(random_islands(), st.integers(0, 2**32 - 1))
def test_distances_match_the_reference(island, seed):
    rng = np.random.default_rng(seed)
    walk = island.walkable
    h, w = island.shape
    sources = [(int(rng.integers(h)), int(rng.integers(w))) for _ in range(int(rng.integers(1, 4)))]
    until, extra = (int(rng.integers(h)), int(rng.integers(w))), int(rng.integers(0, 5))
    for compiled in BOTH_PATHS:
        with grid_path(compiled):
            assert same(grid.bfs_distance(walk, sources), ref_bfs(walk, sources))
            assert same(grid.bfs_distance(walk, island.prison), ref_bfs(walk, island.prison))
            assert same(grid.bfs_distance(walk, sources, until=until, extra=extra),
                        ref_bfs(walk, sources, until, extra))
            assert same(grid.manhattan_distance_to(island.sea), ref_manhattan(island.sea))
            assert same(grid.manhattan_distance_to(island.land), ref_manhattan(island.land))


@settings(max_examples=200, deadline=None)
@given(random_islands())
def test_pieces_and_reach_match_the_reference(island):
    walk = island.walkable
    for compiled in BOTH_PATHS:
        with grid_path(compiled):
            assert same(grid.components(walk), ref_components(walk))
            assert same(grid.components(island.land), ref_components(island.land))
    assert same(island.walk_pieces, ref_components(walk))
    labels = [island.walk_pieces[p] for p in island.prisons]
    expected_reach = np.isin(island.walk_pieces, labels) if island.prisons else walk
    assert same(island.prison_reach, expected_reach)
    d = ref_bfs(walk, [island.treasure])
    assert island.reachable_prisons == tuple(p for p in island.prisons if d[p] >= 0)
    assert same(island.treasure_distance, d)
    for p in island.reachable_prisons if walk[island.treasure] else ():  # as every valid map has it
        path = pirate_path(walk, island.treasure_distance, p)
        assert path[0] == p and path[-1] == island.treasure and len(path) == d[p] + 1


def test_reference_sees_a_difference():
    # The comparison can fail: two pieces in the other order give other labels.
    walk = np.array([[True, False, True]])
    assert np.array_equal(ref_components(walk), [[1, 0, 2]])
    for compiled in BOTH_PATHS:
        with grid_path(compiled):
            assert not same(grid.components(walk), np.array([[2, 0, 1]], dtype=np.int32))


def test_the_numpy_reference_is_reachable():
    # Without the compiled module the numpy reference answers (or it would go untested).
    with grid_path(False):
        spiral = np.ones((10, 10), dtype=bool)
        spiral[1:9:2, 1:9] = False  # rows of walls: one long snake
        assert grid._c is None
        assert same(grid.components(spiral), ref_components(spiral))
        assert same(grid.manhattan_distance_to(~spiral), ref_manhattan(~spiral))


def ref_adjacent_pairs(reg: np.ndarray) -> tuple[tuple[int, int], ...]:
    pairs = []
    for x, y in ((reg[:, :-1], reg[:, 1:]), (reg[:-1, :], reg[1:, :])):
        touch = (x != y) & (x != 0) & (y != 0)
        a, b = x[touch], y[touch]
        pairs.append(np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1))
    allp = np.unique(np.concatenate(pairs), axis=0)
    return tuple((int(a), int(b)) for a, b in allp)


@settings(max_examples=150, deadline=None)
@given(random_islands(), st.sampled_from([5, 300, 2**31 - 1]))
def test_region_sets_match_the_reference(island, top):
    # Rescale the regions so huge region numbers (foreign maps) are covered too.
    regions = np.where(island.regions > 0, (island.regions.astype(np.int64) * top) // 5, 0)
    island = Island(regions, island.mountain, island.prison, 2, 5, island.treasure)
    assert island.adjacent_pairs == ref_adjacent_pairs(island.regions)
    assert island.land_regions == tuple(int(i) for i in np.unique(island.regions) if i != 0)
    assert island.mountain_regions == tuple(int(i) for i in np.unique(island.regions[island.mountain & island.land]))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 20), st.integers(1, 20), st.data())
def test_nearer_than_prison_mask_is_the_distance_comparison(h, w, data):
    from treasure_cli.rules.hints import NearerThanPrison

    pos = st.tuples(st.integers(0, h - 1), st.integers(0, w - 1))
    (ar, ac), (pr, pc) = data.draw(pos), data.draw(pos)
    island = Island(np.ones((h, w), dtype=int), np.zeros((h, w), bool), np.zeros((h, w), bool), 2, 5)
    rr, cc = np.indices((h, w))
    expected = np.abs(rr - ar) + np.abs(cc - ac) < np.abs(rr - pr) + np.abs(cc - pc)
    hint = NearerThanPrison((ar, ac), (pr, pc))
    assert same(hint.mask(island), expected)
    assert all(hint.holds_for(island, (r, c)) == expected[r, c] for r in range(h) for c in range(w))


@settings(max_examples=200, deadline=None)
@given(random_islands())
def test_treasure_distance_within_a_prison_gives_the_same_pirate_path(island):
    """The game's truncated treasure BFS agrees with the full field up to the prison's
    distance (UNREACHABLE beyond), so the pirate walks the very same path."""
    walk = island.walkable
    full = ref_bfs(walk, [island.treasure])
    for p in island.reachable_prisons if walk[island.treasure] else ():
        fresh = Island(island.regions, island.mountain, island.prison, 2, 5, island.treasure)
        near = fresh.treasure_distance_within(p)
        assert "treasure_distance" not in fresh.__dict__  # the truncated field is not cached as the full one
        inside = (full >= 0) & (full <= full[p])
        assert same(near[inside], full[inside]) and (near[~inside] == grid.UNREACHABLE).all()
        assert pirate_path(walk, near, p) == pirate_path(walk, full, p)
        fresh.treasure_distance  # noqa: B018  once the full field is known, it is the one used
        assert fresh.treasure_distance_within(p) is fresh.treasure_distance


# -- the grid functions against their earlier numpy versions ------------------
# Rewritten for fewer numpy calls on small maps; the versions they replaced are
# kept here as oracles, compared bit for bit on masks of every kind.


def old_components(passable: np.ndarray) -> np.ndarray:
    """Runs along rows (numbered by a cumulative sum over every tile) joined by a union-find."""
    h, w = passable.shape
    flat = np.zeros((h, w + 1), dtype=bool)
    flat[:, :w] = passable
    flat = flat.ravel()
    starts = flat.copy()
    starts[1:] &= ~flat[:-1]
    run = (np.cumsum(starts) - 1).reshape(h, w + 1)[:, :w]
    n = int(np.count_nonzero(starts))
    out = np.zeros((h, w), dtype=np.int32)
    if not n:
        return out
    joined = passable[:-1] & passable[1:]
    a, b = run[:-1][joined], run[1:][joined]
    repeat = np.zeros(a.size, dtype=bool)
    repeat[1:] = (a[1:] == a[:-1]) & (b[1:] == b[:-1])
    a, b = a[~repeat], b[~repeat]
    parent = np.arange(n)
    while a.size:
        ra, rb = parent[a], parent[b]
        apart = ra != rb
        if not apart.any():
            break
        a, b, ra, rb = a[apart], b[apart], ra[apart], rb[apart]
        np.minimum.at(parent, np.maximum(ra, rb), np.minimum(ra, rb))
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
    label = np.cumsum(parent == np.arange(n)).astype(np.int32)
    out[passable] = label[parent[run[passable]]]
    return out


@st.composite
def masks(draw) -> np.ndarray:
    """Bool grids of odd shapes (empty, one row or column) and odd contents: random
    specks (near the density where pieces join up, they branch the most), blobs,
    combs with teeth up or down, snakes (long thin pieces), all or nothing."""
    h, w = draw(st.integers(0, 64)), draw(st.integers(0, 64))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["specks", "specks", "blobs", "comb", "snake", "full", "empty"]))
    if kind == "specks":
        mask = rng.random((h, w)) < draw(st.sampled_from([0.05, 0.3, 0.5, 0.55, 0.6, 0.65, 0.8, 0.95]))
    elif kind == "blobs":  # coarse random cells blown up: island-like pieces with holes
        k = int(rng.integers(2, 6))
        coarse = rng.random((h // k + 1, w // k + 1)) < 0.5
        mask = np.kron(coarse, np.ones((k, k), dtype=bool))[:h, :w] & (rng.random((h, w)) < 0.9)
    elif kind == "comb":  # a bar along one side, teeth off it every other column
        mask = np.zeros((h, w), dtype=bool)
        mask[:, ::2] = True
        mask[slice(-1, None) if draw(st.booleans()) else slice(0, 1)] = True
    elif kind == "snake":
        mask = np.zeros((h, w), dtype=bool)
        mask[::2] = True
        mask[1::4, -1:] = True
        mask[3::4, :1] = True
    else:
        mask = np.full((h, w), kind == "full")
    if draw(st.booleans()):  # another memory layout, as callers may pass
        mask = np.asfortranarray(mask)
    return mask


@settings(max_examples=400, deadline=None)
@given(masks())
def test_components_match_the_earlier_version(mask):
    assert same(grid._components_numpy(mask), old_components(mask))
    assert same(grid._components_numpy(mask.T), old_components(np.ascontiguousarray(mask.T)))



def old_manhattan(mask: np.ndarray) -> np.ndarray:
    """The separable transform with a temporary (and flipped copies) at every step."""
    h, w = mask.shape
    if not mask.any():
        return np.full((h, w), h + w + 1, dtype=np.int32)
    d = np.where(mask, 0, h + w + 1).astype(np.int32)
    for axis, n in ((1, w), (0, h)):
        i = np.arange(n, dtype=np.int32).reshape((1, n) if axis else (n, 1))
        left = np.minimum.accumulate(d - i, axis=axis) + i
        right = np.flip(np.minimum.accumulate(np.flip(d + i, axis), axis=axis), axis) - i
        d = np.minimum(left, right)
    return d


@settings(max_examples=300, deadline=None)
@given(masks())
def test_manhattan_distance_matches_the_earlier_version(mask):
    for m in (mask, ~mask):  # few sources and many
        with grid_path(False):
            assert same(grid.manhattan_distance_to(m), old_manhattan(m))
