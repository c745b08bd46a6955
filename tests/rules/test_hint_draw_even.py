"""The even hint draw of paced games (draw_hint's `even`, sandbox/pacing.py): the hint the plain
draw gives, with a work that does not depend on where the treasure is. Work is counted here
in candidates tested, by structure, never timed."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest
from helpers import RandomTeleporter, play

from treasure_cli.islands.generator import generate_island
from treasure_cli.rules import seeds
from treasure_cli.rules.hint_draw import HintSet, _Drawer, draw_hint
from treasure_cli.rules.events import HintGiven
from treasure_cli.rules.game import Game
from treasure_cli.rules.hint_kinds import HintContext, HintKind
from treasure_cli.rules.hints import HINT_CLASSES
from treasure_cli.rules.plugin_kinds import PluginHint


@pytest.fixture(scope="module")
def island():
    return generate_island(20, 20, rng=np.random.default_rng(7))


@pytest.fixture(scope="module")
def treasures(island):
    """Tiles where the treasure could be (the pirate can walk there from the prisons)."""
    tiles = np.argwhere(island.walkable & ~island.prison & (island.walk_pieces == island.walk_pieces[island.treasure]))
    picks = np.random.default_rng(1).choice(len(tiles), 10, replace=False)
    return [(int(r), int(c)) for r, c in tiles[picks]]


def contexts(island):
    """A few turns' contexts, before and after the prison's reveal."""
    prison = island.reachable_prisons[0]
    return [HintContext(turn, prison, (turn % island.height, 3), turn >= 4) for turn in (1, 2, 5, 9)]


@dataclasses.dataclass(frozen=True)
class Band(PluginHint):
    """A plugin kind with a random parameter: the treasure is in row band `top` .. `top + 3`."""

    top: int

    name = "band"

    @classmethod
    def draw(cls, island, ctx, rng):
        return cls(int(rng.below(island.height - 1)))

    def tile_set(self, island):
        rows = np.arange(island.height)[:, None]
        return np.broadcast_to((rows >= self.top) & (rows < self.top + 4), island.shape).copy()

    def statement(self):
        return f"the treasure is in rows {self.top} to {self.top + 3}"


HINT_SETS = {
    "built-in": None,
    "built-ins reweighted": HintSet(tuple(HINT_CLASSES.values()), [2.0] + [1.0] * (len(HINT_CLASSES) - 1)),
    "a plugin kind and a built-in": HintSet((Band, HINT_CLASSES[HintKind.IN_LINE])),
    "one fixed kind (often the fallback)": HintSet((HINT_CLASSES[HintKind.ANY_BOUNDARY],)),
}


@pytest.fixture
def tested(monkeypatch):
    """Counts the candidates tested against the treasure, built-in and plugin kinds alike."""
    count = Counter()
    tester, band_holds = _Drawer.tester, Band.holds_for

    def counting_tester(self, kind, treasure):
        test = tester(self, kind, treasure)
        return lambda args: count.update(["tested"]) or test(args)

    def counting_holds(self, island, pos):
        count.update(["tested"])
        return band_holds(self, island, pos)

    monkeypatch.setattr(_Drawer, "tester", counting_tester)
    monkeypatch.setattr(Band, "holds_for", counting_holds)
    return count


def draw(island, treasure, ctx, truthful, seed, kinds, even):
    return draw_hint(island, treasure, ctx, truthful, seeds.draws(seed, seeds.HINTS, ctx.turn), kinds, even=even)


@pytest.mark.parametrize("name", HINT_SETS)
def test_an_even_draw_gives_the_plain_draws_hint(island, treasures, name):
    kinds = HINT_SETS[name]
    for seed in range(3):
        for ctx in contexts(island):
            for truthful in (True, False):
                for t in treasures:
                    plain = draw(island, t, ctx, truthful, seed, kinds, False)
                    assert draw(island, t, ctx, truthful, seed, kinds, True) == plain
                    assert plain.holds_for(island, t) == truthful


@pytest.mark.parametrize("name", HINT_SETS)
def test_an_even_draw_tests_as_many_candidates_wherever_the_treasure_is(island, treasures, tested, name):
    kinds = HINT_SETS[name]
    plain_varies = False
    for seed in range(3):
        for ctx in contexts(island):
            counts = {}
            for even in (False, True):
                for truthful in (True, False):
                    for t in treasures:
                        tested.clear()
                        draw(island, t, ctx, truthful, seed, kinds, even)
                        counts[even, truthful, t] = tested["tested"]
            even_counts = {n for (even, _, _), n in counts.items() if even}
            assert len(even_counts) == 1, (seed, ctx, even_counts)  # not the treasure, not the truth
            plain_varies |= len({n for (even, _, _), n in counts.items() if not even}) > 1
    if name != "one fixed kind (often the fallback)":  # (one candidate then, whatever the treasure)
        assert plain_varies  # what the even draw removes: the plain draw's count depends on them


@pytest.mark.parametrize("even", [False, True])
def test_an_even_draw_builds_the_fallback_either_way(island, treasures, monkeypatch, even):
    built = []
    fallback = _Drawer.fallback
    monkeypatch.setattr(_Drawer, "fallback", lambda self, *a: built.append(1) or fallback(self, *a))
    ctx = contexts(island)[1]
    for t in treasures:
        draw(island, t, ctx, True, 0, None, even)
    # the plain draw falls back only when no candidate matched, which 15 kinds of 30 draws make rare
    assert len(built) == (len(treasures) if even else 0)


@pytest.mark.parametrize("name", HINT_SETS)
def test_an_even_game_is_the_plain_game_event_for_event(island, treasures, name):
    """The even draw reads more of its turn's stream than the plain one; no later draw reads
    that stream, so every later turn, and the whole game, is the same."""
    hints = 0
    for t in treasures[:4]:
        isl = dataclasses.replace(island, treasure=t)
        for seed in range(3):
            games = [Game(isl, seed, max_turns=25, hints=HINT_SETS[name], even=even) for even in (False, True)]
            plain, even = (play(game, RandomTeleporter(seed)) for game in games)
            assert even == plain
            hints += sum(type(e) is HintGiven for e in plain)
    assert hints >= 5 * 12  # games of several turns, not only first turns
