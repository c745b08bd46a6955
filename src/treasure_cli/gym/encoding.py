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
from treasure_cli.rules.hints import Hint
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
        self._by_step = {(m.direction.dr * m.steps, m.direction.dc * m.steps): i - self.move_base
                         for m, i in self._move_index.items()}
        self._actions: list[Action | None] = [None] * self.n  # decoded on first use (actions are immutable)
        # The mask is built from bytes: the verify part, the 16 moves of a tile (kept by tile: the
        # map never changes), then the large scan and the teleport cells (open, or all closed).
        self._move_bytes: dict[Pos, bytes] = {}
        teleports_open = bytes(int(t is not None) for t in self.targets)
        self._tail = {False: b"\x01" + teleports_open, True: b"\x01" + bytes(len(self.targets))}

    def decode(self, index: int) -> Action:
        """The action of an index; ValueError for an index outside the space or a cell with no walkable tile."""
        i = int(index)
        if 0 <= i < self.n:
            action = self._actions[i]
            if action is None:
                action = self._actions[i] = self._decode(i)
            return action
        raise ValueError(f"action {i} is outside the action space 0..{self.n - 1}")

    def _decode(self, i: int) -> Action:
        if i < self.move_base:
            return Verify(i + 1)
        if i < self.scan_index:
            return MOVES[i - self.move_base]
        if i == self.scan_index:
            return LargeScan()
        target = self.targets[i - self.teleport_base]
        if target is None:
            raise ValueError(f"action {i}: teleport cell {i - self.teleport_base} has no walkable tile")
        return Teleport(target)

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

    def mask_from(self, heard: bytes | bytearray, position: Pos, teleport_used: bool) -> np.ndarray:
        """1 for every legal action index (the same legality as `legal_actions`), as a new int8 array;
        `heard` has one byte per hint, 1 if it is given and not verified."""
        moves = self._move_bytes.get(position)
        if moves is None:
            row = bytearray(len(MOVES))
            r, c = position
            by_step = self._by_step  # keyed by the move's displacement: cheaper than hashing Move values
            for _, (dr, dc) in legal_moves(self.walkable, position):
                row[by_step[dr - r, dc - c]] = 1
            moves = self._move_bytes[position] = bytes(row)
        out = bytearray(heard)  # a bytearray: the array over it is writable, and it is this call's own
        out += moves
        out += self._tail[bool(teleport_used)]
        return np.frombuffer(out, dtype=np.int8)


class HintSets:
    """The tile sets of hints on one island, kept across games (read-only arrays).

    The pirate often says a hint he said in an earlier game (same kind, same
    parameters), and finding its set here costs less than building it. At most
    `max_bytes` of sets are kept (all dropped when full).
    """

    def __init__(self, island: Island, max_bytes: int = 64 << 20):
        self.island = island
        self._sets: dict[Hint, np.ndarray] = {}
        self._max = max(16, max_bytes // island.regions.size)

    def __call__(self, hint: Hint) -> np.ndarray:
        tiles = self._sets.get(hint)
        if tiles is None:
            if len(self._sets) >= self._max:
                self._sets.clear()
            tiles = self._sets[hint] = hint.mask(self.island)
            tiles.setflags(write=False)
        return tiles


class _Knowledge(Knowledge):
    """Knowledge taking the hints' tile sets from a `HintSets`."""

    def __init__(self, island: Island, tile_sets: HintSets):
        super().__init__(island)
        self.tile_set = tile_sets  # type: ignore[method-assign]  # an instance attribute: found before the class's method


class Encoder:
    """The observation arrays of one game, kept up to date from its public events.

    Feed it every public event (`update`) and call `ready()` when the agent
    is asked to act; `observation()` and `action_mask()` return fresh arrays
    each time (a caller may keep or change them). The planes are updated in
    place from the events, never rebuilt from the history; the candidates
    plane is brought up to date when an observation is made.
    """

    def __init__(self, island: Island, max_turns: int, codec: ActionCodec, hint_sets: HintSets | None = None):
        """`hint_sets`: the island's `HintSets`, to share it between the games of one island."""
        self.island = island
        self.max_turns = max_turns
        self.codec = codec
        self.max_hints = mh = codec.max_hints
        self.knowledge = _Knowledge(island, hint_sets if hint_sets is not None else HintSets(island))
        h, w = island.shape
        self.planes = np.zeros((len(PLANES) + mh, h, w), dtype=np.int8)
        self.planes[2] = island.walkable
        self.planes[3] = island.mountain
        self.planes[4] = island.prison
        self.scanned = self.planes[1]
        # The int64 arrays share one buffer too, copied once per observation:
        # hint_state, then the (row, col) of the position, the prison and the pirate.
        self._small = np.zeros(mh + 6, dtype=np.int64)
        self._small[mh + 2:] = -1
        self.hint_state = self._small[:mh]
        self._places: tuple = (None, None, None)  # position, prison, pirate as in `_small`
        self._heard = bytearray(mh)  # per hint: 1 while an action can verify it
        self._candidates: np.ndarray | None = None
        self.ended = False

    def update(self, e: ev.Event) -> None:
        """Fold in one public event (what `public_view` leaves of the game's event)."""
        self.knowledge.update(e)
        on = _ON_EVENT.get(type(e))
        if on is not None:
            on(self, e)  # type: ignore[operator]

    def _on_scan(self, e: ev.AreaScanned) -> None:
        self.scanned[scan_square(e.centre, e.size)] = 1

    def _on_hint(self, e: ev.HintGiven) -> None:
        n = e.number
        if n <= self.max_hints:
            # The Knowledge keeps an open hint's mask, so verifying it later builds none again.
            mask = self.knowledge.open_mask(n)
            if mask is None:
                mask = self.knowledge.hint_mask(n)
            self.planes[len(PLANES) + n - 1] = mask.view(np.int8)  # bool as 0/1 bytes: a plain copy
            self._set_state(n, HINT_HEARD if e.truthful is None else (HINT_TRUE if e.truthful else HINT_FALSE))

    def _on_verified(self, e: ev.HintVerified) -> None:
        if e.number <= self.max_hints:
            self._set_state(e.number, HINT_TRUE if e.truthful else HINT_FALSE)

    def _set_state(self, number: int, state: int) -> None:
        self.hint_state[number - 1] = state
        self._heard[number - 1] = state == HINT_HEARD

    def _on_end(self, e: ev.GameEnded) -> None:
        self.ended = True

    def ready(self) -> None:
        """The agent is asked to act: the game goes on (see `Knowledge.game_goes_on`)."""
        self.knowledge.game_goes_on()

    def observation(self, actions_left: int) -> dict[str, object]:
        k = self.knowledge
        if k.candidates is not self._candidates:  # Knowledge makes a new array whenever they change
            self._candidates = k.candidates
            self.planes[0] = self._candidates.view(np.int8)
        places = (k.position, k.prison, k.pirate)
        if places != self._places:
            self._set_places(places)
        planes = self.planes.copy()  # one copy; the arrays below are views of it
        small = self._small.copy()  # and one for the int64 arrays
        n, mh = len(PLANES), self.max_hints
        return {
            "candidates": planes[0], "scanned": planes[1], "walkable": planes[2],
            "mountain": planes[3], "prison": planes[4], "hints": planes[n:],
            "hint_state": small[:mh],
            "regions": self.island.regions.copy(),
            "position": small[mh:mh + 2], "prison_pos": small[mh + 2:mh + 4], "pirate": small[mh + 4:],
            "turn": min(k.turn, self.max_turns),
            "actions_left": actions_left,
            "teleport_available": int(not k.teleport_used),
        }

    def _set_places(self, places: tuple) -> None:
        self._places = places
        position, prison, pirate = places
        mh = self.max_hints
        self._small[mh:] = (*(position if position is not None else (0, 0)),
                            *(prison if prison is not None else (-1, -1)),
                            *(pirate if pirate is not None else (-1, -1)))

    def action_mask(self) -> np.ndarray:
        """The legal action indices now, as a new int8 array."""
        k = self.knowledge
        if self.ended or k.position is None:
            return np.zeros(self.codec.n, dtype=np.int8)
        return self.codec.mask_from(self._heard, k.position, k.teleport_used)


_ON_EVENT = {ev.AreaScanned: Encoder._on_scan, ev.HintGiven: Encoder._on_hint,
             ev.HintVerified: Encoder._on_verified, ev.GameEnded: Encoder._on_end}
