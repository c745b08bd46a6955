"""What an agent may ask for: small values, checked by the game."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sized
from typing import TYPE_CHECKING, Protocol

import numpy as np

from treasure_cli.rules import grid
from treasure_cli.rules.grid import Direction, Pos
from treasure_cli.rules.quick_init import quick_init

if TYPE_CHECKING:
    from treasure_cli.rules.island import Island


@quick_init
@dataclasses.dataclass(frozen=True)
class Verify:
    """Learn whether hint `number` (1-based, in the list, not yet verified) is true."""

    number: int


@quick_init
@dataclasses.dataclass(frozen=True)
class Move:
    """Move straight `steps` tiles: 1–2 is a small move (then a 3x3 scan), 3–4 a large one."""

    direction: Direction
    steps: int

    @property
    def small(self) -> bool:
        return self.steps <= 2


@quick_init
@dataclasses.dataclass(frozen=True)
class LargeScan:
    """Stay and scan the 5x5 square around the agent."""


@quick_init
@dataclasses.dataclass(frozen=True)
class Teleport:
    """Once a game, free: jump to any walkable tile (no scan)."""

    target: Pos


Action = Verify | Move | LargeScan | Teleport


SMALL_SCAN_SIZE = 3
LARGE_SCAN_SIZE = 5


def scan_square(centre: Pos, size: int) -> tuple[slice, slice]:
    """The rows and columns a scan of side `size` around `centre` covers (clipped at the map edge)."""
    r, c = centre
    k = size // 2
    return np.s_[max(0, r - k): r + k + 1, max(0, c - k): c + k + 1]


def in_scan(centre: Pos, size: int, pos: Pos) -> bool:
    """Whether a scan of side `size` around `centre` covers the tile `pos`."""
    k = size // 2
    return abs(pos[0] - centre[0]) <= k and abs(pos[1] - centre[1]) <= k


def move_target(walkable: np.ndarray, pos: Pos, move: Move) -> Pos | None:
    """Where `move` ends from `pos`, or None if it leaves the map or crosses a blocked tile."""
    if not 1 <= move.steps <= 4:
        return None
    h, w = walkable.shape
    r, c = pos
    dr, dc = move.direction.value  # read once: an enum's properties are slow to reach
    for _ in range(move.steps):
        r, c = r + dr, c + dc
        if not (0 <= r < h and 0 <= c < w and walkable[r, c]):
            return None
    return (r, c)


_grid_c = grid._c  # the compiled twin of grid.py, or None (not built, or TREASURE_CLI_PURE_PYTHON)
# Built once: every move value per direction, with plain-int deltas (enum lookups are slow).
_MOVE_TABLE = [(d.value[0], d.value[1], [Move(d, n) for n in range(1, 5)]) for d in Direction]


def legal_moves(walkable: np.ndarray, pos: Pos) -> list[tuple[Move, Pos]]:
    """Every legal move from `pos` with its destination (N, E, S, W; 1 to 4 steps): the
    compiled loop of rules/_grid.c when it is built and takes the input, else py_legal_moves."""
    if _grid_c is not None:
        got = _grid_c.legal_moves(_MOVE_TABLE, walkable, pos)
        if got is not False:
            return got  # type: ignore[no-any-return]
    return py_legal_moves(walkable, pos)


def py_legal_moves(walkable: np.ndarray, pos: Pos) -> list[tuple[Move, Pos]]:
    """legal_moves in Python: the reference (tests/rules/test_grid_compiled.py compares)."""
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


class Seen(Protocol):
    """What `legal_actions` reads of an Observation (rules/observation.py, which builds on this
    module: naming the fields here keeps the two from importing each other)."""

    @property
    def island(self) -> Island: ...
    @property
    def position(self) -> Pos: ...
    @property
    def hints(self) -> Sized: ...
    @property
    def verified(self) -> Mapping[int, bool]: ...
    @property
    def teleport_used(self) -> bool: ...


def legal_actions(obs: Seen, *, teleports: bool = True) -> list[Action]:
    """Every action the game accepts now: verifications, the large scan, every legal move,
    and (while it is unused) a teleport to every walkable tile.

    The teleports are one per walkable tile, so on a large map they are most
    of the list; `teleports=False` leaves them out.
    """
    actions: list[Action] = [Verify(n) for n in range(1, len(obs.hints) + 1) if n not in obs.verified]
    actions.append(LargeScan())
    actions += [move for move, _ in legal_moves(obs.island.walkable, obs.position)]
    if teleports and not obs.teleport_used:
        rows, cols = np.nonzero(obs.island.walkable)
        actions += [Teleport((int(r), int(c))) for r, c in zip(rows, cols)]
    return actions
