"""The pirate's draw tests redrawn parameters with scalar tests and Python-int tables instead of
building a Hint per redraw; here against the straightforward draw, kept as the reference."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.hint_draw import MAX_PARAM_DRAWS, _Drawer, draw_hint
from treasure_cli.rules.hint_kinds import KIND_WEIGHTS, HintContext
from treasure_cli.rules.hint_params import _rect_bounds, _rect_size_counts, available_kinds
from treasure_cli.rules.hints import FIXED_KINDS, HINT_CLASSES, HintKind

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class _ReferenceDrawer(_Drawer):
    """The draws as first written: numpy tables per call, a Hint built for every redraw."""

    def rectangle(self, kind):
        h, w = self.island.shape
        lo, hi = _rect_bounds(self.island, kind)
        cum = np.cumsum(_rect_size_counts(h, w, lo, hi))
        k = self._int(0, int(cum[-1]) - 1)
        i = int(np.searchsorted(cum, k, side="right"))
        rh = i + 1
        rw = max(1, -(-lo // rh)) + k - (int(cum[i - 1]) if i else 0)
        top, left = self._int(0, h - rh), self._int(0, w - rw)
        return top, left, top + rh - 1, left + rw - 1

    def regions(self, lo, hi):
        regs = self.island.land_regions
        n = self._int(lo, min(hi, len(regs)))
        return tuple(int(x) for x in self.rng.choice(regs, size=n, replace=False))


def reference_choose_kind(kinds, rng):
    cum = np.cumsum([KIND_WEIGHTS[k] for k in kinds])
    i = int(np.searchsorted(cum, rng.random() * cum[-1], side="right"))
    return kinds[min(i, len(kinds) - 1)]


def reference_draw_hint(island, treasure, ctx, truthful, rng):
    drawer = _ReferenceDrawer(island, ctx, rng)
    kinds = list(available_kinds(island, ctx))
    while kinds:
        kind = reference_choose_kind(kinds, rng)
        for _ in range(1 if kind in FIXED_KINDS else MAX_PARAM_DRAWS):
            hint = drawer.draw(kind)
            if hint.holds_for(island, treasure) == truthful:
                return hint
        kinds.remove(kind)
    return drawer.fallback(treasure, truthful)


islands = st.tuples(st.integers(5, 24), st.integers(5, 24), st.integers(0, 2**32 - 1))


def make_island(case):
    w, h, seed = case
    return generate_island(w, h, rng=np.random.default_rng(seed)), np.random.default_rng(seed + 1)


@SETTINGS
@given(islands, st.integers(0, 2**32 - 1))
def test_draws_equal_the_reference_draw_and_use_the_same_random_numbers(case, seed):
    island, rng = make_island(case)
    land = np.argwhere(island.land)
    walk = np.argwhere(island.walkable)
    for turn in range(1, 12):
        treasure = tuple(int(x) for x in land[rng.integers(len(land))])
        agent = tuple(int(x) for x in walk[rng.integers(len(walk))])
        ctx = HintContext(turn, island.prisons[0], agent, bool(rng.integers(2)))
        truthful = bool(rng.integers(2))
        fast, slow = np.random.default_rng([seed, turn]), np.random.default_rng([seed, turn])
        got = draw_hint(island, treasure, ctx, truthful, fast)
        assert got == reference_draw_hint(island, treasure, ctx, truthful, slow)
        assert got.holds_for(island, treasure) == truthful
        assert fast.random() == slow.random()  # the same amount drawn


@SETTINGS
@given(islands, st.sampled_from(sorted(set(HintKind) - FIXED_KINDS)))
def test_scalar_tests_answer_holds_for(case, kind):
    island, rng = make_island(case)
    ctx = HintContext(5, island.prisons[0], (0, 0), True)
    drawer = _Drawer(island, ctx, rng)
    if kind not in available_kinds(island, ctx):
        return
    h, w = island.shape
    for _ in range(20):
        args = drawer.params(kind)
        hint = HINT_CLASSES[kind](*args)
        for _ in range(10):
            tile = (int(rng.integers(h)), int(rng.integers(w)))  # any tile, land or sea
            assert drawer.tester(kind, tile)(args) == hint.holds_for(island, tile), (hint, tile)


def test_the_module_s_kind_names_are_the_kinds_of_those_names():
    # hint_params unpacks HintKind into module globals by position: a new or reordered kind must not shift them.
    from treasure_cli.rules import hint_params

    assert all(getattr(hint_params, kind.name) is kind for kind in HintKind)


def test_kind_1_tiles_are_the_same_from_the_list_and_the_array(monkeypatch):
    """Small maps read kind 1's land tiles from a Python list, big ones from the array: the
    same tiles for the same draws."""
    from treasure_cli.rules import hint_params, seeds

    island = generate_island(20, 20, rng=np.random.default_rng(3))
    ctx = HintContext(3, island.prisons[0], (0, 0), True)

    def kind_1_draws(pool_list_max: int) -> list:
        monkeypatch.setattr(hint_params, "_POOL_LIST_MAX", pool_list_max)
        facts = hint_params._IslandFacts(island)  # a fresh one: the pool is kept per facts
        drawer = hint_params.ParamDrawer(island, ctx, seeds.draws(5, seeds.HINTS, 1))
        drawer.facts = facts
        return [drawer.params(HintKind.NOT_TILES) for _ in range(200)]

    listed, arrays = kind_1_draws(1 << 16), kind_1_draws(0)
    assert listed == arrays and all(type(r) is int for tiles, in listed for tile in tiles for r in tile)


def rule_big_sides(m: int) -> list[int]:
    """Kind 14's big sides as RULES §7 says, in exact arithmetic: 30-70 % of m = min(W, H), and
    room for the small square strictly inside (a side of 3 or more)."""
    return [side for side in range(3, m + 1) if Fraction(3, 10) * m <= side <= Fraction(7, 10) * m]


def test_kind_14s_big_side_range_is_30_to_70_percent_of_the_smaller_side():
    from treasure_cli.rules.hint_params import _big_side_range_hw

    for m in range(1, 1001):
        lo, hi = _big_side_range_hw(m, m + 7)
        assert list(range(lo, hi + 1)) == rule_big_sides(m), m
    assert rule_big_sides(4) == [] and rule_big_sides(5) == [3] and rule_big_sides(64) == list(range(20, 45))


def reference_island_kinds(island):
    """The island's possible kinds as first written: every condition read from the island."""
    from treasure_cli.rules.hint_params import _rect_cum

    h, w = island.shape
    touching = bool(island.adjacent_pairs)
    possible = {
        HintKind.IN_REGIONS: len(island.land_regions) >= 2,
        HintKind.NOT_REGIONS: len(island.land_regions) >= 1,
        HintKind.IN_RECTANGLE: _rect_cum(h, w, HintKind.IN_RECTANGLE)[-1] > 0,
        HintKind.NOT_RECTANGLE: _rect_cum(h, w, HintKind.NOT_RECTANGLE)[-1] > 0,
        HintKind.PAIR_BOUNDARY: touching,
        HintKind.ANY_BOUNDARY: touching,
        HintKind.NEAR_SEA: bool(island.sea.any()),
        HintKind.NOT_HALF: h >= 2 or w >= 2,
        HintKind.BETWEEN_SQUARES: bool(rule_big_sides(min(h, w))),
        HintKind.MOUNTAIN_REGIONS: bool(island.mountain_regions),
    }
    return tuple(kind for kind in HintKind if possible.get(kind, True))


@SETTINGS
@given(st.tuples(st.integers(1, 24), st.integers(1, 24), st.integers(0, 2**32 - 1)),
       st.sampled_from([{}, {"mountains": 0}, {"regions": 1}, {"sea": False}]))
def test_kinds_kept_per_condition_are_the_island_s_own(case, options):
    """The kinds and their weights are cached by shape and five yes/no facts: each island
    still gets the kinds its own conditions allow, and the weights of exactly those."""
    from treasure_cli.rules.hint_params import _IslandFacts, _cum_weights
    from treasure_cli.rules.island import Island

    w, h, seed = case
    rng = np.random.default_rng(seed)
    regions = rng.integers(0, 4, size=(h, w)).astype(np.int32)
    if options.get("regions") == 1:
        regions[regions > 1] = 1
    if options.get("sea") is False:
        regions[regions == 0] = 1
    mountain = (rng.random((h, w)) < 0.1) & (regions > 0) if options.get("mountains") != 0 else np.zeros((h, w), bool)
    island = Island(regions, mountain, np.zeros((h, w), bool), 3, 6)
    facts = _IslandFacts(island)
    want = reference_island_kinds(island)
    assert facts.kinds_after_reveal == want
    before = tuple(k for k in want if k is not HintKind.NEARER_THAN_PRISON)
    assert facts.kinds_before_reveal == before
    assert facts.cum_weights[want] == _cum_weights(want)
    assert facts.cum_weights[before] == tuple(np.cumsum([KIND_WEIGHTS[k] for k in before]))
