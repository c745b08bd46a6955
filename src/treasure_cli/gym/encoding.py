"""Fixed-size numbers for a learner: the action index <-> Action, and the observation arrays.

Both the environment and `PolicyAgent` use these classes, fed the same public
events, so a policy sees the same arrays whether it is trained in the
environment or run by `treasure run --agent`. Nothing here knows a rule: the
legal moves come from `rules.actions.legal_moves`, the candidate tiles from
`Knowledge`. docs/gymnasium.md describes every array and index.
"""

from __future__ import annotations

import numpy as np

from treasure_cli.agents.knowledge import Knowledge
from treasure_cli.rules import events as ev
from treasure_cli.rules.actions import Action, LargeScan, Move, Teleport, Verify, legal_moves, scan_square
from treasure_cli.rules.grid import Direction, Pos
from treasure_cli.rules.island import Island

DEFAULT_MAX_HINTS = 32
DEFAULT_TELEPORT_GRID = 16
MOVES = [Move(d, n) for d in Direction for n in range(1, 5)]  # N1..N4, E1..E4, S1..S4, W1..W4
PLANES = ("candidates", "scanned", "walkable", "mountain", "prison")  # then one plane per hint
HINT_NONE, HINT_HEARD, HINT_TRUE, HINT_FALSE = 0, 1, 2, 3


def teleport_targets(walkable: np.ndarray, grid: int) -> list[Pos | None]:
    """One target per cell of a `gh` x `gw` grid over the map (gh = min(H, grid), gw = min(W, grid)).

    A cell's target is its walkable tile nearest the cell's centre (the first
    in reading order on a tie), None if it has none. When the map is no
    larger than the grid each cell is one tile, so every tile is a target.
    """
    h, w = walkable.shape
    gh, gw = min(h, grid), min(w, grid)
    row_start = np.arange(gh + 1) * h // gh
    col_start = np.arange(gw + 1) * w // gw
    rows, cols = np.nonzero(walkable)
    bi = np.searchsorted(row_start, rows, side="right") - 1
    bj = np.searchsorted(col_start, cols, side="right") - 1
    cr = (row_start[bi] + row_start[bi + 1] - 1) / 2
    cc = (col_start[bj] + col_start[bj + 1] - 1) / 2
    cell = bi * gw + bj
    order = np.lexsort(((rows - cr) ** 2 + (cols - cc) ** 2, cell))  # by cell, then distance, then reading order
    first = order[np.unique(cell[order], return_index=True)[1]]
    targets: list[Pos | None] = [None] * (gh * gw)
    for k in first:
        targets[int(cell[k])] = (int(rows[k]), int(cols[k]))
    return targets


class ActionCodec:
    """The Discrete action layout: verify 1..max_hints, 16 moves, the large scan, the teleport cells."""

    def __init__(self, walkable: np.ndarray, max_hints: int = DEFAULT_MAX_HINTS,
                 teleport_grid: int = DEFAULT_TELEPORT_GRID):
        if max_hints < 1 or teleport_grid < 1:
            raise ValueError("max_hints and teleport_grid must be at least 1")
        self.walkable = walkable
        self.max_hints = max_hints
        self.move_base = max_hints
        self.scan_index = max_hints + len(MOVES)
        self.teleport_base = self.scan_index + 1
        self.targets = teleport_targets(walkable, teleport_grid)
        self.n = self.teleport_base + len(self.targets)
        self._move_index = {m: self.move_base + i for i, m in enumerate(MOVES)}
        self._by_step = {(m.direction.dr * m.steps, m.direction.dc * m.steps): i for m, i in self._move_index.items()}
        self._teleports_open = np.array([t is not None for t in self.targets], dtype=np.int8)
        self._move_indices: dict[Pos, list[int]] = {}  # legal move indices by tile: the map never changes

    def decode(self, index: int) -> Action:
        """The action of an index; ValueError for an index outside the space or a cell with no walkable tile."""
        i = int(index)
        if 0 <= i < self.move_base:
            return Verify(i + 1)
        if self.move_base <= i < self.scan_index:
            return MOVES[i - self.move_base]
        if i == self.scan_index:
            return LargeScan()
        if self.teleport_base <= i < self.n:
            target = self.targets[i - self.teleport_base]
            if target is None:
                raise ValueError(f"action {i}: teleport cell {i - self.teleport_base} has no walkable tile")
            return Teleport(target)
        raise ValueError(f"action {i} is outside the action space 0..{self.n - 1}")

    def encode(self, action: Action) -> int | None:
        """The index of an action, None if the space cannot express it (a hint past the cap,
        a teleport to a tile that is not its cell's target)."""
        if isinstance(action, Verify):
            return action.number - 1 if 1 <= action.number <= self.max_hints else None
        if isinstance(action, Move):
            return self._move_index.get(action)
        if isinstance(action, LargeScan):
            return self.scan_index
        if isinstance(action, Teleport):
            target = (int(action.target[0]), int(action.target[1]))
            try:
                return self.teleport_base + self.targets.index(target)
            except ValueError:
                return None
        return None

    def mask(self, hint_state: np.ndarray, position: Pos, teleport_used: bool) -> np.ndarray:
        """1 for every legal action index (the same legality as `legal_actions`), as int8."""
        out = np.zeros(self.n, dtype=np.int8)
        out[: self.max_hints] = hint_state == HINT_HEARD
        moves = self._move_indices.get(position)
        if moves is None:
            r, c = position
            by_step = self._by_step  # keyed by the move's displacement: cheaper than hashing Move values
            moves = self._move_indices[position] = [
                by_step[dr - r, dc - c] for _, (dr, dc) in legal_moves(self.walkable, position)]
        out[moves] = 1
        out[self.scan_index] = 1
        if not teleport_used:
            out[self.teleport_base:] = self._teleports_open
        return out


class Encoder:
    """The observation arrays of one game, kept up to date from its public events.

    Feed it every public event (`update`) and call `ready()` when the agent
    is asked to act; `observation()` returns fresh copies each time (a caller
    may keep or change them). Planes are updated in place, never rebuilt.
    """

    def __init__(self, island: Island, max_turns: int, codec: ActionCodec):
        self.island = island
        self.max_turns = max_turns
        self.codec = codec
        self.max_hints = codec.max_hints
        self.knowledge = Knowledge(island)
        h, w = island.shape
        self.planes = np.zeros((len(PLANES) + self.max_hints, h, w), dtype=np.int8)
        self.planes[2] = island.walkable
        self.planes[3] = island.mountain
        self.planes[4] = island.prison
        self.scanned = self.planes[1]
        self.hint_state = np.zeros(self.max_hints, dtype=np.int64)
        self._candidates: np.ndarray | None = None
        self.ended = False

    def update(self, e: ev.Event) -> None:
        """Fold in one public event (what `public_view` leaves of the game's event)."""
        self.knowledge.update(e)
        if isinstance(e, ev.AreaScanned):
            self.scanned[scan_square(e.centre, e.size)] = 1
        elif isinstance(e, ev.HintGiven):
            if e.number <= self.max_hints:
                self.planes[len(PLANES) + e.number - 1] = self.knowledge.hint_mask(e.number)
                self.hint_state[e.number - 1] = HINT_HEARD if e.truthful is None else (
                    HINT_TRUE if e.truthful else HINT_FALSE)
        elif isinstance(e, ev.HintVerified):
            if e.number <= self.max_hints:
                self.hint_state[e.number - 1] = HINT_TRUE if e.truthful else HINT_FALSE
        elif isinstance(e, ev.GameEnded):
            self.ended = True
        if self.knowledge.candidates is not self._candidates:
            self._candidates = self.knowledge.candidates
            self.planes[0] = self._candidates

    def ready(self) -> None:
        """The agent is asked to act: the game goes on (see `Knowledge.game_goes_on`)."""
        self.knowledge.game_goes_on()
        if self.knowledge.candidates is not self._candidates:
            self._candidates = self.knowledge.candidates
            self.planes[0] = self._candidates

    def observation(self, actions_left: int) -> dict[str, object]:
        k = self.knowledge
        planes = self.planes.copy()  # one copy; the arrays below are views of it
        n = len(PLANES)
        return {
            "candidates": planes[0], "scanned": planes[1], "walkable": planes[2],
            "mountain": planes[3], "prison": planes[4], "hints": planes[n:],
            "hint_state": self.hint_state.copy(),
            "regions": self.island.regions.copy(),
            "position": np.array(k.position if k.position is not None else (0, 0), dtype=np.int64),
            "prison_pos": np.array(k.prison if k.prison is not None else (-1, -1), dtype=np.int64),
            "pirate": np.array(k.pirate if k.pirate is not None else (-1, -1), dtype=np.int64),
            "turn": min(k.turn, self.max_turns),
            "actions_left": actions_left,
            "teleport_available": int(not k.teleport_used),
        }

    def action_mask(self) -> np.ndarray:
        if self.ended or self.knowledge.position is None:
            return np.zeros(self.codec.n, dtype=np.int8)
        return self.codec.mask(self.hint_state, self.knowledge.position, self.knowledge.teleport_used)
