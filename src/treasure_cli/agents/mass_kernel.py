"""The logic agent's whole-box passes: integral images, the richest 5x5 window, counts
(and its bounding box and legal moves, which are the rules' own).

These are the readable numpy versions. At 32x32 each numpy call costs a few
microseconds whatever the array's size (a cumsum along one axis of 1,400
tiles is ~5 us), and the agent makes a dozen per action, so the package
uses the compiled twins of `treasure_cli.agents._mass` (`_mass.c`, built by
the install when a C compiler is at hand): the same arithmetic in the same
order, so the same floats bit for bit (tests/agents/test_mass_kernel.py).
Setting TREASURE_CLI_PURE_PYTHON=1 uses these (see `treasure_cli.compiled`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

# the rule of moves is the rules' own (rules/actions.py, compiled in rules/_grid.c), never an agent's copy
from treasure_cli.rules.actions import legal_moves as legal_moves
from treasure_cli.compiled import load
from treasure_cli.rules.grid import bounding_box as _grid_box  # compiled in rules/_grid.c

PAD = 2  # the largest scan radius: the integral image's margin around the box


def py_integral(p: np.ndarray, r0: int, c0: int, h: int, w: int, out: np.ndarray) -> None:
    """Into `out` ((h + 2·PAD + 1) x (w + 2·PAD + 1) float64): the integral image of the box
    p[r0:r0+h, c0:c0+w] padded by PAD zeros (and a zero first row and column), as shares
    of its total. `p` is bool or float64, not all zero in the box."""
    out[...] = 0.0
    out[PAD + 1: PAD + 1 + h, PAD + 1: PAD + 1 + w] = p[r0: r0 + h, c0: c0 + w]
    np.cumsum(out, axis=0, out=out)  # down the columns first, then across: the order fixes the floats
    np.cumsum(out, axis=1, out=out)
    out /= out[-1, -1]


def py_best_cover(cs: np.ndarray, walk: np.ndarray, r0: int, c0: int, pr: int, pc: int,
                  discount: float) -> tuple[int, int, float]:
    """The first tile (row-major) of the box at (r0, c0) whose large scan's mass (0 where
    `walk` is False), divided by 1 + (Manhattan distance from (pr, pc)) / discount when
    discount > 0, is the largest: its map row and column and its undivided mass."""
    h, w = cs.shape[0] - 2 * PAD - 1, cs.shape[1] - 2 * PAD - 1
    lo, hi = 0, 2 * PAD + 1  # the corners of the 5x5 windows
    window = cs[hi: hi + h, hi: hi + w] - cs[lo: lo + h, hi: hi + w]  # ((a - b) - c) + d
    window -= cs[hi: hi + h, lo: lo + w]
    window += cs[lo: lo + h, lo: lo + w]
    cover = np.where(walk[r0: r0 + h, c0: c0 + w], window, 0.0)
    score = cover
    if discount > 0:
        rows = np.abs(np.arange(r0, r0 + h) - pr)
        cols = np.abs(np.arange(c0, c0 + w) - pc)
        score = cover / (1.0 + (rows[:, None] + cols[None, :]) / discount)
    r, c = divmod(int(np.argmax(score)), w)
    return r + r0, c + c0, float(cover[r, c])


def py_best_window(cs: np.ndarray, r0: int, c0: int, k: int, cells: list[tuple[Any, int, int]], value: float
                   ) -> tuple[int, float]:
    """The first of `cells` (tuples (_, row, col), map positions) whose (2k+1)x(2k+1)
    window (0 outside the box at (r0, c0)) sees more than `value` + 1e-12 and more than
    each earlier one, as (its index, its mass); else (-1, value)."""
    h, w = cs.shape[0] - 2 * PAD - 1, cs.shape[1] - 2 * PAD - 1
    lo, hi = PAD - k, PAD + k + 1
    best = -1
    for i, (_, r, c) in enumerate(cells):
        r, c = r - r0, c - c0
        seen = 0.0
        if 0 <= r < h and 0 <= c < w:
            seen = cs.item(r + hi, c + hi) - cs.item(r + lo, c + hi) - cs.item(r + hi, c + lo) + cs.item(r + lo, c + lo)
        if seen > value + 1e-12:
            value, best = seen, i
    return best, value


def bounding_box(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right) of the True (non-zero) tiles, bottom and right exclusive; None
    if none: rules.grid's box (one version of the algorithm, no agent's copy) as four ints."""
    box = _grid_box(mask)
    return None if box is None else (box[0].start, box[0].stop, box[1].start, box[1].stop)


def py_count_both(a: np.ndarray, b: np.ndarray, r0: int, r1: int, c0: int, c1: int) -> int:
    """Tiles of rows r0..r1-1 and columns c0..c1-1 (starts >= 0, stops clipped at the edge)
    that are True in both masks."""
    return int(np.count_nonzero(a[r0:r1, c0:c1] & b[r0:r1, c0:c1]))


_mass = load("treasure_cli.agents._mass")
COMPILED = _mass is not None
if _mass is not None:
    integral, best_cover, best_window, count_both = (
        _mass.integral, _mass.best_cover, _mass.best_window, _mass.count_both)
else:
    integral, best_cover, best_window, count_both = py_integral, py_best_cover, py_best_window, py_count_both
