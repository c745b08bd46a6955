"""The pirate's walk: one deterministic shortest path from his prison to the treasure."""

from __future__ import annotations

import numpy as np

from treasure_cli.grid import Direction, Pos

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
