"""`Draws` gives, call for call, the values of numpy's Generator on the same seed.

The hints of every log depend on it: if numpy ever changes how its Generator
methods use the bits, these tests say so (and `Draws`, which owns its
algorithms, keeps the logs as they are). Both implementations run every
comparison: the Python reference `PyDraws` and the compiled class of
`treasure_cli.rules._draws`, which the package uses when it is built.
"""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from helpers import GOLDEN, ROOT, needs_built
from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_cli import compiled
from treasure_cli.islands.generator import generate_island
from treasure_cli.rules import draws as draws_module
from treasure_cli.rules import seeds
from treasure_cli.rules.draws import PyDraws
from treasure_cli.rules.hint_draw import HintContext, draw_hint

try:
    from treasure_cli.rules._draws import Draws as CDraws
    NOT_BUILT = ""
except ImportError as exc:  # the tests below that need it say why it is missing
    CDraws, NOT_BUILT = None, f"{type(exc).__name__}: {exc}"

IMPLEMENTATIONS = pytest.mark.parametrize("Draws", [
    pytest.param(PyDraws, id="python"),
    pytest.param(CDraws, id="compiled",
                 marks=needs_built(CDraws, "treasure_cli.rules._draws", f"({NOT_BUILT})")),
])
PURE_PYTHON_ASKED = compiled.PURE_PYTHON

# One draw: ("random",), ("int", low, span) or ("sample", population, size).
ops = st.one_of(
    st.just(("random",)),
    st.tuples(st.just("int"), st.integers(-50, 50),
              st.one_of(st.integers(1, 40), st.sampled_from([2**31, 2**32 - 1, 2**32]), st.integers(1, 2**32))),
    st.integers(1, 12000).flatmap(lambda n: st.tuples(st.just("sample"), st.just(n), st.integers(0, min(n, 15)))),
)


@IMPLEMENTATIONS
@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=3), st.lists(ops, min_size=1, max_size=60))
def test_every_draw_equals_the_generator_s(Draws, keys, sequence):
    ours, numpy_ = Draws(keys), np.random.default_rng(keys)
    for op in sequence:
        if op[0] == "random":
            assert ours.random() == numpy_.random()
        elif op[0] == "int":
            _, low, span = op
            assert low + ours.below(span - 1) == int(numpy_.integers(low, low + span))
        else:
            _, n, size = op
            pool = np.arange(n, dtype=np.int64) * 7 + 3
            want = numpy_.choice(pool, size=size, replace=False)
            assert pool[ours.sample(n, size)].tolist() == want.tolist()
    # ...and the two are at the same place in the stream afterwards.
    assert ours.below(999) == int(numpy_.integers(0, 1000))
    assert ours.random() == numpy_.random()


@IMPLEMENTATIONS
@pytest.mark.parametrize("span", [2**31 + 1, 3 * 2**30, 2**32 - 5])
def test_wide_ranges_reject_like_the_generator(Draws, span):
    # About a third to a half of these draws fall in the biased sliver and are redrawn.
    for seed in range(20):
        ours, numpy_ = Draws([seed]), np.random.default_rng([seed])
        assert [ours.below(span - 1) for _ in range(50)] == numpy_.integers(0, span, size=50).tolist()


@IMPLEMENTATIONS
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 3), st.integers(0, 2**32 + 5), st.integers(0, 2**64 + 5)), min_size=1, max_size=4))
def test_any_non_negative_keys_seed_the_generator_s_stream(Draws, keys):
    # Draws hands SeedSequence the keys' 32-bit words itself: the same entropy as the keys.
    assert Draws(keys).random() == np.random.default_rng(keys).random()


@IMPLEMENTATIONS
def test_out_of_scope_requests_are_refused_not_answered_differently(Draws):
    with pytest.raises(ValueError):
        Draws([3, -1])
    d = Draws([1])
    with pytest.raises(ValueError):
        d.below(-1)
    with pytest.raises(ValueError):
        d.below(2**32)
    with pytest.raises(ValueError):
        d.sample(3, 4)
    with pytest.raises(ValueError):
        d.sample(20000, 500)  # numpy takes a different algorithm there
    assert d.random() == np.random.default_rng([1]).random()  # nothing was drawn by the refusals


@IMPLEMENTATIONS
@settings(max_examples=60, deadline=None)
@given(st.integers(6, 30), st.integers(6, 30), st.integers(0, 2**32 - 1))
def test_the_pirate_draws_the_same_hints_from_either_source(Draws, w, h, seed):
    island = generate_island(w, h, rng=np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    land, walk = np.argwhere(island.land), np.argwhere(island.walkable)
    for turn in range(1, 10):
        treasure = tuple(int(x) for x in land[rng.integers(len(land))])
        ctx = HintContext(turn, island.prisons[0], tuple(int(x) for x in walk[rng.integers(len(walk))]),
                          bool(rng.integers(2)))
        truthful = bool(rng.integers(2))
        ours = Draws(seeds.entropy(seed, seeds.HINTS, turn))  # what seeds.draws makes
        numpy_ = seeds.stream(seed, seeds.HINTS, turn)
        assert draw_hint(island, treasure, ctx, truthful, ours) == draw_hint(island, treasure, ctx, truthful, numpy_)
        assert ours.random() == numpy_.random()


@IMPLEMENTATIONS
@pytest.mark.parametrize("n, size", [(17, 17), (600, 17), (600, 600), (10000, 65), (10000, 10000),
                                     (50000, 1000), (3_000_000, 60_000), (2**32, 3)])
def test_large_samples_equal_the_generator_s(Draws, n, size):
    # Past 16 picks the compiled Floyd keeps its picks in a hash table, past 64 on the heap.
    for seed in range(3):
        ours, numpy_ = Draws([seed, n]), np.random.default_rng([seed, n])
        assert ours.sample(n, size) == numpy_.choice(n, size=size, replace=False).tolist()
        assert ours.random() == numpy_.random()


@IMPLEMENTATIONS
@pytest.mark.parametrize("drawn", [0, 1, 2, 25, 49])
def test_a_pickled_or_deep_copied_stream_goes_on_where_it_was(Draws, drawn):
    d = Draws([5, 1, 2])
    for _ in range(drawn):  # an odd number leaves a spare 32-bit half to be used next
        d.below(1000)
    clones = [pickle.loads(pickle.dumps(d)), copy.deepcopy(d)]
    want = [d.below(10**6), d.random(), d.sample(600, 6), d.below(7), d.random()]
    for clone in clones:
        assert type(clone) is Draws
        assert [clone.below(10**6), clone.random(), clone.sample(600, 6), clone.below(7), clone.random()] == want


# Requests out of scope, with what each class must say; after the refusal both are at the same place.
REFUSED = [
    ("below", (-1,)), ("below", (2**32,)), ("below", (2**70,)), ("below", (-(2**70),)),
    ("sample", (3, 4)), ("sample", (3, -1)), ("sample", (-1, 0)), ("sample", (20000, 401)),
    ("sample", (2**70, 5)), ("sample", (5, 2**70)), ("sample", (-(2**70), 0)),
    ("sample", (2**32 + 2, 5)),  # Floyd draws for 2**32 - 3 .. 2**32 - 1, then its bound is out of range
]


@needs_built(CDraws, "treasure_cli.rules._draws", f"({NOT_BUILT})")
@pytest.mark.parametrize("method, args", REFUSED)
def test_both_classes_refuse_alike(method, args):
    python, compiled = PyDraws([9]), CDraws([9])
    python.below(5), compiled.below(5)  # a spare half pending
    with pytest.raises(ValueError) as want:
        getattr(python, method)(*args)
    with pytest.raises(ValueError) as got:
        getattr(compiled, method)(*args)
    assert str(got.value) == str(want.value)
    assert compiled.below(2**20) == python.below(2**20)
    assert compiled.random() == python.random()


@needs_built(CDraws, "treasure_cli.rules._draws", f"({NOT_BUILT})")
def test_both_classes_agree_on_odd_seeds_and_edges():
    for keys in ([], [0], [0, 0, 0, 0, 0, 0, 0], [2**32 - 1, 2**32, 2**63, 2**64, 2**200 + 3],
                 [3**100, 2**63 + 0x123456789ABC, 7], [True, np.int64(7)]):
        python, compiled = PyDraws(keys), CDraws(keys)
        assert [compiled.random(), compiled.below(0), compiled.below(2**32 - 1), compiled.sample(5, 0),
                compiled.sample(2**70, 0), compiled.sample(1, 1), compiled.below(1)] == \
               [python.random(), python.below(0), python.below(2**32 - 1), python.sample(5, 0),
                python.sample(2**70, 0), python.sample(1, 1), python.below(1)]
    for bad in ([1, -5], [-(2**80)]):
        with pytest.raises(ValueError) as want:
            PyDraws(bad)
        with pytest.raises(ValueError) as got:
            CDraws(bad)
        assert str(got.value) == str(want.value)


@pytest.mark.skipif(PURE_PYTHON_ASKED, reason="TREASURE_CLI_PURE_PYTHON asks for the Python class")
def test_the_package_draws_with_the_compiled_class():
    """The compiled module is optional to install, so a failed build is quiet: this says it.

    Where the package was installed with a C compiler and Python's headers (CI, `make
    install` here), `Draws` must be the compiled class."""
    assert CDraws is not None, f"treasure_cli.rules._draws does not import ({NOT_BUILT}); reinstall with a C compiler"
    assert draws_module.Draws is CDraws and draws_module.COMPILED
    assert type(seeds.draws(7, seeds.HINTS, 3)) is CDraws


def test_the_python_class_writes_the_golden_logs(tmp_path):
    env = {**os.environ, "TREASURE_CLI_PURE_PYTHON": "1"}
    subprocess.run([sys.executable, "-m", "treasure_cli", "run", "input/", str(tmp_path)], cwd=ROOT, env=env,
                   capture_output=True, check=True)
    golden = sorted(GOLDEN.glob("LOG_*.txt"))
    assert golden and sorted(p.name for p in tmp_path.iterdir()) == [p.name for p in golden]
    for log in golden:
        assert (tmp_path / log.name).read_bytes() == log.read_bytes(), log.name
