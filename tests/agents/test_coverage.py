"""Each tile's chance of being in a draw of a hint kind (agents/coverage.py), and what the planner makes of it."""

from __future__ import annotations

import numpy as np
import pytest

from treasure_cli.agents import planner
from treasure_cli.agents.coverage import Coverage
from treasure_cli.agents.knowledge import Knowledge
from treasure_cli.agents.planner import PlanningAgent
from treasure_cli.islands.generator import generate_island
from treasure_cli.rules import events as ev
from treasure_cli.rules.hint_kinds import HintContext, HintKind
from treasure_cli.rules.hint_params import ParamDrawer
from treasure_cli.rules.hints import HINT_CLASSES, InRectangle, NotTiles

DRAWS = 3000


@pytest.mark.parametrize("kind", [k for k in HintKind if k.value not in (6, 10, 14, 15)])
def test_the_chance_of_each_tile_is_what_the_pirates_own_draws_give(kind):
    """Counted over the pirate's own parameter draws (`ParamDrawer`, the draw's code), the share
    of draws whose set holds each land tile is the computed chance, within five standard errors."""
    island = generate_island(22, 18, rng=np.random.default_rng(3)).precompute()
    prison = island.prisons[0]
    ctx = HintContext(turn=5, prison=prison, agent=(3, 3), prison_revealed=True)
    drawer = ParamDrawer(island, ctx, np.random.default_rng(int(kind.value)))
    held = np.zeros(island.shape)
    for _ in range(DRAWS):
        hint = HINT_CLASSES[kind](*drawer.params(kind))
        held += hint.mask(island)
    held /= DRAWS
    coverage = Coverage(island)
    coverage.tell_prison(prison)
    chance = coverage.chance(hint, island.reveal_turn)  # a hint after the reveal
    assert chance is not None
    expected = np.broadcast_to(np.asarray(chance, dtype=float), island.shape)
    land = island.land
    se = np.sqrt(np.maximum(expected * (1 - expected), 1.0 / DRAWS) / DRAWS)
    assert (np.abs(held - expected) <= 5 * se)[land].all(), float(np.abs(held - expected)[land].max())
    if kind in (HintKind.IN_RECTANGLE, HintKind.DIRECTION, HintKind.NEAR_SEA):
        assert float(np.ptp(expected[land])) > 0.1  # (these vary by tile: the point of the module)


def _heard(island, hint) -> PlanningAgent:
    """A planner that has heard hint 1 (true, kept as a fact) and `hint` as hint 2, unverified,
    its weights made over every candidate."""
    agent = PlanningAgent()
    agent.know = know = Knowledge(island)
    know.update(ev.HintGiven(1, 1, NotTiles(((0, 0),)), True))
    know.update(ev.HintGiven(2, 2, hint, None))
    cand = know.candidates
    agent._cand = cand
    box = (slice(0, cand.shape[0]), slice(0, cand.shape[1]))
    agent._log = np.zeros(cand.shape)
    agent._hear(0.5, box)
    agent._weights = np.empty(cand.shape)
    agent._soft_weights(box, agent._weights)
    return agent


def test_a_large_rectangle_heard_weighs_a_tile_it_rarely_holds_more(monkeypatch):
    """A large rectangle (kind 4) holds a tile at the map's edge in few draws and one at its
    centre in most. The pirate, telling the truth, redraws until his rectangle holds the
    treasure: hearing one that holds an edge tile says more for it than for the centre. Two
    candidate tiles inside the heard rectangle, one at the edge and one at the centre, weigh
    about 1/c of their chances c. (Weighed by the share of land the set covers, as before, every
    tile of the set weighed the same.)"""
    island = generate_island(24, 24, rng=np.random.default_rng(5)).precompute()
    h, w = island.shape
    hint = InRectangle(0, 0, h // 2 + 2, w - 1)  # the top half and two rows: from the map's centre to its edge
    chance = Coverage(island).chance(hint, 2)
    assert isinstance(chance, np.ndarray)
    inside = hint.mask(island) & Knowledge(island).candidates
    rows, cols = np.nonzero(inside)
    held = chance[rows, cols]
    edge = (int(rows[held.argmin()]), int(cols[held.argmin()]))      # the tile of the set draws hold least
    centre = (int(rows[held.argmax()]), int(cols[held.argmax()]))    # and most
    assert chance[edge] < 0.5 * chance[centre]
    agent = _heard(island, hint)
    weights = agent._weights
    assert weights[edge] > 1.5 * weights[centre], (weights[edge], weights[centre])
    monkeypatch.setattr(planner, "DRAW_CHANCES", False)
    before = _heard(island, hint)._weights
    assert before[edge] == pytest.approx(before[centre])  # (the old weighing: the same inside the set)


def test_kinds_it_does_not_compute_are_left_to_the_old_weighing():
    """A kind drawn without parameters, kind 14 and a map past COVERAGE_AREA for the kinds whose
    chance varies by tile: None, and the planner weighs them as before."""
    island = generate_island(16, 16, rng=np.random.default_rng(2)).precompute()
    coverage = Coverage(island)
    assert coverage.chance(HINT_CLASSES[HintKind.ANY_BOUNDARY](), 3) is None
    assert coverage.chance(InRectangle(0, 0, 3, 3), 3) is not None
    big = generate_island(160, 160, rng=np.random.default_rng(2))
    assert Coverage(big).chance(InRectangle(0, 0, 3, 3), 3) is None
    assert Coverage(big).chance(NotTiles(((0, 0),)), 3) is not None  # (the same on every land tile: a number)
