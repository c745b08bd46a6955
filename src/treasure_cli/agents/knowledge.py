"""What can be known from public events: the tiles that may still hold the treasure.

`Knowledge` folds the public event stream into hard facts: the map (the
treasure is on plain land), hint 1 and every verified hint, every empty scan,
the prison once revealed, and the pirate's walk once he is free (each move
keeps him on a shortest path to the treasure). The agents build on it, and
the replay uses the same class to show what the agent had ruled out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from treasure_cli.rules import events as ev
from treasure_cli.rules.actions import scan_square
from treasure_cli.agents.mass_kernel import bounding_box, count_both
from treasure_cli.rules.grid import Direction, Pos
from treasure_cli.rules.hints import Hint
from treasure_cli.rules.island import Island
from treasure_cli.rules.pirate import PrisonRoutes, prison_routes

if TYPE_CHECKING:
    from treasure_cli.rules.observation import Observation


FIELD_CACHE_BYTES = 256 << 20


class Knowledge:
    # The `_on_<EventType>` handler of each event type, looked up once per class (events are many).
    _handlers: ClassVar[dict[type, Callable[[Knowledge, Any], None] | None]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._handlers = {}  # a subclass may define other handlers

    def __init__(self, island: Island, tie_break: bool = True):
        """`tie_break=False` uses only "he walks a shortest path" (for comparison in the bench)."""
        self.island = island
        self.tie_break = tie_break
        # Replaced by a new array whenever they change, never changed in place: a caller
        # may keep an array, and what it derived from it while it is still this one.
        self.candidates: np.ndarray = island.walkable & ~island.prison & island.prison_reach
        self.hints: list[Hint] = []
        # Tile sets of open hints (unverified, not settled), built on first use.
        # A verified or settled hint keeps none: a map-sized mask per hint adds
        # up on big maps, and a replay need not build masks it never shows.
        self._masks: dict[int, np.ndarray] = {}
        self._closed: set[int] = set()
        # Hint numbers in order, while unverified / while open (not closed): the agents'
        # every action reads them, and a long game holds thousands of settled hints.
        self._unverified: dict[int, None] = {}
        self._open: dict[int, None] = {}
        self.verified: dict[int, bool] = {}
        self.turn = 0
        self.position: Pos | None = None
        self.teleport_used = False
        self.prison: Pos | None = None
        self.pirate: Pos | None = None
        self.pirate_steps = 0  # tiles walked since the prison
        self.pirate_free = False
        self._routes: PrisonRoutes | None = None  # his shortest walks, once his prison is known
        self._last_steps: set[Direction | None] = {None}  # the pirate's possible last direction
        self._fields: dict[Pos, np.ndarray] = {}
        # 32 fields, or fewer on big maps: at most FIELD_CACHE_BYTES (a field is 4 bytes a tile).
        self._max_fields = max(4, min(32, FIELD_CACHE_BYTES // (4 * island.regions.size)))

    # -- queries ------------------------------------------------------------
    @property
    def count(self) -> int:
        return int(self.candidates.sum())

    def unverified(self) -> list[int]:
        return list(self._unverified)

    def open_hints(self) -> list[int]:
        """The numbers, in order, of the hints whose verification could still tell something:
        unverified and not settled (those `open_mask` gives a mask for)."""
        return list(self._open)

    # -- updates ------------------------------------------------------------
    def update(self, event: ev.Event) -> None:
        kind = type(event)
        try:
            handler = self._handlers[kind]
        except KeyError:
            handler = self._handlers[kind] = getattr(type(self), "_on_" + kind.__name__, None)
        if handler is not None:
            handler(self, event)

    def update_all(self, events: Iterable[ev.Event]) -> None:
        handlers = self._handlers  # `update`, inlined: an action brings a few events
        for e in events:
            kind = type(e)
            try:
                handler = handlers[kind]
            except KeyError:
                handler = handlers[kind] = getattr(type(self), "_on_" + kind.__name__, None)
            if handler is not None:
                handler(self, e)

    def restrict(self, mask: np.ndarray) -> None:
        self.candidates = self.candidates & mask  # a new array: callers may keep the old one

    def _on_AgentPlaced(self, e: ev.AgentPlaced) -> None:
        self.position = e.pos

    def _on_TurnStarted(self, e: ev.TurnStarted) -> None:
        self.turn = e.turn

    def _on_HintGiven(self, e: ev.HintGiven) -> None:
        self.hints.append(e.hint)
        number = e.number
        self._unverified[number] = None
        if number not in self._closed:
            self._open[number] = None
        if e.truthful is not None:  # hint 1, or every hint for the oracle
            self._learn(e.number, e.truthful)

    def _on_HintVerified(self, e: ev.HintVerified) -> None:
        self._learn(e.number, e.truthful)

    def _learn(self, number: int, truthful: bool) -> None:
        self.verified[number] = truthful
        self._unverified.pop(number, None)
        s = self._masks.get(number)
        if s is not None:
            self.restrict(s if truthful else ~s)
        else:
            # Only the tiles around the candidates can change: once they are
            # few (a replay's later turns), the hint's set is built on their
            # bounding box, not on the whole map.
            found = bounding_box(self.candidates)
            # A new array (callers may keep the old one); np.zeros leaves the
            # pages outside the box untouched, where zeros_like writes them all.
            candidates = np.zeros(self.candidates.shape, dtype=bool)
            if found is not None:
                top, bottom, left, right = found
                box = np.s_[top:bottom, left:right]
                s = self.hints[number - 1].mask(self.island, box)
                candidates[box] = self.candidates[box] & (s if truthful else ~s)
            self.candidates = candidates
        self.settle(number)

    def open_mask(self, number: int) -> np.ndarray | None:
        """The tile set of hint `number` while verifying it could still tell something
        (built once and kept); None once it is verified or settled."""
        if number in self._closed:
            return None
        mask = self._masks.get(number)
        if mask is None:
            mask = self._masks[number] = self.tile_set(self.hints[number - 1])
        return mask

    def settle(self, number: int) -> None:
        """Close hint `number`: the candidates lie all inside its set or all outside.

        Candidates only shrink, so a settled hint stays settled: verifying it
        could tell nothing new. Its mask is dropped; `hint_mask` rebuilds it.
        """
        self._closed.add(number)
        self._open.pop(number, None)
        self._masks.pop(number, None)

    def hint_mask(self, number: int) -> np.ndarray:
        """Hint `number`'s tile set, whatever its state (built anew if not kept)."""
        mask = self._masks.get(number)
        return mask if mask is not None else self.tile_set(self.hints[number - 1])

    def tile_set(self, hint: Hint) -> np.ndarray:
        """A hint's tile set on this island, for reading only (every hint mask is built here;
        a subclass may take it from a cache)."""
        return hint.mask(self.island)

    def _on_AgentMoved(self, e: ev.AgentMoved) -> None:
        self.position = e.dst

    def _on_Teleported(self, e: ev.Teleported) -> None:
        self.position = e.dst
        self.teleport_used = True

    def _on_AreaScanned(self, e: ev.AreaScanned) -> None:
        square = scan_square(e.centre, e.size)
        rows, cols = square
        cand = self.candidates
        # (a square without candidates changes nothing)
        if not e.found and count_both(cand, cand, rows.start, rows.stop, cols.start, cols.stop):
            self.candidates = self.candidates.copy()  # a new array: callers may keep the old one
            self.candidates[square] = False

    def _on_PrisonRevealed(self, e: ev.PrisonRevealed) -> None:
        self._set_prison(e.pos)

    def _set_prison(self, pos: Pos) -> None:
        if self.prison is None:
            self.prison = pos
            self.restrict(self.island.reach_of(pos))

    def _on_PirateFreed(self, e: ev.PirateFreed) -> None:
        self.pirate_free = True

    def distance_from(self, pos: Pos) -> np.ndarray:
        """Walking distance field from `pos`, cached (the pirate's moves reuse tiles): steps to
        every tile, and -1 on the tiles that cannot be reached from `pos` (sea, mountains,
        other pieces of land). Compare with >= 0 before using a distance."""
        field = self._fields.get(pos)
        if field is None:
            if len(self._fields) >= self._max_fields:
                self._fields.clear()
            field = self._fields[pos] = self.island.walk_distance([pos])
        return field

    def pirate_distance(self, box: tuple[slice, slice]) -> np.ndarray:
        """Walking distance from the pirate (once he has moved) over the rows and columns of `box`,
        exact on the candidates only: elsewhere any number, -1 included.

        The candidates lie on shortest walks from his prison through his tile, so
        their distance from him is their distance from the prison less his steps:
        a slice of a field kept for the game, where a search per move cost the
        tiles of the island each time (a snake's thousands of moves, issue 23).
        """
        routes, pirate = self._routes, self.pirate
        assert pirate is not None, "pirate_distance is asked once the pirate has moved"
        if routes is not None and routes.distance[pirate] == self.pirate_steps:
            return routes.distance[box] - self.pirate_steps
        return self.distance_from(pirate)[box]

    def _on_PirateMoved(self, e: ev.PirateMoved) -> None:
        if self.pirate is None:
            self._set_prison(e.src)  # freed before the reveal: he starts in his prison
            self._routes = prison_routes(self.island, self.prison)  # type: ignore[arg-type]  # set just above
        routes = self._routes
        assert routes is not None  # set when his prison was known, or just above
        steps = self.pirate_steps + abs(e.dst[0] - e.src[0]) + abs(e.dst[1] - e.src[1])
        # He walks the rule's shortest path: keep the tiles t for which the rule
        # would have walked exactly this move (see PrisonRoutes.consistent_treasures).
        allowed, self._last_steps = routes.consistent_treasures(e.src, e.dst, self.pirate_steps, self._last_steps)
        if self.tie_break:
            self.restrict(allowed)
        else:  # only "he is on a shortest walk to the treasure"
            self.restrict(routes.on_route(e.dst, steps))
        self.pirate_steps = steps
        self.pirate = e.dst

    def observe(self, obs: Observation) -> None:
        """Fold in what an Observation brings: its news, and that the game goes on.

        An agent that keeps a Knowledge calls this once at the start of every
        `act(obs)`; it is all the feeding a Knowledge needs.
        """
        self.update_all(obs.news)
        self.game_goes_on()

    def game_goes_on(self) -> None:
        """Called when the agent is asked to act: the pirate is not standing on the treasure."""
        if self.pirate is not None and self.candidates[self.pirate]:
            self.candidates = self.candidates.copy()
            self.candidates[self.pirate] = False
