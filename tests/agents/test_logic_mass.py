"""The logic agent's scan masses and move choice: every value, bit for bit, as the plain formulas give it.

The agent compares these floats with each other, so a mass computed in
another order (a - b + d - c instead of a - b - c + d) could change a
decision. `_Reference` is the straightforward version, every window over the
whole box; the agent's `_Mass` must return exactly the same numbers.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_cli.agents.logic import _PAD, _Mass, _Moves, _box, _nearest_step


class _Reference:
    def __init__(self, p, walk, box):
        self.r0, self.c0 = box[0].start, box[1].start
        self.h, self.w = box[0].stop - self.r0, box[1].stop - self.c0
        cs = self.cs = np.zeros((self.h + 2 * _PAD + 1, self.w + 2 * _PAD + 1))
        cs[_PAD + 1: _PAD + 1 + self.h, _PAD + 1: _PAD + 1 + self.w] = p[box]
        np.cumsum(cs, axis=0, out=cs)
        np.cumsum(cs, axis=1, out=cs)
        cs /= cs[-1, -1]
        self.window = {k: self._windows(k) for k in (1, 2)}
        self.cover = np.where(walk[box], self.window[2], 0.0)

    def _windows(self, k):
        cs, h, w = self.cs, self.h, self.w
        lo, hi = _PAD - k, _PAD + k + 1
        return cs[hi: hi + h, hi: hi + w] - cs[lo: lo + h, hi: hi + w] - cs[hi: hi + h, lo: lo + w] + cs[lo: lo + h, lo: lo + w]

    def square(self, sq):
        (r, c), k = sq
        r, c = r - self.r0, c - self.c0
        if 0 <= r < self.h and 0 <= c < self.w:
            return float(self.window[k][r, c])
        return 0.0

    def richest(self, pos, discount):
        score = self.cover
        if discount:
            rows = np.abs(np.arange(self.r0, self.r0 + self.h) - pos[0])
            cols = np.abs(np.arange(self.c0, self.c0 + self.w) - pos[1])
            score = score / (1.0 + (rows[:, None] + cols[None, :]) / discount)
        r, c = divmod(int(np.argmax(score)), self.w)
        return (r + self.r0, c + self.c0), float(self.cover[r, c])


def _bits(x: float) -> bytes:
    return np.float64(x).tobytes()  # tells -0.0 from 0.0, unlike ==


def _weights(rng, kind: str, h: int, w: int) -> np.ndarray:
    p = np.zeros((h, w), dtype=bool)
    r0, c0 = rng.integers(0, h), rng.integers(0, w)
    r1, c1 = rng.integers(r0, h) + 1, rng.integers(c0, w) + 1
    p[r0:r1, c0:c1] = rng.random((r1 - r0, c1 - c0)) < rng.uniform(0.05, 1.0)
    p[r0, c0] = True  # never all zero
    if kind == "bool":
        return p
    if kind == "urgency":  # the race: equal weights raised by a few distinct factors
        return p * (1.0 + 3.0 / rng.integers(1, 6, size=(h, w)))
    return np.where(p, rng.random((h, w)), 0.0)  # soft hints: any weights


@settings(max_examples=300, deadline=None)
@given(h=st.integers(1, 30), w=st.integers(1, 30), seed=st.integers(0, 2**32 - 1),
       kind=st.sampled_from(["bool", "urgency", "soft"]))
def test_masses_are_the_whole_box_formulas_bit_for_bit(h, w, seed, kind):
    rng = np.random.default_rng(seed)
    p = _weights(rng, kind, h, w)
    walk = (rng.random((h, w)) < 0.8) | (p != 0)
    box = _box(p)
    new, old = _Mass(p, walk, box), _Reference(p, walk, box)
    assert new.cover.tobytes() == old.cover.tobytes()
    for _ in range(12):
        pos = (int(rng.integers(-3, h + 3)), int(rng.integers(-3, w + 3)))
        for k in (1, 2):
            assert _bits(new.square((pos, k))) == _bits(old.square((pos, k)))
        here = (min(max(pos[0], 0), h - 1), min(max(pos[1], 0), w - 1))  # the agent stands on the map
        for discount in (None, 8.0, 3.0, 7.0):
            got, want = new.richest(here, discount), old.richest(here, discount)
            assert got[0] == want[0] and _bits(got[1]) == _bits(want[1])
    assert _bits(new.cover_max) == _bits(old.cover.max())
    # The small moves' scans, as the agent's loop compared them one by one.
    small = [(i, int(rng.integers(-3, h + 3)), int(rng.integers(-3, w + 3))) for i in range(8)]
    value, first = old.square(((0, 0), 2)), "here"
    for i, r, c in small:
        seen = old.square(((r, c), 1))
        if seen > value + 1e-12:
            value, first = seen, i
    got = new.best_small_scan(small, old.square(((0, 0), 2)), "here")
    assert got[1] == first and _bits(got[0]) == _bits(value)


@settings(max_examples=300, deadline=None)
@given(h=st.integers(1, 12), w=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_the_straight_step_is_the_first_nearest_move_small_ones_first(h, w, seed):
    rng = np.random.default_rng(seed)
    walk = rng.random((h, w)) < rng.uniform(0.3, 1.0)
    pos = (int(rng.integers(0, h)), int(rng.integers(0, w)))
    walk[pos] = True
    moves = _Moves(walk, pos)
    for _ in range(8):
        target = (int(rng.integers(0, h)), int(rng.integers(0, w)))

        def manhattan(t):
            return abs(t[0] - target[0]) + abs(t[1] - target[1])  # noqa: B023  (used in this iteration)

        want = min(moves.all, key=lambda m: (manhattan(m[1]), 0 if m[0].small else 1), default=None)
        got, d = _nearest_step(moves, target)
        if want is None:
            assert got is None
        else:
            assert got is want[0] and d == manhattan(want[1])
