"""The pirate's walk: one deterministic shortest path from his prison to the treasure."""

from __future__ import annotations

import numpy as np

from treasure_cli.rules.grid import Direction, Pos

STEPS_PER_TURN = 2
_ORDER = tuple(Direction)  # N, E, S, W: the tie-break after "keep going straight"


def pirate_path(walkable: np.ndarray, distance_to_treasure: np.ndarray, prison: Pos) -> list[Pos]:
    """Tiles from the prison to the treasure, both included (RULES §6).

    From each tile take a walkable neighbour one step closer to the treasure,
    preferring the direction of the previous step, then N, E, S, W.
    `distance_to_treasure` is the walking distance field (-1 = unreachable).
    """
    h, w = walkable.shape
    d = int(distance_to_treasure[prison])
    if d < 0:
        raise ValueError(f"the treasure cannot be reached from the prison at {prison}")
    path = [prison]
    r, c = prison
    previous: Direction | None = None
    while d > 0:
        choices = ((previous,) if previous else ()) + _ORDER
        for direction in choices:
            nr, nc = r + direction.dr, c + direction.dc
            if 0 <= nr < h and 0 <= nc < w and walkable[nr, nc] and distance_to_treasure[nr, nc] == d - 1:
                break
        else:  # impossible with a consistent distance field
            raise AssertionError(f"no step closer to the treasure from {(r, c)}")
        r, c, d, previous = nr, nc, d - 1, direction
        path.append((r, c))
    return path


def next_stop(path: list[Pos], index: int) -> int:
    """Index on `path` after one turn's walk from `index` (2 tiles, or 1 if only 1 remains)."""
    return min(index + STEPS_PER_TURN, len(path) - 1)


def preference(previous: Direction | None) -> tuple[Direction, ...]:
    """The pirate's order of choice after a step in `previous` (RULES §6)."""
    if previous is None:
        return _ORDER
    return (previous,) + tuple(d for d in _ORDER if d is not previous)


def _surely_preferred(step: Direction, previous: set[Direction | None]) -> list[Direction]:
    """Directions the pirate would have taken before `step` whatever his previous step was."""
    out = None
    for prev in previous:
        order = preference(prev)
        before = set(order[: order.index(step)])
        out = before if out is None else out & before
    return [d for d in _ORDER if d in (out or set())]


def route_options(walkable: np.ndarray, src: Pos, dst: Pos) -> list[list[tuple[Pos, Direction]]]:
    """The ways a 1- or 2-step move src -> dst can have gone: lists of (tile left, direction)."""
    h, w = walkable.shape
    options = []
    for d1 in _ORDER:
        m = (src[0] + d1.dr, src[1] + d1.dc)
        if m == dst:
            options.append([(src, d1)])
            continue
        if not (0 <= m[0] < h and 0 <= m[1] < w and walkable[m]):
            continue
        for d2 in _ORDER:
            if (m[0] + d2.dr, m[1] + d2.dc) == dst:
                options.append([(src, d1), (m, d2)])
    return options


def consistent_treasures(
    walkable: np.ndarray,
    from_prison: np.ndarray,
    distance_from,
    src: Pos,
    dst: Pos,
    steps_before: int,
    previous: set[Direction | None],
) -> tuple[np.ndarray, set[Direction | None]]:
    """Tiles t for which the pirate's rule walks src -> dst, given the route so far.

    `from_prison` is the walking distance from his prison; `distance_from(pos)`
    returns the walking distance field from a tile (cached by the caller).
    On the true route, the tile after j steps lies at distance
    from_prison[t] - j from t, and at each step no neighbour preferred over
    the one taken is one step closer to t. `previous` holds the directions his
    last step may have had (None before the first step); only constraints that
    hold for all of them are used, so the treasure is never ruled out.
    Returns the mask and the possible directions of his last step.
    """
    h, w = walkable.shape
    allowed = np.zeros(walkable.shape, dtype=bool)
    last: set[Direction | None] = set()
    for option in route_options(walkable, src, dst):
        ok = np.ones(walkable.shape, dtype=bool)
        prev = previous
        for i, (tile, step) in enumerate(option):
            j = steps_before + i  # steps walked when he stands on `tile`
            nxt = (tile[0] + step.dr, tile[1] + step.dc)
            dn = distance_from(nxt)
            ok &= (dn >= 0) & (dn == from_prison - j - 1)
            for d in _surely_preferred(step, prev):
                y = (tile[0] + d.dr, tile[1] + d.dc)
                if 0 <= y[0] < h and 0 <= y[1] < w and walkable[y]:
                    dy = distance_from(y)
                    ok &= ~((dy >= 0) & (dy == from_prison - j - 1))
            prev = {step}
        if ok.any():
            allowed |= ok
            last.add(option[-1][1])
    return allowed, last
