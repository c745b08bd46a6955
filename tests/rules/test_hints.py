"""Hints: every kind's tile set on hand-worked maps, sentences, parsing, the draw."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_cli.rules.hint_draw import MAX_PARAM_DRAWS, _Drawer, choose_kind, draw_hint
from treasure_cli.rules.hint_kinds import KIND_WEIGHTS, RARE_KINDS, HintContext
from treasure_cli.rules.hint_params import available_kinds
from treasure_cli.rules.hints import (
    HINT_CLASSES,
    AnyBoundary,
    BetweenSquares,
    Compass,
    Geometric,
    Half,
    HintKind,
    InDirection,
    InLine,
    InRectangle,
    InRegions,
    MountainRegions,
    NearerThanPrison,
    NearSea,
    NotHalf,
    NotLine,
    NotRectangle,
    NotRegions,
    NotTiles,
    Origin,
    PairBoundary,
    parse_hint,
)
from treasure_cli.rules.island import Island


def grid(text: str) -> np.ndarray:
    """A bool mask from rows of '#' (in S) and '.' (not in S)."""
    rows = [line.strip() for line in text.strip().splitlines()]
    return np.array([[ch == "#" for ch in row] for row in rows], dtype=bool)


def island(regions, mountains=(), prisons=()) -> Island:
    reg = np.array(regions, dtype=np.int32)
    mountain = np.zeros(reg.shape, dtype=bool)
    prison = np.zeros(reg.shape, dtype=bool)
    for p in mountains:
        mountain[p] = True
    for p in prisons:
        prison[p] = True
    return Island(reg, mountain, prison, reveal_turn=2, free_turn=5)


# Map A, 5 rows x 7 columns (odd height and width). Mountain at (1, 4) in
# region 2, prison at (4, 4) in region 4, treasure at (3, 2) in region 3.
#      c0 c1 c2 c3 c4 c5 c6
MAP_A = island(
    [
        [0, 0, 0, 0, 0, 0, 0],  # r0
        [0, 1, 1, 2, 2, 0, 0],  # r1
        [0, 1, 3, 3, 2, 2, 0],  # r2
        [0, 3, 3, 3, 4, 2, 0],  # r3
        [0, 0, 0, 4, 4, 0, 0],  # r4
    ],
    mountains=[(1, 4)],
    prisons=[(4, 4)],
)
TREASURE_A = (3, 2)

# Map S, 9 x 9: one land region inside a sea frame, plus a one-tile lake at
# (2, 6) so Manhattan and not Chebyshev distance decides the near-sea set.
_S = np.ones((9, 9), dtype=np.int32)
_S[0, :] = _S[-1, :] = _S[:, 0] = _S[:, -1] = 0
_S[2, 6] = 0
MAP_S = island(_S, prisons=[(7, 7)])

# A 7 x 7 all-land map for the purely geometric kinds.
MAP_7 = island(np.ones((7, 7), dtype=np.int32), prisons=[(6, 6)])


def check(hint, isl: Island, expected: str) -> None:
    exp = grid(expected)
    got = hint.mask(isl)
    assert got.dtype == bool and got.shape == isl.shape
    assert np.array_equal(got, exp), "\n" + "\n".join(
        "".join("#" if v else "." for v in row) for row in got
    )
    # holds_for must agree with the mask on every tile
    for r in range(isl.height):
        for c in range(isl.width):
            assert hint.holds_for(isl, (r, c)) == exp[r, c], (r, c)
    assert parse_hint(hint.sentence()) == hint


# ---------------------------------------------------------------------------
# Tile sets, kind by kind, against masks worked out by hand.

def test_kind1_not_tiles():
    check(NotTiles(((3, 3), (1, 1))), MAP_A, """
        #######
        #.#####
        #######
        ###.###
        #######
    """)


def test_kind2_in_regions():
    check(InRegions((4, 1)), MAP_A, """
        .......
        .##....
        .#.....
        ....#..
        ...##..
    """)


def test_kind3_not_regions_includes_sea():
    check(NotRegions((2,)), MAP_A, """
        #######
        ###..##
        ####..#
        #####.#
        #######
    """)


def test_kind4_in_rectangle():
    check(InRectangle(1, 2, 3, 4), MAP_A, """
        .......
        ..###..
        ..###..
        ..###..
        .......
    """)


def test_kind5_not_rectangle():
    check(NotRectangle(0, 0, 1, 1), MAP_A, """
        ..#####
        ..#####
        #######
        #######
        #######
    """)


def test_kind6_nearer_than_prison_excludes_ties():
    # agent (1, 1), prison (4, 4): every tile at equal distance is left out,
    # e.g. (0, 4), (2, 3), (3, 2), (4, 0).
    check(NearerThanPrison((1, 1), (4, 4)), MAP_A, """
        ####...
        ####...
        ###....
        ##.....
        .......
    """)


def test_kind7_row_column_and_both():
    check(InLine(1, None), MAP_A, """
        .......
        #######
        .......
        .......
        .......
    """)
    check(InLine(None, 5), MAP_A, """
        .....#.
        .....#.
        .....#.
        .....#.
        .....#.
    """)
    check(InLine(3, 1), MAP_A, """
        .#.....
        .#.....
        .#.....
        #######
        .#.....
    """)


def test_kind8_not_line():
    check(NotLine(3, 1), MAP_A, """
        #.#####
        #.#####
        #.#####
        .......
        #.#####
    """)
    check(NotLine(None, 0), MAP_A, """
        .######
        .######
        .######
        .######
        .######
    """)


def test_kind9_pair_boundary():
    # Region 2 tiles touching 3: (1, 3) and (2, 4); region 3 tiles touching 2: (2, 3).
    check(PairBoundary(3, 2), MAP_A, """
        .......
        ...#...
        ...##..
        .......
        .......
    """)
    assert PairBoundary(3, 2) == PairBoundary(2, 3)


def test_kind10_any_boundary_land_only():
    check(AnyBoundary(), MAP_A, """
        .......
        ..##...
        .####..
        .#.###.
        ...#...
    """)


def test_kind11_near_sea_k2_and_k3():
    check(NearSea(2), MAP_S, """
        .........
        .#######.
        .#####.#.
        .##..###.
        .##...##.
        .##...##.
        .#######.
        .#######.
        .........
    """)
    check(NearSea(3), MAP_S, """
        .........
        .#######.
        .#####.#.
        .#######.
        .###.###.
        .#######.
        .#######.
        .#######.
        .........
    """)


def test_kind12_halves_of_odd_sizes():
    # H = 5: top = rows 0-1, bottom = rows 3-4, row 2 in neither (always in S).
    check(NotHalf(Half.TOP), MAP_A, """
        .......
        .......
        #######
        #######
        #######
    """)
    check(NotHalf(Half.BOTTOM), MAP_A, """
        #######
        #######
        #######
        .......
        .......
    """)
    # W = 7: left = columns 0-2, right = columns 4-6, column 3 in neither.
    check(NotHalf(Half.LEFT), MAP_A, """
        ...####
        ...####
        ...####
        ...####
        ...####
    """)
    check(NotHalf(Half.RIGHT), MAP_A, """
        ####...
        ####...
        ####...
        ####...
        ####...
    """)


# Kind 13 from the off-centre origin (2, 4) on a 7 x 7 map.
DIRECTIONS_FROM_2_4 = {
    Compass.N: """
        ..#####
        ...###.
        .......
        .......
        .......
        .......
        .......
    """,
    Compass.S: """
        .......
        .......
        .......
        ...###.
        ..#####
        .######
        #######
    """,
    Compass.W: """
        ###....
        ####...
        ####...
        ####...
        ###....
        ##.....
        #......
    """,
    Compass.E: """
        ......#
        .....##
        .....##
        .....##
        ......#
        .......
        .......
    """,
    Compass.NE: """
        .....##
        .....##
        .......
        .......
        .......
        .......
        .......
    """,
    Compass.NW: """
        ####...
        ####...
        .......
        .......
        .......
        .......
        .......
    """,
    Compass.SE: """
        .......
        .......
        .......
        .....##
        .....##
        .....##
        .....##
    """,
    Compass.SW: """
        .......
        .......
        .......
        ####...
        ####...
        ####...
        ####...
    """,
}


@pytest.mark.parametrize("direction", list(Compass))
def test_kind13_directions_from_off_centre_origin(direction):
    hint = InDirection(direction, (2, 4), Origin.PRISON)
    check(hint, MAP_7, DIRECTIONS_FROM_2_4[direction])


def test_kind13_triangles_cover_all_but_origin():
    masks = [InDirection(d, (2, 4), Origin.CENTRE).mask(MAP_7) for d in "NSEW"]
    union = np.logical_or.reduce(masks)
    expected = np.ones((7, 7), dtype=bool)
    expected[2, 4] = False
    assert np.array_equal(union, expected)


def test_kind14_ring():
    # big rows/cols 1-5, small rows 2-3 x cols 3-4
    check(BetweenSquares(1, 1, 5, 2, 3, 2), MAP_7, """
        .......
        .#####.
        .##..#.
        .##..#.
        .#####.
        .#####.
        .......
    """)


def test_kind15_mountain_regions():
    check(MountainRegions(), MAP_A, """
        .......
        ...##..
        ....##.
        .....#.
        .......
    """)
    assert not MountainRegions().mask(MAP_S).any()


# ---------------------------------------------------------------------------
# Sentences and parsing.

ONE_OF_EACH = [
    NotTiles(((1, 2), (3, 4))),
    NotTiles(((7, 0),)),
    InRegions((2, 5, 7)),
    InRegions((3,)),
    NotRegions((4,)),
    NotRegions((1, 3, 12)),
    InRectangle(0, 2, 4, 3),
    NotRectangle(1, 0, 3, 0),
    NearerThanPrison((3, 4), (10, 2)),
    InLine(3, None),
    InLine(None, 5),
    InLine(3, 5),
    NotLine(0, None),
    NotLine(None, 17),
    NotLine(2, 9),
    PairBoundary(1, 3),
    AnyBoundary(),
    NearSea(2),
    NearSea(3),
    NearSea(1),
    NotHalf(Half.LEFT),
    InDirection(Compass.NE, (5, 9), Origin.PRISON),
    InDirection(Compass.S, (8, 8), Origin.CENTRE),
    BetweenSquares(0, 2, 5, 1, 3, 3),
    MountainRegions(),
]


@pytest.mark.parametrize("hint", ONE_OF_EACH, ids=lambda h: h.kind.name)
def test_sentence_round_trip(hint):
    s = hint.sentence()
    assert s == s.strip() and "\n" not in s and s.startswith(("the treasure", "you at"))
    assert parse_hint(s) == hint
    assert str(hint) == s


def test_every_kind_has_a_class_and_an_example():
    assert set(HINT_CLASSES) == set(HintKind)
    assert {h.kind for h in ONE_OF_EACH} == set(HintKind)
    for kind, cls in HINT_CLASSES.items():
        assert cls.kind is kind


def test_example_sentences():
    assert NotTiles(((3, 4), (1, 2))).sentence() == (
        "the treasure is not on any of these tiles: (1, 2), (3, 4)"
    )
    assert InRegions((7, 2, 5)).sentence() == "the treasure is in one of regions 2, 5, 7"
    assert InDirection(Compass.NE, (5, 9), Origin.PRISON).sentence() == (
        "the treasure is to the NE of the prison at (5, 9)"
    )
    assert NearerThanPrison((3, 4), (10, 2)).sentence() == (
        "you at (3, 4) are nearer to the treasure than the prison at (10, 2) is"
    )
    assert BetweenSquares(0, 2, 5, 1, 3, 3).sentence() == (
        "the treasure is in the square from (0, 2) to (4, 6) "
        "but not in the square from (1, 3) to (3, 5)"
    )


def test_parse_tolerates_spacing_and_capital():
    assert parse_hint("  The treasure is  in the rectangle from (1,2) to ( 3 , 4 )\n") == (
        InRectangle(1, 2, 3, 4)
    )


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "hello",
        "the treasure is in region",
        "the treasure is in region 0",  # the sea is not a region a hint names
        "the treasure is in region 2 or so",
        "the treasure is in region ٣",  # not an ASCII digit
        "the treasure is not on any of these tiles: (1, 2), (1, 2)",
        "the treasure is not on any of these tiles: ",
        "the treasure is in the rectangle from (3, 3) to (1, 1)",
        "the treasure is in the square from (0, 0) to (4, 5) "
        "but not in the square from (1, 1) to (2, 2)",
        "the treasure is in the square from (0, 0) to (4, 4) "
        "but not in the square from (0, 0) to (1, 1)",
        "the treasure is on the boundary between regions 2 and 2",
        "the treasure is to the NNE of the prison at (1, 1)",
        "the treasure is to the N of the castle at (1, 1)",
        "the treasure is not in the middle half of the map",
        "the treasure is in row -1",
    ],
)
def test_parse_rejects_junk(junk):
    with pytest.raises(ValueError) as e:
        parse_hint(junk)
    assert repr(junk) in str(e.value)


def test_parse_rejects_non_string():
    with pytest.raises(ValueError):
        parse_hint(None)  # type: ignore[arg-type]


def test_constructors_validate():
    with pytest.raises(ValueError):
        InLine(None, None)
    with pytest.raises(ValueError):
        NotTiles(())
    with pytest.raises(ValueError):
        InRectangle(2, 0, 1, 0)
    with pytest.raises(ValueError):
        BetweenSquares(0, 0, 3, 1, 1, 2)  # touches the big square's border


@pytest.mark.parametrize("small", [(0, 1, 2), (3, 1, 2), (1, 0, 2), (1, 3, 2)],
                         ids=["top", "bottom", "left", "right"])
def test_a_small_square_touching_one_edge_only_is_refused(small):
    """Each edge on its own: the ring would be empty on that side (one condition broken at a time)."""
    assert BetweenSquares(0, 0, 5, 1, 1, 3).small_side == 3  # strictly inside: a ring on every side
    with pytest.raises(ValueError, match="not strictly inside"):
        BetweenSquares(0, 0, 5, *small)


def test_holds_for_rejects_outside():
    with pytest.raises(ValueError):
        AnyBoundary().holds_for(MAP_A, (5, 0))


# ---------------------------------------------------------------------------
# The draw.

def _random_island(seed: int, h: int, w: int) -> tuple[Island, tuple[int, int]]:
    """Blocky regions, a sea frame, a few mountains; returns the island and a treasure."""
    rng = np.random.default_rng(seed)
    bh, bw = 4, 5
    blocks = rng.integers(1, 7, size=(-(-h // bh), -(-w // bw)))
    reg = np.kron(blocks, np.ones((bh, bw), dtype=np.int64))[:h, :w]
    reg[0, :] = reg[-1, :] = reg[:, 0] = reg[:, -1] = 0
    land = np.argwhere(reg != 0)
    picks = land[rng.choice(len(land), size=4, replace=False)]
    mountains, prison, treasure = [tuple(p) for p in picks[:2]], tuple(picks[2]), tuple(picks[3])
    return island(reg, mountains, [prison]), (int(treasure[0]), int(treasure[1]))


CASES = [
    (MAP_A, TREASURE_A, (4, 4)),
    (MAP_A, (1, 1), (4, 4)),
    (MAP_S, (4, 4), (7, 7)),
    (MAP_7, (3, 3), (6, 6)),
    (*_random_island(1, 13, 17), (1, 1)),
    (*_random_island(2, 20, 11), (2, 2)),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_draw_truth_matches_and_round_trips(case):
    isl, treasure, prison = CASES[case]
    agent = (isl.height - 1, 0)
    for seed in range(150):
        rng = np.random.default_rng(seed)
        for revealed in (False, True):
            ctx = HintContext(turn=1 + seed, prison=prison, agent=agent, prison_revealed=revealed)
            for truthful in (True, False):
                hint = draw_hint(isl, treasure, ctx, truthful, rng)
                assert hint.holds_for(isl, treasure) == truthful, hint
                assert bool(hint.mask(isl)[treasure]) == truthful, hint
                assert parse_hint(hint.sentence()) == hint
                if not revealed:
                    assert hint.kind is not HintKind.NEARER_THAN_PRISON
                    if isinstance(hint, InDirection):
                        assert hint.origin_kind is Origin.CENTRE
                if isinstance(hint, InDirection) and hint.origin_kind is Origin.CENTRE:
                    assert hint.origin == (isl.height // 2, isl.width // 2)


def test_holds_for_agrees_with_mask_on_drawn_hints():
    isl, treasure, prison = CASES[4]
    rng = np.random.default_rng(7)
    ctx = HintContext(turn=3, prison=prison, agent=(5, 5), prison_revealed=True)
    rows, cols = np.indices(isl.shape)
    for i in range(200):
        hint = draw_hint(isl, treasure, ctx, bool(i % 2), rng)
        m = hint.mask(isl)
        got = np.array([hint.holds_for(isl, (r, c)) for r, c in zip(rows.ravel(), cols.ravel())])
        assert np.array_equal(got.reshape(isl.shape), m), hint


def test_mask_on_a_window_is_the_mask_cut():
    # The windowed build (Geometric formulas on a row and column range, region
    # lookups, the sea distance, the boundaries; the other kinds cut the whole set) gives the
    # whole mask's tiles, negated kinds included, for every kind drawn.
    rng = np.random.default_rng(11)
    kinds = set()
    for isl, treasure, prison in CASES:
        ctx = HintContext(turn=3, prison=prison, agent=(1, 1), prison_revealed=True)
        for i in range(120):
            hint = draw_hint(isl, treasure, ctx, bool(i % 2), rng)
            kinds.add(hint.kind)
            top, left = int(rng.integers(isl.height)), int(rng.integers(isl.width))
            bottom, right = int(rng.integers(top, isl.height)) + 1, int(rng.integers(left, isl.width)) + 1
            window = np.s_[top:bottom, left:right]
            got = hint.mask(isl, window)
            assert got.shape == (bottom - top, right - left) and got.flags.writeable, hint
            assert np.array_equal(got, hint.mask(isl)[window]), (hint, window)
    assert kinds == set(HintKind)


def test_prison_origin_and_kind6_appear_after_reveal():
    isl, treasure, prison = MAP_A, TREASURE_A, (4, 4)
    rng = np.random.default_rng(3)
    ctx = HintContext(turn=4, prison=prison, agent=(1, 2), prison_revealed=True)
    kinds, origins = Counter(), Counter()
    for i in range(1500):
        hint = draw_hint(isl, treasure, ctx, bool(i % 2), rng)
        kinds[hint.kind] += 1
        if isinstance(hint, InDirection):
            origins[hint.origin_kind] += 1
    assert kinds[HintKind.NEARER_THAN_PRISON] > 0
    assert origins[Origin.PRISON] > 0 and origins[Origin.CENTRE] > 0


def test_available_kinds():
    before = HintContext(turn=1, prison=(4, 4), agent=(1, 1), prison_revealed=False)
    after = HintContext(turn=2, prison=(4, 4), agent=(1, 1), prison_revealed=True)
    assert set(available_kinds(MAP_A, after)) == set(HintKind)
    assert set(available_kinds(MAP_A, before)) == set(HintKind) - {HintKind.NEARER_THAN_PRISON}
    # One land region and no mountain: no region pairs, no boundaries, no kind 15.
    assert set(available_kinds(MAP_S, after)) == set(HintKind) - {
        HintKind.IN_REGIONS, HintKind.PAIR_BOUNDARY, HintKind.ANY_BOUNDARY,
        HintKind.MOUNTAIN_REGIONS,
    }
    # No sea: no kind 11.
    assert HintKind.NEAR_SEA not in available_kinds(MAP_7, after)


def test_single_land_tile_island_both_truths():
    reg = np.zeros((3, 3), dtype=np.int32)
    reg[1, 1] = 1
    isl = island(reg, prisons=[])
    ctx = HintContext(turn=1, prison=(1, 1), agent=(1, 1), prison_revealed=False)
    for seed in range(30):
        rng = np.random.default_rng(seed)
        for truthful in (True, False):
            hint = draw_hint(isl, (1, 1), ctx, truthful, rng)
            assert hint.holds_for(isl, (1, 1)) == truthful


def test_draw_rejects_treasure_off_land():
    ctx = HintContext(turn=1, prison=(4, 4), agent=(1, 1), prison_revealed=False)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        draw_hint(MAP_A, (0, 0), ctx, True, rng)
    with pytest.raises(ValueError):
        draw_hint(MAP_A, (9, 9), ctx, True, rng)


def test_determinism():
    isl, treasure, prison = CASES[5]
    ctx = HintContext(turn=5, prison=prison, agent=(3, 3), prison_revealed=True)

    def sequence(seed: int) -> list:
        rng = np.random.default_rng(seed)
        return [draw_hint(isl, treasure, ctx, bool(rng.random() < 0.5), rng) for _ in range(200)]

    assert sequence(11) == sequence(11)
    assert sequence(11) != sequence(12)


def test_choose_kind_weights():
    rng = np.random.default_rng(2024)
    kinds = list(HintKind)
    counts = Counter(choose_kind(kinds, rng) for _ in range(30000))
    assert KIND_WEIGHTS[HintKind.IN_LINE] == 0.5 and KIND_WEIGHTS[HintKind.NOT_LINE] == 1.0
    assert RARE_KINDS == {HintKind.IN_LINE, HintKind.NOT_HALF, HintKind.BETWEEN_SQUARES}
    common = np.mean([counts[k] for k in kinds if k not in RARE_KINDS])
    for k in RARE_KINDS:
        assert 0.42 < counts[k] / common < 0.58, (k, counts[k], common)


def test_rare_kinds_about_half_as_often_in_draws():
    # False hints on map A: nearly every kind can be made false at once, so the
    # draw's frequencies follow the weights (kind 11 never can: the treasure
    # is next to the sea).
    rng = np.random.default_rng(5)
    ctx = HintContext(turn=4, prison=(4, 4), agent=(1, 1), prison_revealed=True)
    counts = Counter(draw_hint(MAP_A, TREASURE_A, ctx, False, rng).kind for _ in range(6000))
    assert counts[HintKind.NEAR_SEA] == 0
    common = np.median([counts[k] for k in HintKind if k not in RARE_KINDS | {HintKind.NEAR_SEA}])
    for k in RARE_KINDS:
        assert 0.35 < counts[k] / common < 0.65, (k, counts[k], common)


def test_parameter_distributions():
    isl = island(np.ones((6, 7), dtype=np.int32), prisons=[(0, 0)])
    ctx = HintContext(turn=1, prison=(0, 0), agent=(5, 6), prison_revealed=False)
    d = _Drawer(isl, ctx, np.random.default_rng(9))
    for kind, lo, hi in ((HintKind.IN_RECTANGLE, 11, 21), (HintKind.NOT_RECTANGLE, 2, 6)):
        admissible = {(h, w) for h in range(1, 7) for w in range(1, 8) if lo <= h * w <= hi}
        sizes = set()
        for _ in range(3000):
            top, left, bottom, right = d.rectangle(kind)
            assert 0 <= top <= bottom < 6 and 0 <= left <= right < 7
            sizes.add((bottom - top + 1, right - left + 1))
        assert sizes == admissible, kind
    lines = Counter()
    for _ in range(4000):
        row, col = d.line()
        lines["both" if None not in (row, col) else "row" if col is None else "col"] += 1
    assert abs(lines["row"] / 4000 - 0.45) < 0.04 and abs(lines["both"] / 4000 - 0.10) < 0.03
    # kind 14 on a 6 x 7 map: m = 6, big side in [3, 4]; small strictly inside
    sides = set()
    for _ in range(500):
        sq = d.draw(HintKind.BETWEEN_SQUARES)
        assert isinstance(sq, BetweenSquares)
        sides.add(sq.big_side)
        assert sq.big_top + sq.big_side <= 6 and sq.big_left + sq.big_side <= 7
        assert sq.mask(isl).sum() == sq.big_side**2 - sq.small_side**2
    assert sides == {3, 4}
    assert MAX_PARAM_DRAWS >= 10


# -- the geometric kinds' masks are what the first whole-array build made -------------
def reference_geometric_mask(hint, shape, window=np.s_[:, :]):
    """The build the geometric masks replaced: every field read through dataclasses.fields,
    the rectangle and square formulas term after term, a one-axis result broadcast and copied."""
    h, w = shape
    rows, cols = np.arange(h)[:, None][window[0]], np.arange(w)[None, :][:, window[1]]
    values = [getattr(hint, f.name) for f in dataclasses.fields(hint)]
    if isinstance(hint, (InRectangle, NotRectangle)):
        top, left, bottom, right = values
        inside = (rows >= top) & (rows <= bottom) & (cols >= left) & (cols <= right)
    elif isinstance(hint, BetweenSquares):
        def square(top, left, side):
            return (rows >= top) & (rows < top + side) & (cols >= left) & (cols < left + side)
        big = square(*values[:3])
        inside = big & (big ^ square(*values[3:]))
    else:
        inside = type(hint).contains(*values, rows, cols, shape)
    m = np.broadcast_to(inside, (rows.shape[0], cols.shape[1])).copy()
    return ~m if hint._negated else m


_pos = st.tuples(st.integers(0, 45), st.integers(0, 45))


@st.composite
def _geometric_hints(draw):
    kind = draw(st.sampled_from(["rect", "line", "nearer", "half", "direction", "squares"]))
    if kind == "rect":
        top, bottom = sorted(draw(st.lists(st.integers(0, 45), min_size=2, max_size=2)))
        left, right = sorted(draw(st.lists(st.integers(0, 45), min_size=2, max_size=2)))
        return draw(st.sampled_from([InRectangle, NotRectangle]))(top, left, bottom, right)
    if kind == "line":
        row, col = draw(st.one_of(st.none(), st.integers(0, 45))), draw(st.one_of(st.none(), st.integers(0, 45)))
        if row is None and col is None:
            row = 0
        return draw(st.sampled_from([InLine, NotLine]))(row, col)
    if kind == "nearer":
        return NearerThanPrison(draw(_pos), draw(_pos))
    if kind == "half":
        return NotHalf(draw(st.sampled_from(list(Half))))
    if kind == "direction":
        return InDirection(draw(st.sampled_from(list(Compass))), draw(_pos), draw(st.sampled_from(list(Origin))))
    big_top, big_left, small_side = draw(st.integers(0, 40)), draw(st.integers(0, 40)), draw(st.integers(1, 20))
    gap_top, gap_left = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    big_side = small_side + max(gap_top, gap_left) + draw(st.integers(1, 5))
    return BetweenSquares(big_top, big_left, big_side, big_top + gap_top, big_left + gap_left, small_side)


@settings(max_examples=500, deadline=None)
@given(hint=_geometric_hints(), h=st.integers(1, 40), w=st.integers(1, 40), data=st.data())
def test_geometric_masks_are_the_first_builds(hint, h, w, data):
    island = Island(np.ones((h, w), dtype=np.int32), np.zeros((h, w), bool), np.zeros((h, w), bool), 1, 1)
    top, left = data.draw(st.integers(0, h - 1)), data.draw(st.integers(0, w - 1))
    window = np.s_[top:data.draw(st.integers(top + 1, h)), left:data.draw(st.integers(left + 1, w))]
    for got, want in ((hint.mask(island), reference_geometric_mask(hint, (h, w))),
                      (hint.mask(island, window), reference_geometric_mask(hint, (h, w), window))):
        assert got.shape == want.shape and got.dtype == bool and got.flags.writeable
        assert np.array_equal(got, want), (hint, window)
    r, c = data.draw(st.integers(0, h - 1)), data.draw(st.integers(0, w - 1))
    assert hint.holds_for(island, (r, c)) == bool(reference_geometric_mask(hint, (h, w))[r, c])


@settings(max_examples=400, deadline=None)
@given(h=st.integers(1, 25), w=st.integers(1, 25), data=st.data())
def test_slice_masks_are_the_formula_s(h, w, data):
    """Rectangles, lines, halves and rings build their masks as slices; `contains`, the
    kinds' formula, stays the reference (Geometric._set_mask evaluates it on every tile)."""
    isl = Island(np.ones((h, w), dtype=np.int32), np.zeros((h, w), dtype=bool), np.zeros((h, w), dtype=bool), 1, 1)
    n = st.integers(0, max(h, w) + 3)
    top, left = data.draw(n), data.draw(n)
    hints = [InRectangle(top, left, top + data.draw(n), left + data.draw(n)),
             NotRectangle(top, left, top + data.draw(n), left + data.draw(n)),
             InLine(data.draw(st.one_of(st.none(), n)), data.draw(n)),
             NotLine(data.draw(n), data.draw(st.one_of(st.none(), n))),
             NotHalf(data.draw(st.sampled_from(list(Half))))]
    big = data.draw(st.integers(3, max(3, min(h, w) + 2)))
    small = data.draw(st.integers(1, big - 2))
    st_, sl = data.draw(st.integers(top + 1, top + big - 1 - small)), data.draw(st.integers(left + 1, left + big - 1 - small))
    hints.append(BetweenSquares(top, left, big, st_, sl, small))
    for hint in hints:
        want = Geometric._set_mask(hint, isl)
        want = ~want if hint._negated else want
        got = hint.mask(isl)
        assert got.dtype == bool and got.shape == (h, w) and np.array_equal(got, want), hint
