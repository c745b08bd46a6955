"""What an agent may ask for: small values, checked by the game."""

from __future__ import annotations

import dataclasses
from typing import Union

from treasure_cli.rules.grid import Direction, Pos


@dataclasses.dataclass(frozen=True)
class Verify:
    """Learn whether hint `number` (1-based, in the list, not yet verified) is true."""

    number: int


@dataclasses.dataclass(frozen=True)
class Move:
    """Move straight `steps` tiles: 1–2 is a small move (then a 3x3 scan), 3–4 a large one."""

    direction: Direction
    steps: int

    @property
    def small(self) -> bool:
        return self.steps <= 2


@dataclasses.dataclass(frozen=True)
class LargeScan:
    """Stay and scan the 5x5 square around the agent."""


@dataclasses.dataclass(frozen=True)
class Teleport:
    """Once a game, free: jump to any walkable tile (no scan)."""

    target: Pos


Action = Union[Verify, Move, LargeScan, Teleport]


SMALL_SCAN_SIZE = 3
LARGE_SCAN_SIZE = 5


def move_target(walkable, pos: Pos, move: Move) -> Pos | None:
    """Where `move` ends from `pos`, or None if it leaves the map or crosses a blocked tile."""
    if not 1 <= move.steps <= 4:
        return None
    h, w = walkable.shape
    r, c = pos
    for _ in range(move.steps):
        r, c = r + move.direction.dr, c + move.direction.dc
        if not (0 <= r < h and 0 <= c < w and walkable[r, c]):
            return None
    return (r, c)


# Built once: every move value per direction, with plain-int deltas (enum lookups are slow).
_MOVE_TABLE = [(d.value[0], d.value[1], [Move(d, n) for n in range(1, 5)]) for d in Direction]


def legal_moves(walkable, pos: Pos) -> list[tuple[Move, Pos]]:
    """Every legal move from `pos` with its destination (N, E, S, W; 1 to 4 steps)."""
    out = []
    h, w = walkable.shape
    for dr, dc, moves in _MOVE_TABLE:
        r, c = pos
        for move in moves:
            r, c = r + dr, c + dc
            if not (0 <= r < h and 0 <= c < w and walkable[r, c]):
                break
            out.append((move, (r, c)))
    return out
