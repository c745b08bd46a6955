"""The pirate's draw of a hint (RULES §7), given whether it must be true.

The draw follows RULES §7: the caller has decided the truth; a kind is chosen
by weight (rare kinds 0.5, others 1) among the kinds available now and
possible on this island; its parameters are drawn until the statement's truth
matches, at most MAX_PARAM_DRAWS times (once for kinds without random
parameters). A kind that fails is dropped for this hint and a kind is chosen
again among the rest, so at most 15 kind choices happen; if every kind fails,
a kind-1 hint is built to match directly (it always can). The kinds'
parameter draws and their availability are in hint_params.py.

How many candidates the pirate tries before one has his truth depends on
where the treasure is, and so does the draw's time. With `even=True` (paced
games, sandbox/pacing.py) the draw walks the whole sequence a draw would walk if
no candidate matched, every kind's every candidate and the fallback, and keeps
the first that matches: the same hint, since the sequence of random calls up
to that candidate is the same, and its work depends on the public island, the
turn and the turn's own stream only. The draws after the kept candidate come
from the turn's own stream (rules/seeds.py), which nothing else reads.
"""

from __future__ import annotations

import bisect
import itertools
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from treasure_cli.rules.grid import Pos
from treasure_cli.rules.hint_kinds import HintContext
from treasure_cli.rules.hint_params import (
    IN_REGIONS, NEAR_SEA, NOT_REGIONS, NOT_TILES, PAIR_BOUNDARY, ParamDrawer, _cum_weights, available_kinds,
)
from treasure_cli.rules.hints import FIXED_KINDS, HINT_CLASSES, Geometric, Hint, HintKind, InLine, NotTiles, PairBoundary
from treasure_cli.rules.island import Island

if TYPE_CHECKING:
    from treasure_cli.rules.draws import PyDraws

MAX_PARAM_DRAWS = 30


def choose_kind(kinds: Sequence[HintKind], rng: np.random.Generator | PyDraws,
                cum: Sequence[float] | None = None) -> HintKind:
    """One kind drawn by KIND_WEIGHTS among `kinds`; `cum`: their running weights if known."""
    if not kinds:
        raise ValueError("no hint kind to choose from")
    if cum is None:
        cum = _cum_weights(tuple(kinds))
    # bisect_right is searchsorted(side="right") without numpy's call cost.
    i = bisect.bisect_right(cum, rng.random() * cum[-1])
    return kinds[min(i, len(kinds) - 1)]


class _Tested:
    """What the draw keeps of the treasures it was given on one island: `_Drawer.tester`'s
    functions by (kind, treasure), and the treasures found to be land tiles (every hint of a
    game asks again). Kept with the referee's island object only (`Island.memo(own=True)`):
    the public copy an agent gets shares the terrain's tables, and must not lead to these."""

    def __init__(self, island: Island) -> None:
        self.testers: dict[tuple[HintKind, Pos], Callable[[tuple[Any, ...]], bool]] = {}
        self.land_treasures: set[Pos] = set()


def _tested(island: Island) -> _Tested:
    return island.memo("hint_draw treasures", _Tested, own=True)


class _Drawer(ParamDrawer):
    """ParamDrawer with the hints built and tested: `tester(kind)` gives a test of drawn
    arguments against the treasure made of a few integer comparisons (the same answer as
    the hint's own `holds_for`; tests/rules/test_hint_draw_fast.py), and `fallback` the
    kind-1 hint built to match."""

    def draw(self, kind: HintKind) -> Hint:
        return HINT_CLASSES[kind](*self.params(kind))

    def tester(self, kind: HintKind, treasure: Pos) -> Callable[[tuple[Any, ...]], bool]:
        """`make_tester(kind, treasure)`, kept for the island (a few dozen at most a game)."""
        testers = _tested(self.island).testers
        found = testers.get((kind, treasure))
        if found is None:
            if len(testers) >= 1024:  # (many treasures on one island: tests, not games)
                testers.clear()
            found = testers[kind, treasure] = self.make_tester(kind, treasure)
        return found

    def make_tester(self, kind: HintKind, treasure: Pos) -> Callable[[tuple[Any, ...]], bool]:
        """A function of `params(kind)` answering `draw(kind).holds_for(island, treasure)`.

        Geometric kinds use their class's own formula (`contains`) on the
        treasure tile; the others test what is fixed for this treasure, looked
        up once; kinds drawn only once (FIXED_KINDS) just build the hint.
        """
        isl = self.island
        r, c = treasure
        h, w = isl.shape
        cls = HINT_CLASSES[kind]
        if issubclass(cls, Geometric) and kind not in FIXED_KINDS:
            contains, negated, shape = cls.contains, cls._negated, (h, w)
            return lambda a: bool(contains(*a, r, c, shape)) != negated
        if kind is NOT_TILES:
            return lambda a: treasure not in a[0]
        if kind is IN_REGIONS or kind is NOT_REGIONS:
            here = int(isl.regions[r, c])
            if kind is IN_REGIONS:
                return lambda a: here in a[0]
            return lambda a: here not in a[0]
        if kind is PAIR_BOUNDARY:
            here, around, on_boundary = int(isl.regions[r, c]), isl.regions_around(r, c), PairBoundary.on_boundary
            return lambda a: on_boundary(a[0], a[1], here, around)
        if kind is NEAR_SEA:
            on_land, sea = bool(isl.land[r, c]), int(isl.sea_distance[r, c])
            return lambda a: on_land and sea <= a[0]
        # The tester is kept in the island's own memo: a weak reference, or the two would make a
        # cycle, and the island with all its tables would outlive its game until the cyclic
        # garbage collector came by (on a big map, hundreds of MB held after the game).
        island_ref = weakref.ref(isl)
        return lambda a: HINT_CLASSES[kind](*a).holds_for(cast("Island", island_ref()), treasure)

    def fallback(self, treasure: Pos, truthful: bool) -> Hint:
        """A kind-1 hint built to have the wanted truth; it always exists."""
        idx = treasure[0] * self.island.width + treasure[1]
        land = self.facts.land_tiles
        others = land[land != idx]
        if truthful:
            if not others.size:
                # The treasure is the only land tile: no other tile to list,
                # but its own row is a true statement.
                return InLine(treasure[0], None)
            return NotTiles(tuple(self.tiles_from(others, self._int(1, min(12, len(others))))))
        n = self._int(0, min(11, len(others)))
        return NotTiles((treasure, *self.tiles_from(others, n)))


def draw_hint(
    island: Island,
    treasure: Pos,
    ctx: HintContext,
    truthful: bool,
    rng: np.random.Generator | PyDraws,  # or the compiled Draws: the same methods
    kinds: HintSet | None = None,
    *,
    even: bool = False,
) -> Hint:
    """The pirate's hint (RULES §7) whose truth about `treasure` equals `truthful`, of one of
    `kinds` (by default the 15 built-in kinds at their weights). `even`: the same hint, with
    every candidate drawn and tested, so that the work does not depend on the treasure."""
    t = (int(treasure[0]), int(treasure[1]))
    drawer = _Drawer(island, ctx, rng)
    land_treasures = _tested(island).land_treasures
    if t not in land_treasures:
        if not island.inside(t) or not island.land[t]:
            raise ValueError(f"the treasure {t} is not a land tile of this map")
        land_treasures.add(t)
    if kinds is not None and not kinds.builtin_only:
        return _draw_from(kinds, drawer, t, truthful, even)
    open_kinds = available_kinds(island, ctx)
    cum: Sequence[float] | None = drawer.facts.cum_weights[open_kinds]  # kept: most hints take the first kind
    left = list(open_kinds)
    found: Hint | None = None  # (even) the first candidate that matched
    while left:
        kind = choose_kind(left, rng, cum)
        holds, draw_args = drawer.tester(kind, t), drawer.drawing(kind)
        for _ in range(1 if kind in FIXED_KINDS else MAX_PARAM_DRAWS):
            args = draw_args()
            if holds(args) == truthful:
                if not even:
                    return HINT_CLASSES[kind](*args)
                if found is None:
                    found = HINT_CLASSES[kind](*args)
        left.remove(kind)
        cum = None
    return _last(drawer, t, truthful, found)


def _last(drawer: _Drawer, t: Pos, truthful: bool, found: Hint | None) -> Hint:
    """The hint found, or the fallback when none was; the fallback is built either way, so
    that an even draw (which reaches this with a hint found) does the same work as one that
    found none."""
    fallback = drawer.fallback(t, truthful)
    return fallback if found is None else found


class GeneratorDraws:
    """The draws a hint kind is given (`random()`, `below(top)`, `sample(n, size)`, as
    rules/draws.py's `Draws`), made by a numpy Generator."""

    def __init__(self, rng: np.random.Generator, below: Callable[[int], int],
                 sample: Callable[[int, int], list[int]]) -> None:
        self.random, self.below, self.sample = rng.random, below, sample


class HintSet:
    """The kinds a game's pirate chooses from, each with its weight (docs/hints.md).

    The default (every built-in kind at its own weight) is drawn by draw_hint's
    own loop; any other set by `_draw_from`, which asks each kind through the
    hint-kind API only (`available`, `draw`, `holds_for`). Both follow RULES §7
    and make the same random calls for the same kinds and weights.
    """

    def __init__(self, kinds: Sequence[type[Hint]], weights: Sequence[float] | None = None,
                 recipe: tuple[Any, ...] | None = None) -> None:
        self.kinds = tuple(kinds)
        self.weights = tuple(float(w) for w in (weights if weights is not None else [k.weight for k in kinds]))
        if len(self.weights) != len(self.kinds):
            raise ValueError("one weight per hint kind")
        if any(not w > 0 for w in self.weights):  # (also NaN) a kind of weight 0 is left out, not listed
            raise ValueError("every hint kind of a set weighs more than 0")
        if not self.kinds:
            raise ValueError("a hint set needs at least one kind")
        self.builtin_only = (self.kinds == tuple(HINT_CLASSES.values())
                             and self.weights == tuple(k.weight for k in self.kinds))
        self._recipe = recipe  # (function, args) that rebuild it in another process

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.kinds)

    def __reduce__(self) -> tuple[Any, ...]:
        if self._recipe is not None:
            return self._recipe
        return (HintSet, (self.kinds, self.weights))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HintSet) and (self.kinds, self.weights) == (other.kinds, other.weights)

    def __hash__(self) -> int:
        return hash((self.kinds, self.weights))

    def __repr__(self) -> str:
        return "HintSet(" + ", ".join(f"{n}={w:g}" for n, w in zip(self.names, self.weights)) + ")"


BUILTIN_HINTS = HintSet(tuple(HINT_CLASSES.values()))


def _draw_from(kinds: HintSet, drawer: _Drawer, t: Pos, truthful: bool, even: bool = False) -> Hint:
    """draw_hint's loop over any set of kinds (RULES §7); `even` as draw_hint's. A plugin kind's
    own `draw` and `holds_for` may still take a time that depends on the treasure."""
    # A plugin kind sees the public island only (what its tile set is built from on the agent's side).
    island, ctx = drawer.island.public(), drawer.ctx
    rng: Any = drawer.rng
    if not hasattr(rng, "below"):  # a numpy Generator (tests, tools): the same three draws through it
        rng = GeneratorDraws(rng, drawer._below, drawer._sample)
    open_kinds = [(k, w) for k, w in zip(kinds.kinds, kinds.weights) if k.available(island, ctx)]
    found: Hint | None = None
    while open_kinds:
        cum = tuple(itertools.accumulate(w for _, w in open_kinds))
        i = min(bisect.bisect_right(cum, rng.random() * cum[-1]), len(open_kinds) - 1)
        cls = open_kinds[i][0]
        kind = getattr(cls, "kind", None)
        builtin = isinstance(kind, HintKind) and HINT_CLASSES.get(kind) is cls
        for _ in range(1 if cls.fixed else MAX_PARAM_DRAWS):
            if builtin:  # the built-in's fast draw and test: the same random calls as its `draw`
                args = drawer.drawing(kind)()  # type: ignore[arg-type]  # `builtin`: a HintKind
                if drawer.tester(kind, t)(args) == truthful:  # type: ignore[arg-type]
                    if not even:
                        return cls(*args)
                    if found is None:
                        found = cls(*args)
            else:
                hint = cls.draw(island, ctx, rng)
                if hint.holds_for(island, t) == truthful:
                    if not even:
                        return hint
                    if found is None:
                        found = hint
        del open_kinds[i]
    return _last(drawer, t, truthful, found)
