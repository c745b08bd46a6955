"""The compiled whole-box passes (`treasure_cli.agents._mass`) against their numpy
reference (`mass_kernel.py_*`), bit for bit, over random masks, weights and boxes."""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import needs_built

from treasure_cli import compiled
from treasure_cli.agents import mass_kernel
from treasure_cli.rules import grid
from treasure_cli.rules.actions import legal_moves
from treasure_cli.agents.mass_kernel import (
    PAD, py_best_cover, py_best_window, py_count_both, py_integral,
)

try:
    from treasure_cli.agents import _mass
    NOT_BUILT = ""
except ImportError as exc:
    _mass, NOT_BUILT = None, f"{type(exc).__name__}: {exc}"

needs_compiled = needs_built(_mass, "treasure_cli.agents._mass", f"({NOT_BUILT})")
PURE_PYTHON_ASKED = compiled.PURE_PYTHON


def _strided(rng, a: np.ndarray) -> np.ndarray:
    """`a` itself, or the same values in a view with other strides (a transposed copy's
    transpose, or every other column of a wider array)."""
    pick = rng.integers(0, 3)
    if pick == 1:
        return np.ascontiguousarray(a.T).T
    if pick == 2:
        wide = np.zeros((a.shape[0], 2 * a.shape[1]), dtype=a.dtype)
        wide[:, ::2] = a
        return wide[:, ::2]
    return a


def _case(seed: int, h: int, w: int, kind: str):
    rng = np.random.default_rng(seed)
    r0, c0 = int(rng.integers(0, h)), int(rng.integers(0, w))
    bh, bw = int(rng.integers(1, h - r0 + 1)), int(rng.integers(1, w - c0 + 1))
    p = np.zeros((h, w), dtype=bool)
    p[r0: r0 + bh, c0: c0 + bw] = rng.random((bh, bw)) < rng.uniform(0.02, 1.0)
    p[r0 + int(rng.integers(0, bh)), c0 + int(rng.integers(0, bw))] = True  # never all zero in the box
    if kind == "urgency":
        p = p * (1.0 + 3.0 / rng.integers(1, 6, size=(h, w)))
    elif kind == "soft":
        p = np.where(p, rng.random((h, w)) ** 3, 0.0)
    walk = (rng.random((h, w)) < rng.uniform(0.0, 1.0)) | (p != 0)
    return rng, _strided(rng, p), _strided(rng, walk), (r0, c0, bh, bw)


@needs_compiled
@settings(max_examples=400, deadline=None)
@given(h=st.integers(1, 40), w=st.integers(1, 40), seed=st.integers(0, 2**32 - 1),
       kind=st.sampled_from(["bool", "urgency", "soft"]))
def test_integral_and_best_cover_are_numpy_s_bit_for_bit(h, w, seed, kind):
    rng, p, walk, (r0, c0, bh, bw) = _case(seed, h, w, kind)
    shape = (bh + 2 * PAD + 1, bw + 2 * PAD + 1)
    want, got = np.empty(shape), np.full(shape, np.nan)
    py_integral(p, r0, c0, bh, bw, want)
    _mass.integral(p, r0, c0, bh, bw, got)
    assert got.tobytes() == want.tobytes()
    for _ in range(6):
        pos = (int(rng.integers(0, h)), int(rng.integers(0, w)))
        for discount in (0.0, 8.0, 3.0, 7.0, 0.5):
            a = _mass.best_cover(want, walk, r0, c0, pos[0], pos[1], discount)
            b = py_best_cover(want, walk, r0, c0, pos[0], pos[1], discount)
            assert a[:2] == b[:2] and np.float64(a[2]).tobytes() == np.float64(b[2]).tobytes()
    for k in (0, 1, 2):
        cells = [(i, int(rng.integers(-4, h + 4)), int(rng.integers(-4, w + 4))) for i in range(int(rng.integers(0, 9)))]
        start = float(rng.choice([0.0, 1e-13, rng.random() * 0.2]))
        a = _mass.best_window(want, r0, c0, k, cells, start)
        b = py_best_window(want, r0, c0, k, cells, start)
        assert a[0] == b[0] and np.float64(a[1]).tobytes() == np.float64(b[1]).tobytes()


@needs_compiled
@settings(max_examples=400, deadline=None)
@given(h=st.integers(1, 70), w=st.integers(1, 70), seed=st.integers(0, 2**32 - 1), density=st.floats(0, 1))
def test_counts_are_numpy_s(h, w, seed, density):
    rng = np.random.default_rng(seed)
    a = _strided(rng, rng.random((h, w)) < density * density * density)
    b = _strided(rng, rng.random((h, w)) < 0.5)
    r0, c0 = int(rng.integers(0, h + 1)), int(rng.integers(0, w + 1))
    r1, c1 = int(rng.integers(r0, h + 3)), int(rng.integers(c0, w + 3))  # stops past the edge are clipped
    assert _mass.count_both(a, b, r0, r1, c0, c1) == py_count_both(a, b, r0, r1, c0, c1)


def test_the_agent_asks_the_rules_for_its_moves():
    """No rule compiled in an agent's module: the logic agent's legal_moves is rules.actions'."""
    assert mass_kernel.legal_moves is legal_moves and not hasattr(_mass, "legal_moves")


def test_the_agent_s_box_is_the_rules_box():
    """One bounding box (rules/grid.py, compiled in rules/_grid.c): the agent's is it as four ints."""
    assert not hasattr(_mass, "bounding_box")
    mask = np.zeros((6, 7), dtype=bool)
    assert mass_kernel.bounding_box(mask) is None
    mask[1, 5] = mask[4, 2] = True
    assert mass_kernel.bounding_box(mask) == (1, 5, 2, 6) and grid.bounding_box(mask) == np.s_[1:5, 2:6]
    assert mass_kernel.bounding_box(mask * 0.5) == (1, 5, 2, 6)  # weights, as the agent's mass has


@needs_compiled
def test_wrong_arrays_are_refused():
    p = np.ones((4, 4), dtype=bool)
    with pytest.raises(TypeError):
        _mass.integral(p.astype(np.int32), 0, 0, 4, 4, np.empty((9, 9)))
    with pytest.raises(ValueError):
        _mass.integral(p, 1, 0, 4, 4, np.empty((9, 9)))  # the box leaves p
    with pytest.raises(ValueError):
        _mass.integral(p, 0, 0, 4, 4, np.empty((8, 9)))
    with pytest.raises(TypeError):
        _mass.count_both(p.astype(np.uint16), p, 0, 4, 0, 4)
    with pytest.raises(TypeError):
        _mass.best_window(np.zeros((9, 9)), 0, 0, 1, [(0, 1)], 0.0)
    with pytest.raises(ValueError):
        _mass.best_window(np.zeros((9, 9)), 0, 0, 3, [], 0.0)
    with pytest.raises(ValueError):
        _mass.count_both(p, np.ones((4, 5), dtype=bool), 0, 4, 0, 4)
    with pytest.raises(ValueError):
        _mass.count_both(p, p, -1, 4, 0, 4)


@pytest.mark.skipif(PURE_PYTHON_ASKED, reason="TREASURE_CLI_PURE_PYTHON asks for the numpy functions")
def test_the_agent_uses_the_compiled_module():
    """The module is optional to install, so a failed build is quiet: this says it."""
    assert _mass is not None, f"treasure_cli.agents._mass does not import ({NOT_BUILT}); reinstall with a C compiler"
    assert mass_kernel.COMPILED and mass_kernel.integral is _mass.integral
