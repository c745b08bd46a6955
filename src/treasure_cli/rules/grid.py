"""Grid geometry shared by the island, the pirate, the hints and the agents.

Everything works on numpy arrays of shape (H, W). Breadth-first search runs
over flat indices of a grid padded with one blocked tile on every side, so a
neighbour is always `index + offset` with no edge checks, and each BFS layer
is a handful of vectorised operations (cost grows with the tiles reached, not
with the number of layers times the map size).

`bfs_distance`, `components`, `manhattan_distance_to`, `neighbours_of`,
`bounding_box`, `pack_bits` and `dag_descendants` run in the compiled module `treasure_cli.rules._grid`
(`_grid.c`) when it is built, with the same results bit for bit
(tests/rules/test_grid_compiled.py); the numpy versions below (`_..._numpy`)
are the readable reference and the fallback: without the module, with
TREASURE_CLI_PURE_PYTHON=1 set (see `treasure_cli.compiled`), or for an input the module
declines (an unusual dtype, a position off the grid).
"""

from __future__ import annotations

import enum

import numpy as np

from treasure_cli.compiled import load

_c = load("treasure_cli.rules._grid")
COMPILED = _c is not None

Pos = tuple[int, int]


def format_pos(pos: Pos) -> str:
    """A position as every text of the program writes it: `(row, col)`."""
    return f"({pos[0]}, {pos[1]})"


class Direction(enum.Enum):
    """Compass directions; the declaration order is the pirate's tie-break order."""

    N = (-1, 0)
    E = (0, 1)
    S = (1, 0)
    W = (0, -1)

    @property
    def dr(self) -> int:
        return self.value[0]

    @property
    def dc(self) -> int:
        return self.value[1]


UNREACHABLE = -1


def bfs_distance(passable: np.ndarray, sources: list[Pos] | np.ndarray,
                 until: Pos | None = None, extra: int = 0) -> np.ndarray:
    """Walking distance (4-connected, over `passable`) from the nearest source.

    `sources` is a list of positions or a bool mask. Unreachable tiles get
    UNREACHABLE. Sources need not be passable themselves. With `until`, the
    search stops `extra` layers after reaching that tile; farther tiles are
    left UNREACHABLE.
    """
    if _c is not None:
        out = np.empty(passable.shape, dtype=np.int32)
        if isinstance(sources, np.ndarray):
            done = _c.bfs(passable, None, sources, until, extra, out)
        else:
            done = _c.bfs(passable, sources, None, until, extra, out)
        if done:
            return out
    return _bfs_distance_numpy(passable, sources, until, extra)


def _bfs_distance_numpy(passable: np.ndarray, sources: list[Pos] | np.ndarray,
                        until: Pos | None = None, extra: int = 0) -> np.ndarray:
    """bfs_distance in numpy: one layer at a time, a few whole-layer operations each."""
    # Measured against scipy.sparse.csgraph (C BFS / Dijkstra over a graph of
    # the tiles): building the graph alone costs more than this whole search
    # on a 1024x1024 island (39 ms vs 29 ms), and it ties at 64x64.
    h, w = passable.shape
    wp = w + 2
    free = np.zeros((h + 2, wp), dtype=bool)  # passable and not reached yet
    free[1:-1, 1:-1] = passable
    free = free.ravel()
    dist = np.full(free.size, UNREACHABLE, dtype=np.int32)
    if isinstance(sources, np.ndarray):
        rows, cols = np.nonzero(sources)
    else:
        rows = np.array([p[0] for p in sources], dtype=np.intp)
        cols = np.array([p[1] for p in sources], dtype=np.intp)
    frontier = np.unique((rows + 1) * wp + (cols + 1)).astype(np.intp)
    dist[frontier] = 0
    free[frontier] = False
    offsets = np.array([-wp, 1, wp, -1], dtype=np.intp)
    owner = np.empty(dist.size, dtype=np.intp)  # dedupes a layer without sorting it
    count = np.arange(16 * (h + w + 2), dtype=np.intp)  # 0, 1, 2...: grown when a layer is larger
    stop = None if until is None else (until[0] + 1) * wp + (until[1] + 1)
    last = extra if stop is not None and dist[stop] != UNREACHABLE else None
    step = 0
    while frontier.size and (last is None or step < last):
        step += 1
        nb = (frontier[:, None] + offsets).ravel()
        nb = nb[free[nb]]
        if not nb.size:
            break
        if nb.size > count.size:
            count = np.arange(2 * nb.size, dtype=np.intp)
        order = count[: nb.size]
        owner[nb] = order
        frontier = nb[owner[nb] == order]
        free[frontier] = False
        dist[frontier] = step
        if stop is not None and last is None and dist[stop] != UNREACHABLE:
            last = step + extra
    return dist.reshape(h + 2, wp)[1:-1, 1:-1].copy()  # type: ignore[no-any-return]


def dag_descendants(passable: np.ndarray, distance: np.ndarray, start: Pos) -> np.ndarray:
    """The tiles t with dist(start, t) = distance[t] - distance[start], `distance` being the
    walking-distance field (`bfs_distance` over `passable`) from some source: `start`'s
    descendants in that field's shortest-path DAG, `start` included (False everywhere
    if `start` is UNREACHABLE and not the source).

    Compiled, a search over those tiles only (steps to a neighbour one farther); the
    numpy version compares a field from `start` with `distance`.
    """
    if _c is not None and distance[start] >= 0:
        out = np.empty(distance.shape, dtype=bool)
        if _c.dag_descendants(distance, int(start[0]), int(start[1]), out):
            return out
    return _dag_descendants_numpy(passable, distance, start)


def _dag_descendants_numpy(passable: np.ndarray, distance: np.ndarray, start: Pos) -> np.ndarray:
    if distance[start] < 0:
        return np.zeros(distance.shape, dtype=bool)
    here = bfs_distance(passable, [start])
    return (here >= 0) & (here == distance - distance[start])  # type: ignore[no-any-return]


class DagWalk:
    """`dag_descendants` of tiles met in walking order, as the pirate's walk meets them.

    One search per tile costs the size of the set found, and on a corridor that
    set is most of the island at every step (issue 23: 4·(W+H) turns times the
    tiles). The walk keeps the descendants of its last tile (the root) and, for
    each, how many of its DAG parents are among them; moving the root forward
    drops the tiles left behind and those that lose their last parent, so a
    walk from the source to the end drops each tile once: linear in the tiles
    over the whole walk. A tile behind the root, or off its descendants, starts
    the walk over from the source (correct in any order, fast in walking order).

    Compiled only: without `_grid` each call is one `dag_descendants`.
    """

    def __init__(self, passable: np.ndarray, distance: np.ndarray, source: Pos):
        """`distance`: the `bfs_distance` field (int32) over `passable` from `source` alone."""
        self.passable = passable
        self.distance = distance
        self.source = (int(source[0]), int(source[1]))
        self.root: Pos | None = None
        self._alive: np.ndarray | None = None
        self._parents: np.ndarray | None = None

    def descendants(self, pos: Pos) -> np.ndarray:
        """`dag_descendants(passable, distance, pos)` (a new array); moves the root to `pos`."""
        pos = (int(pos[0]), int(pos[1]))
        distance = self.distance
        if _c is None or distance[pos] < 0:
            return dag_descendants(self.passable, distance, pos)
        root, alive = self.root, self._alive
        if root is None or alive is None or not alive[pos] or distance[pos] < distance[root]:
            root, alive = self._start(), self._alive
        if root is None or alive is None or not _c.dag_walk_advance(distance, alive, self._parents, root, pos):
            self.root = None
            return dag_descendants(self.passable, distance, pos)
        self.root = pos
        return alive.copy()  # type: ignore[no-any-return]

    def _start(self) -> Pos | None:
        """The walk at the source (None if the module declines the field)."""
        shape = self.distance.shape
        if self._alive is None:
            self._alive = np.empty(shape, dtype=bool)
            self._parents = np.empty(shape, dtype=np.uint8)
        if _c is None or self.distance[self.source] != 0 or not _c.dag_walk_start(self.distance, self._alive,
                                                                                   self._parents):
            return None
        self.root = self.source
        return self.source


# One Python reference (numpy) and one accelerator (_grid.c) per function, and no third
# version: scipy.ndimage's labels and taxicab distances were used from 2048x2048 up when the
# compiled module was absent, but they saved nothing measurable on a whole `treasure run` of a
# 2048x2048 or 4096x4096 map (CPU time the same within 1 %, docs/performance.md), and the
# compiled module takes every grid below ~46,000x46,000 anyway.


def components(passable: np.ndarray) -> np.ndarray:
    """Label the 4-connected pieces of `passable` 1, 2, ... (0 = not passable).

    Labels follow the first tile of each piece in row-major order.
    """
    if _c is not None:
        out = np.empty(passable.shape, dtype=np.int32)
        if _c.components(passable, out):
            return out
    return _components_numpy(passable)


def _components_numpy(passable: np.ndarray) -> np.ndarray:
    """Runs of tiles along rows, joined through vertical neighbours by a vectorised union-find.

    Runs are numbered 1, 2, ... in row-major order and every piece is named
    after its smallest run (hooking always points to a smaller number), which
    holds the piece's first tile: numbering those roots in order gives the
    labels. At 64x64 each numpy call's fixed cost outweighs its work, so the
    steps are chosen for few calls: no per-tile run numbers (a cumulative sum
    over every tile), the runs of a joint found by binary search instead.
    """
    passable = np.ascontiguousarray(passable, dtype=bool)
    h, w = passable.shape
    if not passable.any():
        return np.zeros((h, w), dtype=np.int32)
    flat = passable.ravel()
    first = _row_starts(flat, w).nonzero()[0]  # run k starts at flat index first[k - 1]
    n = first.size
    # A run and the run below it: the first column where they touch.
    at = _row_starts((passable[:-1] & passable[1:]).ravel(), w).nonzero()[0]
    a = first.searchsorted(at, side="right")
    b = first.searchsorted(at + w, side="right")  # the run below: always a larger number
    parent = np.arange(n + 1)  # 0 is no run
    # Each run under its smallest neighbour above, every path climbing a row a
    # step: so this many jumps point every run at its root (as the loop below
    # would find, with a check after every jump).
    np.minimum.at(parent, b, a)
    for _ in range((h - 1).bit_length()):
        parent = parent[parent]
    while True:
        a, b = parent[a], parent[b]  # roots (parent is fully compressed here): a joint joins them
        apart = a != b
        if not apart.any():
            break
        a, b = a[apart], b[apart]
        np.minimum.at(parent, np.maximum(a, b), np.minimum(a, b))  # hook to the smallest root seen
        while True:  # point every run straight at its root
            grand = parent[parent]
            if (grand == parent).all():
                break
            parent = grand[grand]
    roots = parent == np.arange(n + 1)
    if np.count_nonzero(roots) == 2:  # run 0 and one piece: the common map
        return passable.astype(np.int32)
    label = np.cumsum(roots, dtype=np.int32) - 1  # roots numbered 1, 2, ... in order
    ends = np.empty_like(flat)  # a run's last tile
    np.greater(flat[:-1], flat[1:], out=ends[:-1])
    ends[w - 1::w] = flat[w - 1::w]
    out = np.zeros((h, w), dtype=np.int32)
    out[passable] = np.repeat(label[parent[1:]], ends.nonzero()[0] - first + 1)  # a run's label, length times
    return out


def _row_starts(flat: np.ndarray, w: int) -> np.ndarray:
    """The True tiles of a row-major grid `w` wide, given flat, whose left neighbour is False
    or off the grid (one pass over the flat array, cheaper than over its 2-D views)."""
    starts = np.empty_like(flat)
    np.greater(flat[1:], flat[:-1], out=starts[1:])  # for bools, a > b is a and not b
    starts[::w] = flat[::w]
    return starts


def neighbours_of(mask: np.ndarray) -> np.ndarray:
    """Tiles with at least one 4-neighbour in `mask` (the mask itself not included unless so)."""
    if _c is not None:
        out = np.empty(mask.shape, dtype=bool)
        if _c.neighbours(mask, out):
            return out
    return _neighbours_of_numpy(mask)


def _neighbours_of_numpy(mask: np.ndarray) -> np.ndarray:
    out = np.zeros_like(mask)
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def manhattan_distance_to(mask: np.ndarray) -> np.ndarray:
    """Manhattan distance from every tile to the nearest True tile of `mask`.

    Tiles get H + W + 1 when `mask` is empty.
    """
    if _c is not None:
        out = np.empty(mask.shape, dtype=np.int32)
        if _c.manhattan(mask, out):
            return out
    return _manhattan_distance_to_numpy(mask)


def _manhattan_distance_to_numpy(mask: np.ndarray) -> np.ndarray:
    h, w = mask.shape
    if not mask.any():
        return np.full((h, w), h + w + 1, dtype=np.int32)
    # Separable: along rows, then along columns. Along an axis,
    # min over j of (g[j] + |i - j|) is i + running-min(g[j] - j) from the
    # left and running-min(g[j] + j) - i from the right. The running minima
    # are most of the cost; the rest is done in place (at 64x64 each
    # temporary and flipped copy cost about as much as its arithmetic).
    d = np.multiply(np.logical_not(mask), h + w + 1, dtype=np.int32)  # 0 on the mask, farther than any tile off it
    for axis, n in ((1, w), (0, h)):
        i = np.arange(n, dtype=np.int32).reshape((1, n) if axis else (n, 1))
        back = np.s_[:, ::-1] if axis else np.s_[::-1]
        left = np.subtract(d, i)
        np.minimum.accumulate(left, axis=axis, out=left)
        left += i
        right = np.add(d, i, out=d)
        np.minimum.accumulate(right[back], axis=axis, out=right[back])
        right -= i
        d = np.minimum(left, right, out=left)
    return d  # type: ignore[no-any-return]


def manhattan_from(shape: tuple[int, int], pos: Pos) -> np.ndarray:
    """Manhattan distance of every tile from `pos`."""
    rows = np.abs(np.arange(shape[0]) - pos[0])
    cols = np.abs(np.arange(shape[1]) - pos[1])
    return rows[:, None] + cols[None, :]


def window_sum(values: np.ndarray, radius: int) -> np.ndarray:
    """Sum of `values` over the (2·radius+1)² square centred on every tile (clipped).

    One padded 2-D prefix sum, so the cost does not grow with the radius.
    """
    h, w = values.shape
    k = radius
    padded = np.zeros((h + 2 * k + 1, w + 2 * k + 1), dtype=np.float64 if values.dtype.kind == "f" else np.int64)
    padded[k + 1: k + 1 + h, k + 1: k + 1 + w] = values
    cs = padded.cumsum(0).cumsum(1)
    e = 2 * k + 1
    return cs[e:, e:] - cs[:h, e:] - cs[e:, :w] + cs[:h, :w]  # type: ignore[no-any-return]


def bounding_box(mask: np.ndarray) -> tuple[slice, slice] | None:
    """The smallest (row slice, column slice) holding every True (non-zero) tile of `mask`;
    None if it has none."""
    if _c is not None:
        box = _c.bounding_box(mask)
        if box is not False:
            return box  # type: ignore[no-any-return]
    return _bounding_box_numpy(mask)


def pack_bits(mask: np.ndarray) -> bytes:
    """`mask`'s tiles as one bit each, row by row, the first tile the top bit of the first
    byte, the last byte padded with zeros (a note's tiles, `events.TileSet`)."""
    if _c is not None:
        bits = _c.pack_bits(mask)  # one C call: numpy's packbits costs several us a note in set-up alone
        if bits is not False:
            return bits  # type: ignore[no-any-return]
    return _pack_bits_numpy(mask)


def _pack_bits_numpy(mask: np.ndarray) -> bytes:
    return np.packbits(mask, axis=None).tobytes()  # (axis=None: flat, row by row)


def _bounding_box_numpy(mask: np.ndarray) -> tuple[slice, slice] | None:
    rows = mask.any(axis=1).nonzero()[0]
    if not rows.size:
        return None
    top, bottom = int(rows[0]), int(rows[-1]) + 1
    cols = mask[top:bottom].any(axis=0).nonzero()[0]
    return np.s_[top:bottom, int(cols[0]):int(cols[-1]) + 1]
