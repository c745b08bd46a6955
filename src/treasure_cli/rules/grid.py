"""Grid geometry shared by the island, the pirate, the hints and the agents.

Everything works on numpy arrays of shape (H, W). Breadth-first search runs
over flat indices of a grid padded with one blocked tile on every side, so a
neighbour is always `index + offset` with no edge checks, and each BFS layer
is a handful of vectorised operations (cost grows with the tiles reached, not
with the number of layers times the map size).
"""

from __future__ import annotations

import enum

import numpy as np

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
    h, w = passable.shape
    wp = w + 2
    open_ = np.zeros((h + 2, wp), dtype=bool)
    open_[1:-1, 1:-1] = passable
    open_ = open_.ravel()
    dist = np.full((h + 2) * wp, UNREACHABLE, dtype=np.int32)
    if isinstance(sources, np.ndarray):
        rows, cols = np.nonzero(sources)
    else:
        rows = np.array([p[0] for p in sources], dtype=np.int64)
        cols = np.array([p[1] for p in sources], dtype=np.int64)
    frontier = np.unique((rows + 1) * wp + (cols + 1)).astype(np.int64)
    dist[frontier] = 0
    offsets = np.array([-wp, 1, wp, -1], dtype=np.int64)
    owner = np.empty(dist.size, dtype=np.int64)  # dedupes a layer without sorting it
    stop = None if until is None else (until[0] + 1) * wp + (until[1] + 1)
    last = extra if stop is not None and dist[stop] != UNREACHABLE else None
    step = 0
    while frontier.size and (last is None or step < last):
        step += 1
        nb = (frontier[:, None] + offsets).ravel()
        nb = nb[open_[nb] & (dist[nb] == UNREACHABLE)]
        if not nb.size:
            break
        order = np.arange(nb.size)
        owner[nb] = order
        frontier = nb[owner[nb] == order]
        dist[frontier] = step
        if stop is not None and last is None and dist[stop] != UNREACHABLE:
            last = step + extra
    return dist.reshape(h + 2, wp)[1:-1, 1:-1].copy()


def components(passable: np.ndarray) -> np.ndarray:
    """Label the 4-connected pieces of `passable` 1, 2, ... (0 = not passable)."""
    labels = np.zeros(passable.shape, dtype=np.int32)
    todo = passable.copy()
    label = 0
    while todo.any():
        label += 1
        start = np.unravel_index(int(np.argmax(todo)), todo.shape)
        piece = bfs_distance(passable, [(int(start[0]), int(start[1]))]) >= 0
        labels[piece] = label
        todo &= ~piece
    return labels


def neighbours_of(mask: np.ndarray) -> np.ndarray:
    """Tiles with at least one 4-neighbour in `mask` (the mask itself not included unless so)."""
    out = np.zeros_like(mask)
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def manhattan_distance_to(mask: np.ndarray) -> np.ndarray:
    """Manhattan distance from every tile to the nearest True tile of `mask`.

    A separable L1 distance transform: two sweeps along rows, two along
    columns, each vectorised across the other axis. Tiles get a huge value
    when `mask` is empty.
    """
    h, w = mask.shape
    big = h + w + 1
    d = np.where(mask, 0, big).astype(np.int32)
    for c in range(1, w):
        np.minimum(d[:, c], d[:, c - 1] + 1, out=d[:, c])
    for c in range(w - 2, -1, -1):
        np.minimum(d[:, c], d[:, c + 1] + 1, out=d[:, c])
    for r in range(1, h):
        np.minimum(d[r], d[r - 1] + 1, out=d[r])
    for r in range(h - 2, -1, -1):
        np.minimum(d[r], d[r + 1] + 1, out=d[r])
    return d


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
    return cs[e:, e:] - cs[:h, e:] - cs[e:, :w] + cs[:h, :w]
