"""The built-in hint kinds' parameter draws and when each kind is available (RULES §7).

The pirate's draw (hint_draw.py) and each built-in kind's own `draw` (hints.py)
draw a kind's parameters here, with the same random calls. The distributions
(all from the caller's generator):

1  NOT_TILES        1–12 distinct land tiles, uniform without replacement.
2  IN_REGIONS       2–5 distinct land regions (count uniform, then regions).
3  NOT_REGIONS      1–3 distinct land regions.
4  IN_RECTANGLE     a size (h, w) uniform over every size with area in
                    [⌈25 % · W·H⌉, ⌊50 % · W·H⌋] that fits the map, then a
                    uniform position fully inside the map.
5  NOT_RECTANGLE    the same with area in [⌈4 %⌉ (at least 1), ⌊16 %⌋].
6  NEARER_THAN_PRISON  no randomness: the agent's and the prison's positions
                    at the time; only from the reveal turn r on.
7  IN_LINE (rare)   a row (45 %), a column (45 %) or both (10 %), uniform.
8  NOT_LINE         as 7.
9  PAIR_BOUNDARY    a uniform pair among the adjacent land-region pairs.
10 ANY_BOUNDARY     no parameters.
11 NEAR_SEA         k uniform in {2, 3}.
12 NOT_HALF (rare)  a half uniform among top/bottom (if H ≥ 2) and
                    left/right (if W ≥ 2); top = rows < H//2, bottom =
                    rows ≥ H − H//2, so an odd middle row is in neither.
13 DIRECTION        one of 8 compass directions, uniform; origin the map
                    centre (H//2, W//2), or from the reveal on the prison
                    with probability 1/2.
14 BETWEEN_SQUARES (rare)  big side uniform in [max(3, ⌈30 % · m⌉),
                    ⌊70 % · m⌋], m = min(W, H) (possible from m = 5), at a
                    uniform position inside the map; small side uniform in
                    [1, big − 2] at a uniform position inside the big
                    square's interior (never touching its border).
15 MOUNTAIN_REGIONS no parameters.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from treasure_cli.rules.grid import Pos
from treasure_cli.rules.hint_kinds import KIND_WEIGHTS, Compass, Half, HintContext, HintKind, Origin
from treasure_cli.rules.island import Island

# The kinds as module globals: a draw compares kinds a few dozen times, and a
# global is found about five times faster than a member of the enum class
# (and iterating over a tuple of them ~30 times faster than over the class).
ALL_KINDS: tuple[HintKind, ...] = tuple(HintKind)
(NOT_TILES, IN_REGIONS, NOT_REGIONS, IN_RECTANGLE, NOT_RECTANGLE, NEARER_THAN_PRISON, IN_LINE, NOT_LINE,
 PAIR_BOUNDARY, ANY_BOUNDARY, NEAR_SEA, NOT_HALF, DIRECTION, BETWEEN_SQUARES, MOUNTAIN_REGIONS) = ALL_KINDS


def _rect_size_counts(h: int, w: int, lo: int, hi: int) -> np.ndarray:
    """For each height 1..h, how many widths give an area in [lo, hi]."""
    hs = np.arange(1, h + 1)
    wmin = np.maximum(1, -(-lo // hs))
    wmax = np.minimum(w, hi // hs)
    return np.maximum(0, wmax - wmin + 1)  # type: ignore[no-any-return]


def _rect_bounds(island: Island, kind: HintKind) -> tuple[int, int]:
    return _area_bounds(island.height * island.width, kind)


def _area_bounds(area: int, kind: HintKind) -> tuple[int, int]:
    if kind is IN_RECTANGLE:
        return -(-area // 4), area // 2            # 25 % .. 50 %
    return max(1, -(-area // 25)), (4 * area) // 25  # 4 % .. 16 %


@functools.lru_cache(maxsize=64)
def _rect_cum(h: int, w: int, kind: HintKind) -> tuple[int, ...]:
    """Cumulative counts of admissible rectangle sizes by height, as Python ints (a bisect on
    a list beats np.searchsorted on a tiny array); the same for every island of a shape."""
    return tuple(itertools.accumulate(int(n) for n in _rect_size_counts(h, w, *_area_bounds(h * w, kind))))


@functools.lru_cache(maxsize=64)
def _rect_tables(h: int, w: int) -> tuple[dict[HintKind, tuple[int, ...]], dict[HintKind, int]]:
    """Kinds 4 and 5's running size counts (`_rect_cum`) and smallest areas on an h x w map
    (the same for every island of a shape; read only)."""
    kinds = (IN_RECTANGLE, NOT_RECTANGLE)
    return ({kind: _rect_cum(h, w, kind) for kind in kinds}, {kind: _area_bounds(h * w, kind)[0] for kind in kinds})


def _big_side_range(island: Island) -> tuple[int, int]:
    return _big_side_range_hw(island.height, island.width)


def _big_side_range_hw(h: int, w: int) -> tuple[int, int]:
    """The big square's sides allowed: 30-70 % of m = min(W, H) (RULES §7), in integers to avoid
    float edge cases, and at least 3 (the small square, 1 tile or more, lies strictly inside).
    Empty (lo > hi) when no side is both: below m = 5."""
    m = min(h, w)
    return max(3, -(-3 * m // 10)), 7 * m // 10


def available_kinds(island: Island, ctx: HintContext) -> tuple[HintKind, ...]:
    """Kinds the pirate may choose now on this island, in kind order."""
    facts = _facts(island)
    return facts.kinds_after_reveal if ctx.prison_revealed else facts.kinds_before_reveal


class _IslandFacts:
    """What the draw needs of an island that is the same every turn: made once per island
    (`Island.memo`)."""

    def __init__(self, island: Island):
        self._land = island.land
        kinds = _island_kinds(island)
        self.kinds_after_reveal = kinds
        self.kinds_before_reveal, self.cum_weights = _kind_tables(kinds)
        self.land_regions = list(island.land_regions)
        h, w = island.shape
        self.rect_cum, self.rect_least = _rect_tables(h, w)
        self.halves = _HALVES[h >= 2, w >= 2]

    @functools.cached_property
    def land_tiles(self) -> np.ndarray:
        """The land tiles' flat indices (for kind 1 only: made when first drawn). An array, not a
        list: a draw reads at most 12 of them, and a 4096x4096 map has millions."""
        return np.flatnonzero(self._land)

    @functools.cached_property
    def land_pool(self) -> list[int] | np.ndarray:
        """land_tiles as a list of Python ints on maps of up to _POOL_LIST_MAX land tiles: a
        false kind-1 statement is redrawn up to 30 times, 12 tiles each, and reading a list
        costs a fraction of reading numpy scalars (the array on bigger maps: no huge list)."""
        tiles = self.land_tiles
        return tiles.tolist() if tiles.size <= _POOL_LIST_MAX else tiles


# The halves kind 12 may name, by (H >= 2, W >= 2) (enum members are slow to reach).
_HALVES = {(rows, cols): (Half.TOP, Half.BOTTOM) * rows + (Half.LEFT, Half.RIGHT) * cols
           for rows in (False, True) for cols in (False, True)}


_POOL_LIST_MAX = 1 << 16  # land tiles kept as a Python list for kind 1 (up to ~2.5 MB of ints)


def _facts(island: Island) -> _IslandFacts:
    return island.memo("hint_draw", _IslandFacts)


def _island_kinds(island: Island) -> tuple[HintKind, ...]:
    """The kinds possible on this island at all (kind 6 also waits for the reveal)."""
    h, w = island.shape
    n_land_regions = len(island.land_regions)
    return _possible_kinds(h, w, n_land_regions >= 2, n_land_regions >= 1,
                           bool(island.adjacent_pairs),  # no touching regions: S would be empty
                           bool(np.count_nonzero(island.sea)),  # (ndarray.any's Python wrapper costs more)
                           bool(island.mountain_regions))


@functools.lru_cache(maxsize=256)  # a few shapes, each with a few combinations: made once, not per island
def _possible_kinds(h: int, w: int, two_regions: bool, one_region: bool, touching: bool, sea: bool,
                    mountains: bool) -> tuple[HintKind, ...]:
    possible = {  # each condition once (kinds not listed are always possible)
        IN_REGIONS: two_regions,
        NOT_REGIONS: one_region,
        IN_RECTANGLE: _rect_cum(h, w, IN_RECTANGLE)[-1] > 0,
        NOT_RECTANGLE: _rect_cum(h, w, NOT_RECTANGLE)[-1] > 0,
        PAIR_BOUNDARY: touching,
        ANY_BOUNDARY: touching,
        NEAR_SEA: sea,
        NOT_HALF: h >= 2 or w >= 2,
        BETWEEN_SQUARES: _big_side_range_hw(h, w)[0] <= _big_side_range_hw(h, w)[1],
        MOUNTAIN_REGIONS: mountains,
    }  # kind 6 depends on the turn: available_kinds checks it
    return tuple(kind for kind in ALL_KINDS if possible.get(kind, True))


@functools.lru_cache(maxsize=64)
def _kind_tables(kinds: tuple[HintKind, ...]) -> tuple[tuple[HintKind, ...], dict[tuple[HintKind, ...], Any]]:
    """For an island's kinds: those before the reveal (no kind 6), and the running weights of
    both lists by list (shared by the islands with these kinds; read only)."""
    before = tuple(k for k in kinds if k is not NEARER_THAN_PRISON)
    return before, {kinds: _cum_weights(kinds), before: _cum_weights(before)}


@functools.lru_cache(maxsize=64)  # a handful of kind lists, shared by every island
def _cum_weights(kinds: tuple[HintKind, ...]) -> tuple[float, ...]:
    # Running sums in Python floats: the weights are halves and ones, so every sum is exact
    # and equal to np.cumsum's.
    return tuple(itertools.accumulate(KIND_WEIGHTS[k] for k in kinds))


_COMPASS = list(Compass)


class ParamDrawer:
    """Random parameters for each built-in kind on one island, for one hint.

    `params(kind)` draws the arguments of the kind's Hint class without
    building it: the pirate redraws up to hint_draw.MAX_PARAM_DRAWS times per
    kind, and building a Hint for every redraw was most of the cost of a turn
    (hint_draw's drawer adds the tests of such arguments against the
    treasure). The random calls are those of the kind's own `draw`, in the
    same order (tests/rules/test_hint_draw_fast.py checks both).
    """

    def __init__(self, island: Island, ctx: HintContext, rng: Any) -> None:  # a numpy Generator or a Draws
        self.island = island
        self.ctx = ctx
        self.rng = rng
        # A uniform int in [0, top]: Draws' own bounded draw, one call (the redraw
        # loops make thousands); the same number as rng.integers(0, top + 1).
        below = getattr(rng, "below", None)
        self._below = below if below is not None else (lambda top: int(rng.integers(0, top + 1)))
        # Indices of `size` distinct items out of n, as rng.choice(items, size, replace=False)
        # picks them: Draws' own, on Python ints (kind 1 redraws make many).
        sample = getattr(rng, "sample", None)
        self._sample = sample if sample is not None else (
            lambda n, size: rng.choice(n, size=size, replace=False).tolist())
        self.facts = _facts(island)

    def _int(self, lo: int, hi: int) -> int:
        """Uniform integer in [lo, hi], both inclusive."""
        return lo + self._below(hi - lo)

    def tiles_from(self, pool: np.ndarray | list[int], n: int) -> list[Pos]:
        """n distinct tiles of `pool` (flat indices), as rng.choice(pool, n, replace=False) takes them."""
        w = self.island.width
        picked = self._sample(len(pool), n)
        if isinstance(pool, list):
            return [divmod(pool[i], w) for i in picked]
        return [divmod(int(pool[i]), w) for i in picked]

    def regions(self, lo: int, hi: int) -> tuple[int, ...]:
        regs = self.facts.land_regions
        n = self._int(lo, min(hi, len(regs)))
        return tuple(regs[i] for i in self._sample(len(regs), n))

    def rectangle(self, kind: HintKind) -> tuple[int, int, int, int]:
        h, w = self.island.shape
        below = self._below  # _int(0, n) is below(n): one call less in a hot loop
        lo = self.facts.rect_least[kind]
        cum = self.facts.rect_cum[kind]
        # Uniform over all admissible (height, width) pairs.
        k = below(cum[-1] - 1)
        i = bisect.bisect_right(cum, k)
        rh = i + 1
        first_w = max(1, -(-lo // rh))
        rw = first_w + k - (cum[i - 1] if i else 0)
        top, left = below(h - rh), below(w - rw)
        return top, left, top + rh - 1, left + rw - 1

    def not_tiles(self) -> list[Pos]:
        """Kind 1's parameters: 1 to 12 distinct land tiles."""
        land = self.facts.land_pool
        return self.tiles_from(land, self._int(1, min(12, len(land))))

    def line(self) -> tuple[int | None, int | None]:
        u = self.rng.random()
        row = self._below(self.island.height - 1)
        col = self._below(self.island.width - 1)
        if u < 0.45:
            return row, None
        if u < 0.90:
            return None, col
        return row, col

    def params(self, kind: HintKind) -> tuple[Any, ...]:
        """The arguments of HINT_CLASSES[kind] for one draw."""
        return self.drawing(kind)()

    def drawing(self, kind: HintKind) -> Callable[[], tuple[Any, ...]]:
        """A function making `params(kind)`, a new draw at each call: the pirate redraws
        up to MAX_PARAM_DRAWS times, and the kind's branch is found once for all of them."""
        isl, ctx, integer = self.island, self.ctx, self._int
        if kind is NOT_TILES:
            return lambda: (tuple(self.not_tiles()),)
        if kind is IN_REGIONS:
            return lambda: (self.regions(2, 5),)
        if kind is NOT_REGIONS:
            return lambda: (self.regions(1, 3),)
        if kind is IN_RECTANGLE or kind is NOT_RECTANGLE:
            return lambda: self.rectangle(kind)
        if kind is NEARER_THAN_PRISON:
            return lambda: (ctx.agent, ctx.prison)
        if kind is IN_LINE or kind is NOT_LINE:
            return self.line
        if kind is PAIR_BOUNDARY:
            pairs = isl.adjacent_pairs
            return lambda: pairs[integer(0, len(pairs) - 1)]
        if kind is ANY_BOUNDARY or kind is MOUNTAIN_REGIONS:
            return lambda: ()
        if kind is NEAR_SEA:
            return lambda: (integer(2, 3),)
        if kind is NOT_HALF:
            halves = self.facts.halves
            return lambda: (halves[integer(0, len(halves) - 1)],)
        if kind is DIRECTION:
            return self.direction
        if kind is BETWEEN_SQUARES:
            return self.squares
        raise AssertionError(kind)

    def direction(self) -> tuple[Any, ...]:
        """Kind 13's parameters: a compass direction from the centre, or from the revealed prison."""
        isl, ctx = self.island, self.ctx
        direction = _COMPASS[self._int(0, len(_COMPASS) - 1)]
        if ctx.prison_revealed and self.rng.random() < 0.5:
            return (direction, ctx.prison, Origin.PRISON)
        return (direction, (isl.height // 2, isl.width // 2), Origin.CENTRE)

    def squares(self) -> tuple[Any, ...]:
        """Kind 14's parameters: a big square and a small one inside it."""
        isl = self.island
        lo, hi = _big_side_range(isl)
        big = self._int(lo, hi)
        bt, bl = self._int(0, isl.height - big), self._int(0, isl.width - big)
        small = self._int(1, big - 2)
        # Interior rows are bt+1 .. bt+big-2; the small square must fit there.
        st = self._int(bt + 1, bt + big - 1 - small)
        sl = self._int(bl + 1, bl + big - 1 - small)
        return (bt, bl, big, st, sl, small)
