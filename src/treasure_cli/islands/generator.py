"""Random valid islands (RULES §10), built with vectorised numpy.

The steps, each over flat indices of the (H, W) grid:

1. land: smooth value noise minus a centre-to-edge falloff, thresholded, the
   border forced to sea, then only the 4-connected piece holding the most
   inland tile kept. Noise dips give bays and lakes.
2. regions: a multi-source random flood from well-spread seeds. A tile is
   only ever claimed from a 4-neighbour of the same region, so every region
   is 4-connected by construction.
3. mountains: short random walks (clusters of 1-5 tiles). Any mountain next
   to a walkable pocket that got cut off from the main walkable area is
   removed again, so all walkable land stays one piece; then random
   mountains at the edge of a cluster are dropped to hit the requested count
   exactly (freeing a tile next to walkable land disconnects nothing).
4. treasure on a random plain walkable tile; prisons on plain tiles at some
   walking distance from it (one BFS), so every prison reaches it.

Every random draw comes from the one Generator passed in, in a fixed order,
and only + - * / are used on floats (no exp/sin whose SIMD variants may
differ between machines), so the same seed gives the same map everywhere.

The functions below are the readable reference, in numpy. When the compiled
module `treasure_cli.islands._gen` is built (and TREASURE_CLI_PURE_PYTHON is
not set), the random steps (the land's noise, the regions' seeds and flood,
the mountain clusters and trim, the treasure and the prisons) run there
instead: the same draws from the same Generator, in the same order, so the
same islands (tests/islands/test_generator_compiled.py compares both).
Islands at 32x32 cost about a tenth as much.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from treasure_cli.rules import grid
from treasure_cli.compiled import load
from treasure_cli.rules.island import Island

MIN_SIDE = 5
MAX_SIDE = 4096
_ATTEMPTS = 50
_LAND_FRACTION = 0.6  # share of the inner tiles that start as land
_MAX_CLUSTER = 5  # tiles per mountain cluster, at most


class _Retry(Exception):
    """This attempt drew an unusable layout; draw again from the same stream."""


def default_free_turn(width: int, height: int, reveal_turn: int) -> int:
    """f = r + max(2, round((W + H) / 8)); Python's round (halves to even)."""
    return reveal_turn + max(2, round((width + height) / 8))


def limits(width: int, height: int) -> dict[str, int]:
    """Largest regions / prisons / mountains a width x height map accepts."""
    inner = (width - 2) * (height - 2)
    return {
        "regions": max(1, inner // 9),
        "prisons": max(1, inner // 16),
        "mountains": inner // 8,
    }


def default_counts(width: int, height: int) -> dict[str, int | None]:
    """Counts used when an option is not given; mountains=None means 6 % of the land."""
    lim = limits(width, height)
    side = math.sqrt(width * height)
    return {
        "regions": min(lim["regions"], max(2, round(side / 3))),
        "prisons": min(lim["prisons"], 2 + round(side / 16), 12),
        "mountains": None,
    }


def generate_island(
    width: int,
    height: int,
    *,
    regions: int | None = None,
    prisons: int | None = None,
    mountains: int | None = None,
    reveal_turn: int | None = None,
    free_turn: int | None = None,
    style: str = "island",
    rng: np.random.Generator,
) -> Island:
    """A random valid island of `height` rows x `width` columns.

    `regions` land regions (numbered 1..regions), `prisons` prison tiles,
    exactly `mountains` mountain tiles; None picks a default scaled with the
    size. `style` is one of STYLES: "island" (the noise coast and mountain
    clusters above) or "maze" (`_maze_walls`: walls of mountains, no
    `mountains` option). Raises ValueError for impossible options.
    """
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}; expected one of {', '.join(STYLES)}")
    # The compiled steps draw from the bit generator itself, as Generator's own
    # methods do: not for a subclass, which may draw differently.
    steps = COMPILED_STEPS if COMPILED_STEPS is not None and type(rng) is np.random.Generator else PYTHON_STEPS
    if style == "maze":
        return _generate_maze(width, height, regions, prisons, mountains, reveal_turn, free_turn, rng, steps)
    return _generate(width, height, regions, prisons, mountains, reveal_turn, free_turn, rng, steps)


STYLES = ("island", "maze")


def _generate(width: int, height: int, regions: int | None, prisons: int | None, mountains: int | None,
              reveal_turn: int | None, free_turn: int | None,
              rng: np.random.Generator, steps: _Steps) -> Island:
    _check_options(width, height, regions, prisons, mountains, reveal_turn, free_turn)
    n_regions, n_prisons, r_turn, f_turn = _counts(width, height, regions, prisons, reveal_turn, free_turn, rng, steps)
    for _ in range(_ATTEMPTS):
        try:
            return _attempt(width, height, n_regions, n_prisons, mountains, r_turn, f_turn, rng, steps)
        except _Retry:
            continue
    raise ValueError(f"could not generate a {width}x{height} map with these options; try fewer regions, prisons or mountains")


def _counts(width: int, height: int, regions: int | None, prisons: int | None, reveal_turn: int | None,
            free_turn: int | None, rng: np.random.Generator, steps: _Steps) -> tuple[int, int, int, int]:
    """Regions, prisons, r and f: as given, else the defaults (r drawn from `rng`)."""
    defaults = default_counts(width, height)
    n_regions = defaults["regions"] if regions is None else regions
    n_prisons = defaults["prisons"] if prisons is None else prisons
    assert n_regions is not None and n_prisons is not None  # default_counts gives both
    r_turn = steps.reveal_turn(rng) if reveal_turn is None else reveal_turn
    f_turn = default_free_turn(width, height, r_turn) if free_turn is None else free_turn
    return n_regions, n_prisons, r_turn, f_turn


def _check_options(width: int, height: int, regions: int | None, prisons: int | None, mountains: int | None,
                   reveal_turn: int | None, free_turn: int | None) -> None:
    value: int | None
    for name, value in (("width", width), ("height", height)):
        if not MIN_SIDE <= value <= MAX_SIDE:
            raise ValueError(f"{name} must be between {MIN_SIDE} and {MAX_SIDE}, got {value}")
    lim = limits(width, height)
    for name, value, low in (("regions", regions, 1), ("prisons", prisons, 1), ("mountains", mountains, 0)):
        if value is not None and not low <= value <= lim[name]:
            raise ValueError(f"{name} must be between {low} and {lim[name]} for a {width}x{height} map, got {value}")
    for name, value in (("reveal turn", reveal_turn), ("free turn", free_turn)):
        if value is not None and value < 1:
            raise ValueError(f"the {name} must be 1 or more, got {value}")


def _reveal_turn(rng: np.random.Generator) -> int:
    return int(rng.integers(2, 5))


def _attempt(width: int, height: int, n_regions: int, n_prisons: int, n_mountains: int | None, r_turn: int,
             f_turn: int, rng: np.random.Generator, steps: _Steps) -> Island:
    land, n_land = steps.land_mask(width, height, rng)
    if n_mountains is None:
        n_mountains = min(round(0.06 * n_land), limits(width, height)["mountains"])
    # Room for every seed, and enough plain walkable tiles left for the
    # treasure and the prisons even after the mountains.
    if n_land < n_regions or n_land - n_mountains < 2 * (n_prisons + 1):
        raise _Retry
    flat_land = land.ravel()
    labels = steps.grow_regions(flat_land, width, n_regions, rng)
    mountain = steps.place_mountains(flat_land, width, n_mountains, rng)
    walkable = flat_land & ~mountain
    treasure = divmod(steps.pick_treasure(walkable, rng), width)
    dist = grid.bfs_distance(walkable.reshape(height, width), [treasure]).ravel()
    prison = steps.prison_mask(dist, width, height, n_prisons, rng)
    # Nothing here writes to these arrays again: read-only, the island keeps them
    # without a copy (six map-sized copies, ~240 MB at 4096x4096).
    for done in (labels, mountain, prison, walkable, dist):
        done.setflags(write=False)
    island = Island(
        labels.reshape(height, width),
        mountain.reshape(height, width),
        prison.reshape(height, width),
        r_turn,
        f_turn,
        treasure,
    )
    dist = dist.reshape(height, width)  # type: ignore[assignment]  # numpy types 1-D and 2-D apart
    if not steps.verify(island, dist, n_regions, n_prisons, n_mountains):
        raise _Retry  # the construction should rule this out; never hand out a bad map
    # _verify checked that the walkable land is one piece reached by `dist`:
    # hand the island the masks it would otherwise compute again.
    walk = walkable.reshape(height, width)
    pieces = walk.astype(np.int32)
    pieces.setflags(write=False)
    island.prime(walkable=walk, walk_pieces=pieces, treasure_distance=dist)
    return island


# -- 1. land ------------------------------------------------------------------
def _value_noise(height: int, width: int, cell: float, rng: np.random.Generator) -> np.ndarray:
    """Random values on a coarse lattice, smoothly interpolated to (H, W)."""
    gh, gw = int(height / cell) + 2, int(width / cell) + 2
    lattice = rng.random((gh, gw), dtype=np.float32)
    y = np.arange(height, dtype=np.float32) / np.float32(cell)
    x = np.arange(width, dtype=np.float32) / np.float32(cell)
    y0, x0 = y.astype(np.int64), x.astype(np.int64)
    ty, tx = y - y0, x - x0
    ty = ty * ty * (3 - 2 * ty)  # smoothstep: no visible lattice creases
    tx = tx * tx * (3 - 2 * tx)
    # Separable: interpolate every lattice row along x first (a small
    # (gh, W) array), then gather rows. Each tile sees the very same float32
    # operations as interpolating both ways per tile, at a third of the cost.
    along_x = lattice[:, x0] * (1 - tx) + lattice[:, x0 + 1] * tx
    out = along_x[y0]
    out *= (1 - ty)[:, None]
    below = along_x[y0 + 1]
    below *= ty[:, None]
    out += below
    return out  # type: ignore[no-any-return]


def _land_mask(width: int, height: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """The land and its number of tiles."""
    land = _raw_land(width, height, rng)
    # Keep the piece holding the most inland tile: one island, no islets.
    pieces = grid.components(land)
    if pieces.max() > 1:  # one piece (the usual case) is kept as it is: no distance field needed
        depth = grid.manhattan_distance_to(~land)
        core = np.unravel_index(int(np.argmax(depth)), land.shape)
        land = pieces == pieces[core]
    n_land = int(land.sum())
    if n_land < 0.3 * (height - 2) * (width - 2):
        raise _Retry
    return land, n_land


def _raw_land(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """The land before islets are dropped: the highest _LAND_FRACTION of noise with a falloff."""
    side = min(width, height)
    field = np.zeros((height, width), dtype=np.float32)
    # Octaves from about a quarter of the map down to a few tiles.
    cell, weight = max(2.0, side / 4), np.float32(1.0)
    while cell >= 2.0:
        octave = _value_noise(height, width, cell, rng)
        octave *= weight  # in place: no new (H, W) temporary per octave
        field += octave
        cell, weight = cell / 2, weight * np.float32(0.5)
    # Falloff towards the edge keeps the island central with a sea margin.
    ry = (np.arange(height, dtype=np.float32) - (height - 1) / 2) / np.float32(height / 2)
    rx = (np.arange(width, dtype=np.float32) - (width - 1) / 2) / np.float32(width / 2)
    field -= np.float32(1.2) * (ry[:, None] ** 2 + rx[None, :] ** 2)
    inner = field[1:-1, 1:-1]
    k = int(inner.size * (1 - _LAND_FRACTION))
    threshold = np.partition(inner.ravel(), k)[k]
    land = np.zeros((height, width), dtype=bool)
    land[1:-1, 1:-1] = inner >= threshold
    return land


# -- 2. regions -----------------------------------------------------------------
def _spread_seeds(land_idx: np.ndarray, width: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """Best-candidate sampling: each seed is the farthest of a few random tries."""
    if count > 1000:  # the greedy spread is quadratic; plain sampling is fine at this density
        return rng.choice(land_idx, size=count, replace=False)
    tries = rng.choice(land_idx, size=(count, 8))
    # gap[k, j]: distance of try j of seed k to the nearest seed placed so far, kept up
    # to date one seed at a time over all tries at once (the same minima as comparing
    # each try with every earlier seed, in a handful of numpy calls per seed).
    rows, cols = np.divmod(tries, width)
    gap = np.full(tries.shape, np.iinfo(np.int64).max, dtype=np.int64)
    tries = tries.tolist()
    seeds = [tries[0][0]]
    taken = {seeds[0]}
    for k in range(1, count):
        r, c = divmod(seeds[-1], width)
        np.minimum(gap, np.abs(rows - r) + np.abs(cols - c), out=gap)
        cand = tries[k]
        gap_k = gap[k].tolist()
        for j in sorted(range(len(cand)), key=lambda j: -gap_k[j]):  # stable: ties keep try order
            if cand[j] not in taken:
                seed = cand[j]
                break
        else:  # every try was already a seed: take any free land tile
            free = np.setdiff1d(land_idx, np.array(seeds, dtype=np.int64))
            seed = int(free[rng.integers(free.size)])
        seeds.append(seed)
        taken.add(seed)
    return np.array(seeds, dtype=np.int64)


def _grow_regions(land: np.ndarray, width: int, count: int, rng: np.random.Generator) -> np.ndarray:
    # The border is sea, so land tiles' flat neighbours never wrap a row.
    offsets = np.array([-width, 1, width, -1], dtype=np.int64)
    labels = np.zeros(land.size, dtype=np.int32)
    seeds = _spread_seeds(np.flatnonzero(land), width, count, rng)
    labels[seeds] = np.arange(1, count + 1, dtype=np.int32)
    active = seeds
    while active.size:
        # Only some of the frontier grows each round: ragged, uneven borders.
        grows = rng.random(active.size) < 0.6
        src = active[grows]
        nb = src[:, None] + offsets
        open_ = land[nb] & (labels[nb] == 0)
        alive = src[open_.any(axis=1)]
        targets = nb[open_]
        claim = np.repeat(labels[src], 4).reshape(-1, 4)[open_]
        # Several regions may reach one tile: a random one wins.
        order = rng.permutation(targets.size)
        won, first = _first_of_each(targets[order])
        labels[won] = claim[order][first]
        active = np.concatenate([active[~grows], alive, won])
    if (labels[land] == 0).any():  # land is one piece, so this cannot happen
        raise _Retry
    return labels


def _first_of_each(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(values, return_index=True) for non-negative ints below 2**63 / len(values).

    Sorting one int64 key per item (value, then position) finds each value's
    first position with a plain sort instead of unique's stable argsort:
    8x faster on the 200k-tile frontiers of a 4096x4096 map.
    """
    n = values.size
    if not n:
        return values.copy(), np.zeros(0, dtype=np.intp)
    key = values.astype(np.int64) * n + np.arange(n, dtype=np.int64)
    key.sort()
    ordered = key // n
    head = np.empty(n, dtype=bool)
    head[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=head[1:])
    return ordered[head], key[head] % n


# -- 3. mountains ---------------------------------------------------------------
def _place_mountains(land: np.ndarray, width: int, count: int, rng: np.random.Generator) -> np.ndarray:
    mountain = np.zeros(land.size, dtype=bool)
    if count == 0:
        return mountain
    height = land.size // width
    offsets = np.array([-width, 1, width, -1], dtype=np.int64)
    for _ in range(8):
        # Overshoot a little: the pocket repair and the trim only remove tiles.
        need = count + max(1, count // 5) - int(mountain.sum())
        if need > 0:
            _add_clusters(mountain, land, offsets, need, rng)
        mountain = _open_pockets(mountain, land, width, height)
        if int(mountain.sum()) >= count:
            return _trim(mountain, land, width, height, count, rng)
    raise _Retry


def _trim(mountain: np.ndarray, land: np.ndarray, width: int, height: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """Turn random mountains back into plain land until `count` are left.

    Only mountains touching walkable land are freed, so each freed tile
    joins the (single) walkable piece instead of becoming an island of its
    own inside a cluster.
    """
    while (extra := int(mountain.sum()) - count) > 0:
        walkable = (land & ~mountain).reshape(height, width)
        edge = np.flatnonzero(mountain & grid.neighbours_of(walkable).ravel())
        drop = edge if edge.size <= extra else rng.choice(edge, size=extra, replace=False)
        mountain[drop] = False
    return mountain


def _add_clusters(mountain: np.ndarray, land: np.ndarray, offsets: np.ndarray, need: int, rng: np.random.Generator) -> None:
    """Random walks of 1.._MAX_CLUSTER tiles from random walkable seeds."""
    free = np.flatnonzero(land & ~mountain)
    n = min(free.size, -(-need // 2))  # clusters average a bit over 2 tiles
    heads = rng.choice(free, size=n, replace=False)
    steps_left = rng.integers(0, _MAX_CLUSTER, size=n)
    mountain[heads] = True
    for _ in range(_MAX_CLUSTER - 1):
        nxt = heads + offsets[rng.integers(0, 4, size=n)]
        moving = (steps_left > 0) & land[nxt]
        heads = np.where(moving, nxt, heads)
        mountain[heads[moving]] = True
        steps_left -= 1


def _open_pockets(mountain: np.ndarray, land: np.ndarray, width: int, height: int) -> np.ndarray:
    """Remove mountains around walkable pockets until walkable land is one piece."""
    for _ in range(2 * _MAX_CLUSTER):
        walkable = (land & ~mountain).reshape(height, width)
        main = _largest_piece(walkable)
        pockets = walkable & ~main
        if not pockets.any():
            return mountain
        mountain = mountain & ~grid.neighbours_of(pockets).ravel()
    raise _Retry


def _largest_piece(walkable: np.ndarray) -> np.ndarray:
    """The largest 4-connected piece of `walkable`.

    On a tie, the piece holding the most inland tile wins, then the piece
    whose first tile comes first in row-major order (the order in which the
    earlier BFS-per-piece version met them, so maps stay the same).
    """
    pieces = grid.components(walkable)
    sizes = np.bincount(pieces.ravel())
    sizes[0] = 0  # not walkable
    largest = sizes.max()
    if largest > 0 and np.count_nonzero(sizes == largest) == 1:
        return pieces == int(np.argmax(sizes))  # type: ignore[no-any-return]  # one largest piece: no tie to break
    inland = pieces[np.unravel_index(int(np.argmax(grid.manhattan_distance_to(~walkable))), walkable.shape)]
    best = inland if sizes[inland] == sizes.max() else int(np.argmax(sizes))  # argmax: first of the largest
    return pieces == best  # type: ignore[no-any-return]


# -- 4. treasure and prisons ----------------------------------------------------
def _pick_treasure(walkable: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(walkable)))


def _prison_mask(dist: np.ndarray, width: int, height: int, count: int, rng: np.random.Generator) -> np.ndarray:
    prison = np.zeros(height * width, dtype=bool)
    prison[_pick_prisons(dist, width, height, count, rng)] = True
    return prison


def _pick_prisons(dist: np.ndarray, width: int, height: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """Prisons on tiles that reach the treasure, preferably not right next to it."""
    far = max(2, (width + height) // 8)
    for least in (far, 2, 1):
        cand = np.flatnonzero(dist >= least)
        if cand.size >= count:
            return rng.choice(cand, size=count, replace=False)
    raise _Retry


def _verify(island: Island, dist: np.ndarray, n_regions: int, n_prisons: int, n_mountains: int) -> bool:
    """Cheap checks (no extra BFS) of what the construction promises.

    Region connectivity is left to the tests: checking it costs a BFS per
    region.
    """
    reg = island.regions
    border_sea = not (reg[0].any() or reg[-1].any() or reg[:, 0].any() or reg[:, -1].any())
    t = island.treasure
    return bool(
        border_sea
        and island.land_regions == tuple(range(1, n_regions + 1))
        and int(island.prison.sum()) == n_prisons
        and int(island.mountain.sum()) == n_mountains
        and not (island.mountain & island.prison).any()
        and not (island.mountain | island.prison)[~island.land].any()
        and island.land[t] and not island.mountain[t] and not island.prison[t]
        and (dist[island.prison] > 0).all()
        # `dist` is the walk from the treasure: all walkable land is one piece.
        and ((dist >= 0) == island.walkable).all()
    )



# -- mazes (style "maze") --------------------------------------------------------
# Every permutation of the four directions: a cell's draw picks the order in
# which the maze's search tries its neighbours.
_ORDERS = np.array([(a, b, c, d) for a in range(4) for b in range(4) for c in range(4) for d in range(4)
                    if len({a, b, c, d}) == 4], dtype=np.int8)
_BRAID = 0.05  # share of the walls between two cells knocked out: loops, so ties between shortest walks


def _maze_walls(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """The (H, W) mask of the walls of a random maze inside a one-tile sea border.

    Cells are the inner tiles at odd (row, column); a depth-first search from
    a random cell opens the wall between each cell and the next it visits (a
    spanning tree: every cell reaches every other, along long winding
    corridors), then a few walls between two cells are opened too. The
    inner tiles that stay closed are the walls. Draws: the start, one
    direction order per cell, one number per wall tile, in that order.
    """
    rows, cols = (height - 1) // 2, (width - 1) // 2  # cells at (2i + 1, 2j + 1)
    n = rows * cols
    start = int(rng.integers(n))
    order = _ORDERS[rng.integers(len(_ORDERS), size=n)].tolist()
    open_ = np.zeros((height, width), dtype=bool)
    step = ((-1, 0), (0, 1), (1, 0), (0, -1))
    seen = bytearray(n)
    seen[start] = 1
    stack = [(start, 0)]  # a cell and how many of its directions it has tried
    opened_at = []  # (row, col) of each tile opened, cells and the walls between them
    while stack:
        cell, tried = stack[-1]
        i, j = divmod(cell, cols)
        if tried == 4:
            stack.pop()
            continue
        stack[-1] = (cell, tried + 1)
        di, dj = step[order[cell][tried]]
        ni, nj = i + di, j + dj
        if 0 <= ni < rows and 0 <= nj < cols and not seen[ni * cols + nj]:
            seen[ni * cols + nj] = 1
            opened_at.append((2 * i + 1 + di, 2 * j + 1 + dj))
            stack.append((ni * cols + nj, 0))
    open_[1:2 * rows:2, 1:2 * cols:2] = True
    if opened_at:
        at = np.array(opened_at)
        open_[at[:, 0], at[:, 1]] = True
    inner = np.zeros((height, width), dtype=bool)
    inner[1:-1, 1:-1] = True
    # Walls between two cells, in a line: knock some out (not the corners between four cells).
    between = np.zeros((height, width), dtype=bool)
    between[1:2 * rows:2, 2:2 * cols - 1:2] = True
    between[2:2 * rows - 1:2, 1:2 * cols:2] = True
    candidates = np.flatnonzero(between & ~open_)
    knock = candidates[rng.random(candidates.size) < _BRAID]
    open_.ravel()[knock] = True
    return inner & ~open_


def _generate_maze(width: int, height: int, regions: int | None, prisons: int | None, mountains: int | None,
                   reveal_turn: int | None, free_turn: int | None,
                   rng: np.random.Generator, steps: _Steps) -> Island:
    """A maze island: the inner rectangle is land, its walls mountains (RULES §10 still holds:
    sea border, 4-connected regions, every prison reaches the treasure)."""
    if mountains is not None:
        raise ValueError("a maze's mountains are its walls: --mountains does not apply to --style maze")
    _check_options(width, height, regions, prisons, None, reveal_turn, free_turn)
    n_regions, n_prisons, r_turn, f_turn = _counts(width, height, regions, prisons, reveal_turn, free_turn, rng, steps)
    for _ in range(_ATTEMPTS):
        wall = _maze_walls(width, height, rng)
        land = np.zeros((height, width), dtype=bool)
        land[1:-1, 1:-1] = True
        flat_land = land.ravel()
        walkable = flat_land & ~wall.ravel()
        if int(walkable.sum()) < 2 * (n_prisons + 1):
            raise ValueError(f"a {width}x{height} maze has too few corridor tiles for {n_prisons} prisons")
        try:
            labels = steps.grow_regions(flat_land, width, n_regions, rng)
        except _Retry:
            continue
        treasure = divmod(steps.pick_treasure(walkable, rng), width)
        dist = grid.bfs_distance(walkable.reshape(height, width), [treasure]).ravel()
        try:
            prison = steps.prison_mask(dist, width, height, n_prisons, rng)
        except _Retry:
            continue
        mountain = wall.ravel()
        for done in (labels, mountain, prison, walkable, dist):
            done.setflags(write=False)
        island = Island(labels.reshape(height, width), wall, prison.reshape(height, width),
                        r_turn, f_turn, treasure)
        dist = dist.reshape(height, width)  # type: ignore[assignment]  # numpy types 1-D and 2-D apart
        if not steps.verify(island, dist, n_regions, n_prisons, int(mountain.sum())):
            continue
        walk = walkable.reshape(height, width)
        pieces = walk.astype(np.int32)
        pieces.setflags(write=False)
        island.prime(walkable=walk, walk_pieces=pieces, treasure_distance=dist)
        return island
    raise ValueError(f"could not generate a {width}x{height} maze with these options; try fewer regions or prisons")


# -- the steps: numpy, or compiled ----------------------------------------------
class _Steps(NamedTuple):
    """The steps of an attempt that have a compiled twin; the rest is shared."""

    reveal_turn: Callable[[np.random.Generator], int]
    land_mask: Callable[[int, int, np.random.Generator], tuple[np.ndarray, int]]
    grow_regions: Callable[[np.ndarray, int, int, np.random.Generator], np.ndarray]
    place_mountains: Callable[[np.ndarray, int, int, np.random.Generator], np.ndarray]
    pick_treasure: Callable[[np.ndarray, np.random.Generator], int]
    prison_mask: Callable[[np.ndarray, int, int, int, np.random.Generator], np.ndarray]
    verify: Callable[[Island, np.ndarray, int, int, int], bool]


PYTHON_STEPS = _Steps(_reveal_turn, _land_mask, _grow_regions, _place_mountains, _pick_treasure, _prison_mask, _verify)


def _compiled_steps(gen: Any) -> _Steps:
    """The same steps with the kernels of `gen` (treasure_cli.islands._gen).

    A kernel that draws takes the bit generator's capsule (numpy's C interface
    to its state) and draws as the numpy calls it replaces, under the bit
    generator's lock as numpy's own methods do. The grid work (pieces,
    neighbours, distances) stays with `grid`, called as the Python steps do;
    the kernels read its labels and distances as C-contiguous int32
    (`as_int32` is free when they already are).
    """

    def as_int32(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, dtype=np.int32)

    def reveal_turn(rng: np.random.Generator) -> int:
        bits = rng.bit_generator
        with bits.lock:
            return 2 + gen.below(bits.capsule, 2)  # type: ignore[no-any-return]

    def land_mask(width: int, height: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        # _land_mask, the noise and its threshold in C (which also counts the land)
        land = np.empty((height, width), dtype=bool)
        k = int((height - 2) * (width - 2) * (1 - _LAND_FRACTION))  # _raw_land's rank of the threshold
        bits = rng.bit_generator
        with bits.lock:
            n_land = gen.raw_land(bits.capsule, land, width, height, k)
        pieces = as_int32(grid.components(land))
        if gen.top(pieces) > 1:
            depth = grid.manhattan_distance_to(~land)
            core = np.unravel_index(int(np.argmax(depth)), land.shape)
            land = pieces == pieces[core]
            n_land = int(np.count_nonzero(land))
        if n_land < 0.3 * (height - 2) * (width - 2):
            raise _Retry
        return land, n_land

    def grow_regions(land: np.ndarray, width: int, count: int, rng: np.random.Generator) -> np.ndarray:
        labels = np.empty(land.size, dtype=np.int32)
        bits = rng.bit_generator
        with bits.lock:
            complete = gen.grow_regions(bits.capsule, land, width, count, labels)
        if not complete:
            raise _Retry
        return labels

    def place_mountains(land: np.ndarray, width: int, count: int, rng: np.random.Generator) -> np.ndarray:
        # _place_mountains, keeping count of the mountains instead of summing the mask
        mountain = np.zeros(land.size, dtype=bool)
        if count == 0:
            return mountain
        height = land.size // width
        bits = rng.bit_generator
        total = 0
        for _ in range(8):
            need = count + max(1, count // 5) - total
            if need > 0:
                with bits.lock:
                    total = gen.add_clusters(bits.capsule, land, mountain, width, need)
            mountain, total = open_pockets(mountain, land, width, height, total)
            if total >= count:
                while (extra := total - count) > 0:  # _trim
                    walkable = (land & ~mountain).reshape(height, width)
                    with bits.lock:
                        total -= gen.drop_some(bits.capsule, mountain, grid.neighbours_of(walkable).ravel(), extra)
                return mountain
        raise _Retry

    def open_pockets(mountain: np.ndarray, land: np.ndarray, width: int, height: int,
                     total: int) -> tuple[np.ndarray, int]:
        pockets = np.empty(land.size, dtype=bool)
        for _ in range(2 * _MAX_CLUSTER):
            walkable = (land & ~mountain).reshape(height, width)
            pieces = as_int32(grid.components(walkable))
            found = gen.pockets(pieces, -1, pockets)
            if found < 0:  # a tie for the largest piece: the one holding the most inland tile (_largest_piece)
                inland = int(pieces.flat[int(np.argmax(grid.manhattan_distance_to(~walkable)))])
                found = gen.pockets(pieces, inland, pockets)
            if not found:
                return mountain, total
            mountain = mountain & ~grid.neighbours_of(pockets.reshape(height, width)).ravel()
            total = int(np.count_nonzero(mountain))
        raise _Retry

    def pick_treasure(walkable: np.ndarray, rng: np.random.Generator) -> int:
        bits = rng.bit_generator
        with bits.lock:
            return gen.pick_tile(bits.capsule, walkable)  # type: ignore[no-any-return]

    def prison_mask(dist: np.ndarray, width: int, height: int, count: int, rng: np.random.Generator) -> np.ndarray:
        prison = np.zeros(height * width, dtype=bool)
        bits = rng.bit_generator
        with bits.lock:
            placed = gen.pick_prisons(bits.capsule, as_int32(dist), max(2, (width + height) // 8), count, prison)
        if not placed:
            raise _Retry
        return prison

    def verify(island: Island, dist: np.ndarray, n_regions: int, n_prisons: int, n_mountains: int) -> bool:
        assert island.treasure is not None  # the generator's own island
        r, c = island.treasure
        return gen.verify(island.regions, island.mountain, island.prison, as_int32(dist), r * island.width + c,  # type: ignore[no-any-return]
                          n_regions, n_prisons, n_mountains)

    return _Steps(reveal_turn, land_mask, grow_regions, place_mountains, pick_treasure, prison_mask, verify)


_gen = load("treasure_cli.islands._gen")
COMPILED_STEPS = _compiled_steps(_gen) if _gen is not None else None
COMPILED = COMPILED_STEPS is not None
