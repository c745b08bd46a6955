"""The compiled generator steps (treasure_cli.islands._gen) against numpy and the Python steps.

Every island must be the same with or without the compiled module: each draw
primitive is compared with numpy's Generator method it stands for (including
the rejection paths and a spare 32-bit half-word carried into and out of a
kernel), each kernel with the numpy step it replaces, and the whole generator
with the Python steps over many seeds, sizes and options.
"""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import needs_built

from treasure_cli import compiled
from treasure_cli.islands import generator
from treasure_cli.islands.generator import PYTHON_STEPS, _Retry, limits
from treasure_cli.formats.map_file import format_map
from treasure_cli.rules import grid
from treasure_cli.rules.island import Island

try:
    from treasure_cli.islands import _gen
    NOT_BUILT = ""
except ImportError as exc:  # the tests below say why it is missing
    _gen, NOT_BUILT = None, f"{type(exc).__name__}: {exc}"

needs_module = needs_built(_gen, "treasure_cli.islands._gen", f"({NOT_BUILT})")
COMPILED_STEPS = None if _gen is None else generator._compiled_steps(_gen)  # whatever the environment asks
PURE_PYTHON_ASKED = compiled.PURE_PYTHON

RANDOM, RANDOM_F32, INTEGERS, PERMUTATION, SAMPLE = range(5)  # _gen.draws kinds


def twins(seed, spare: bool):
    """Two Generators at the same place in one stream; with `spare`, a 32-bit half-word pending."""
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    if spare:
        assert a.integers(0, 7) == b.integers(0, 7)  # a 32-bit draw leaves the word's high half
    return a, b


def plain(state):
    """A bit generator's state with its arrays (Philox, MT19937) as lists: comparable with ==."""
    if isinstance(state, dict):
        return {key: plain(value) for key, value in state.items()}
    return state.tolist() if isinstance(state, np.ndarray) else state


def same_place(a, b):
    """Both streams go on alike: the spare half, the 32-bit and the 64-bit draws."""
    assert plain(a.bit_generator.state) == plain(b.bit_generator.state)
    assert a.integers(0, 1000) == b.integers(0, 1000)
    assert a.random() == b.random()


def drawn(rng, kind, n, arg):
    out = np.empty(n, dtype={RANDOM: np.float64, RANDOM_F32: np.float32}.get(kind, np.int64))
    _gen.draws(rng.bit_generator.capsule, kind, n, arg, out)
    return out


# -- each draw against numpy's ---------------------------------------------------
@needs_module
@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), spare=st.booleans(), n=st.integers(0, 40))
def test_floats_equal_the_generator_s(seed, spare, n):
    a, b = twins(seed, spare)
    assert drawn(a, RANDOM, n, 0).tolist() == b.random(n).tolist()
    assert drawn(a, RANDOM_F32, n, 0).tolist() == b.random(n, dtype=np.float32).tolist()  # 32-bit draws
    same_place(a, b)


@needs_module
@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), spare=st.booleans(), n=st.integers(0, 30),
       high=st.one_of(st.integers(1, 50), st.integers(1, 2**32),
                      st.sampled_from([2**31 + 1, 3 * 2**30, 2**32 - 5, 2**32 - 1, 2**32])))
def test_bounded_integers_equal_the_generator_s(seed, spare, n, high):
    # Ranges just above a power of two reject a third to a half of the draws.
    a, b = twins(seed, spare)
    assert drawn(a, INTEGERS, n, high).tolist() == b.integers(0, high, size=n).tolist()
    same_place(a, b)


@needs_module
@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), spare=st.booleans(), n=st.one_of(st.integers(0, 70), st.integers(0, 3000)))
def test_permutations_equal_the_generator_s(seed, spare, n):
    # random_interval: masked draws, rejected above the bound (just past a power of two, half of them)
    a, b = twins(seed, spare)
    assert drawn(a, PERMUTATION, n, 0).tolist() == b.permutation(n).tolist()
    same_place(a, b)


@needs_module
@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), spare=st.booleans(), data=st.data())
def test_samples_without_replacement_equal_the_generator_s(seed, spare, data):
    pop = data.draw(st.one_of(st.integers(0, 40), st.integers(0, 10001), st.integers(10001, 40000)), "population")
    size = data.draw(st.one_of(st.integers(0, min(pop, 20)), st.integers(0, pop)), "size")
    a, b = twins(seed, spare)
    assert drawn(a, SAMPLE, size, pop).tolist() == b.choice(pop, size=size, replace=False).tolist()
    same_place(a, b)


@needs_module
@pytest.mark.parametrize("pop, size", [(0, 0), (1, 1), (17, 17), (600, 17), (600, 600), (10000, 10000),
                                       (10001, 200), (10001, 201), (10001, 10001), (30000, 600), (30000, 601)])
def test_each_way_of_sampling_equals_the_generator_s(pop, size):
    # Floyd with a scan or a hash set, and numpy's tail shuffle (population > 10000, size > population // 50)
    for seed in range(5):
        a, b = twins(seed, seed % 2 == 1)
        assert drawn(a, SAMPLE, size, pop).tolist() == b.choice(pop, size=size, replace=False).tolist()
        same_place(a, b)


@needs_module
def test_kernels_draw_from_any_bit_generator_as_numpy_does():
    # The capsule gives the bit generator's own functions: not only PCG64.
    for bits in (np.random.Philox, np.random.MT19937, np.random.SFC64, np.random.PCG64DXSM):
        a, b = np.random.Generator(bits(5)), np.random.Generator(bits(5))
        assert drawn(a, INTEGERS, 9, 1000).tolist() == b.integers(0, 1000, size=9).tolist()
        assert drawn(a, PERMUTATION, 50, 0).tolist() == b.permutation(50).tolist()
        assert drawn(a, SAMPLE, 30, 700).tolist() == b.choice(700, size=30, replace=False).tolist()
        same_place(a, b)


# -- each step against the numpy step it replaces -----------------------------------------
def run_both(step, *args, seed, spare=False):
    """The Python and the compiled step on twin Generators: (result or _Retry) of each."""
    outcomes = []
    a, b = twins(seed, spare)
    for steps, rng in ((PYTHON_STEPS, a), (COMPILED_STEPS, b)):
        copies = [x.copy() if isinstance(x, np.ndarray) else x for x in args]  # steps may write into them
        try:
            outcomes.append((getattr(steps, step)(*copies, rng), copies))
        except _Retry:
            outcomes.append(("retry", copies))
    same_place(a, b)
    return outcomes


def land_of(width, height, seed):
    try:
        return PYTHON_STEPS.land_mask(width, height, np.random.default_rng(seed))[0].ravel()
    except _Retry:
        return None


@needs_module
@settings(max_examples=120, deadline=None)
@given(width=st.integers(5, 90), height=st.integers(5, 90), seed=st.integers(0, 2**32), spare=st.booleans())
def test_land_equals_the_numpy_step(width, height, seed, spare):
    (want, _), (got, _) = run_both("land_mask", width, height, seed=seed, spare=spare)
    if isinstance(want, str) or isinstance(got, str):
        assert want == got
        return
    assert np.array_equal(got[0], want[0]) and got[1] == want[1]


@needs_module
@settings(max_examples=120, deadline=None)
@given(width=st.integers(5, 60), height=st.integers(5, 60), seed=st.integers(0, 2**32), spare=st.booleans(),
       data=st.data())
def test_regions_equal_the_numpy_step(width, height, seed, spare, data):
    land = land_of(width, height, seed)
    if land is None:
        return
    count = data.draw(st.integers(1, int(land.sum())), "count")
    (want, _), (got, _) = run_both("grow_regions", land, width, count, seed=seed + 1, spare=spare)
    assert got.dtype == want.dtype == np.int32 and np.array_equal(got, want)


@needs_module
@pytest.mark.parametrize("width, height, count", [
    (5, 5, 9),       # every inner tile a seed: tries that are all seeds already
    (6, 5, 12),
    (7, 7, 20),
    (120, 120, 1001),  # more than 1000 seeds: a plain sample (numpy's tail shuffle past 10000 tiles)
    (60, 60, 1001),  # ... and Floyd's below
])
def test_regions_equal_the_numpy_step_at_the_edges(width, height, count):
    land = np.zeros((height, width), dtype=bool)
    land[1:-1, 1:-1] = True
    land = land.ravel()
    for seed in range(4):
        (want, _), (got, _) = run_both("grow_regions", land, width, count, seed=seed, spare=seed % 2 == 1)
        assert np.array_equal(got, want)


class FallbackSpy(np.random.Generator):
    """Counts _spread_seeds' draws of a free tile (its only one-argument integers call)."""

    fallbacks = 0

    def integers(self, *args, **kwargs):
        if len(args) == 1 and not kwargs:
            FallbackSpy.fallbacks += 1
        return super().integers(*args, **kwargs)


@needs_module
def test_tries_that_are_all_seeds_already_fall_back_alike():
    # Nine seeds on nine tiles: some seed's eight tries are all taken, and a free tile is drawn.
    land = np.pad(np.ones((3, 3), dtype=bool), 1).ravel()
    FallbackSpy.fallbacks = 0
    for seed in range(6):
        want = generator._grow_regions(land, 5, 9, FallbackSpy(np.random.PCG64(seed)))
        got = COMPILED_STEPS.grow_regions(land, 5, 9, np.random.default_rng(seed))
        assert np.array_equal(got, want)
    assert FallbackSpy.fallbacks > 0, "no seed fell back on a free tile: the edge case is not exercised"


@needs_module
@settings(max_examples=120, deadline=None)
@given(width=st.integers(5, 60), height=st.integers(5, 60), seed=st.integers(0, 2**32), spare=st.booleans(),
       data=st.data())
def test_mountains_equal_the_numpy_step(width, height, seed, spare, data):
    land = land_of(width, height, seed)
    if land is None:
        return
    count = data.draw(st.integers(0, min(int(land.sum()), limits(width, height)["mountains"] * 2)), "count")
    (want, _), (got, _) = run_both("place_mountains", land, width, count, seed=seed + 1, spare=spare)
    if isinstance(want, str) or isinstance(got, str):
        assert want == got
    else:
        assert np.array_equal(got, want)


@needs_module
@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 400), density=st.floats(0.01, 1), seed=st.integers(0, 2**32), spare=st.booleans())
def test_treasure_equals_the_numpy_step(n, density, seed, spare):
    walkable = np.random.default_rng(seed).random(n) < density
    if not walkable.any():
        return
    (want, _), (got, _) = run_both("pick_treasure", walkable, seed=seed + 1, spare=spare)
    assert got == want


@needs_module
@settings(max_examples=150, deadline=None)
@given(width=st.integers(5, 40), height=st.integers(5, 40), seed=st.integers(0, 2**32), spare=st.booleans(),
       count=st.integers(1, 30))
def test_prisons_equal_the_numpy_step(width, height, seed, spare, count):
    dist = np.random.default_rng(seed).integers(-1, width, size=width * height, dtype=np.int32)
    (want, _), (got, _) = run_both("prison_mask", dist, width, height, count, seed=seed + 1, spare=spare)
    if isinstance(want, str) or isinstance(got, str):
        assert want == got
    else:
        assert np.array_equal(got, want)


@needs_module
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h=st.integers(1, 12), w=st.integers(1, 12), density=st.floats(0, 1), seed=st.integers(0, 10**6))
def test_pockets_equal_the_largest_piece_s(h, w, density, seed):
    walkable = np.random.default_rng(seed).random((h, w)) < density
    pieces = grid.components(walkable)
    pockets = np.empty(h * w, dtype=bool)
    found = _gen.pockets(pieces, -1, pockets)
    if found < 0:  # a tie: only the distance field can say which piece is kept
        inland = int(pieces.flat[int(np.argmax(grid.manhattan_distance_to(~walkable)))])
        found = _gen.pockets(pieces, inland, pockets)
    want = walkable & ~generator._largest_piece(walkable)
    assert found == int(want.sum()) and np.array_equal(pockets, want.ravel())


@needs_module
@settings(max_examples=150, deadline=None)
@given(size=st.integers(5, 30), seed=st.integers(0, 2**32), data=st.data())
def test_the_checks_equal_the_numpy_step_s(size, seed, data):
    """_verify's verdict on islands spoiled in every way it looks for."""
    island = generator.generate_island(size, size, rng=np.random.default_rng(seed))
    regions, mountain, prison = island.regions.copy(), island.mountain.copy(), island.prison.copy()
    dist = island.treasure_distance.copy()
    treasure = island.treasure
    spoil = data.draw(st.sampled_from(["none", "region", "border", "mountain", "prison", "overlap", "sea", "treasure",
                                       "dist", "walk", "number"]))
    tiles = list(zip(*np.nonzero(regions)))
    pick = tiles[data.draw(st.integers(0, len(tiles) - 1), "tile")]
    if spoil == "region":
        regions[regions == regions.max()] = 1
    elif spoil == "border":
        regions[0, data.draw(st.integers(0, size - 1))] = 1
    elif spoil == "mountain":
        mountain[pick] = not mountain[pick]
    elif spoil == "prison":
        prison[pick] = not prison[pick]
    elif spoil == "overlap":
        mountain[island.prisons[0]] = True
    elif spoil == "sea":
        sea = list(zip(*np.nonzero(regions == 0)))
        (mountain if data.draw(st.booleans()) else prison)[sea[data.draw(st.integers(0, len(sea) - 1))]] = True
    elif spoil == "treasure":
        treasure = pick
    elif spoil == "dist":
        dist[island.prisons[0]] = 0
    elif spoil == "walk":
        dist[pick] = -1 if dist[pick] >= 0 else 3
    elif spoil == "number":
        regions[pick] = data.draw(st.sampled_from([-1, int(regions.max()) + 1, 2**31 - 1]))
    spoiled = Island(regions, mountain, prison, island.reveal_turn, island.free_turn, treasure)
    n_regions, n_prisons, n_mountains = int(island.regions.max()), len(island.prisons), int(island.mountain.sum())
    want = generator._verify(spoiled, dist, n_regions, n_prisons, n_mountains)
    assert COMPILED_STEPS.verify(spoiled, dist, n_regions, n_prisons, n_mountains) == want
    if spoil == "none":
        assert want


# -- the whole generator -----------------------------------------------------------
def both_islands(width, height, seed, options, spare=False):
    """format_map of each way's island (or its refusal), and the two Generators afterwards."""
    out = []
    a, b = twins(seed, spare)
    for steps, rng in ((PYTHON_STEPS, a), (COMPILED_STEPS, b)):
        try:
            island = generator._generate(width, height, options.get("regions"), options.get("prisons"),
                                         options.get("mountains"), options.get("reveal_turn"),
                                         options.get("free_turn"), rng, steps)
            out.append(island)
        except ValueError as exc:
            out.append(str(exc))
    return out, a, b


def assert_same(width, height, seed, options, spare=False):
    (want, got), a, b = both_islands(width, height, seed, options, spare)
    if isinstance(want, str) or isinstance(got, str):
        assert got == want
    else:
        assert format_map(got) == format_map(want)
        assert got == want and got.treasure == want.treasure
        for name in ("walkable", "walk_pieces", "treasure_distance"):  # what the generator primes
            assert np.array_equal(getattr(got, name), getattr(want, name)), name
    same_place(a, b)


sides = st.one_of(st.integers(5, 40), st.integers(5, 200))


@needs_module
@settings(max_examples=200, deadline=None)
@given(width=sides, height=sides, seed=st.integers(0, 2**64 - 1), spare=st.booleans())
def test_islands_equal_the_python_steps_s(width, height, seed, spare):
    assert_same(width, height, seed, {}, spare)


@needs_module
@settings(max_examples=200, deadline=None)
@given(width=st.integers(5, 60), height=st.integers(5, 60), seed=st.integers(0, 2**32), data=st.data())
def test_islands_with_options_equal_the_python_steps_s(width, height, seed, data):
    lim = limits(width, height)
    options = {}
    # Near the limits the attempts fail (_Retry) and draw again: tight options on purpose
    if data.draw(st.booleans(), "regions?"):
        options["regions"] = data.draw(st.one_of(st.integers(1, lim["regions"]), st.just(lim["regions"])), "regions")
    if data.draw(st.booleans(), "prisons?"):
        options["prisons"] = data.draw(st.one_of(st.integers(1, lim["prisons"]), st.just(lim["prisons"])), "prisons")
    if data.draw(st.booleans(), "mountains?"):
        options["mountains"] = data.draw(st.one_of(st.integers(0, lim["mountains"]), st.just(lim["mountains"])),
                                         "mountains")
    if data.draw(st.booleans(), "reveal?"):
        options["reveal_turn"] = data.draw(st.integers(1, 9), "reveal")
    if data.draw(st.booleans(), "free?"):
        options["free_turn"] = data.draw(st.integers(1, 30), "free")
    assert_same(width, height, seed, options)


@needs_module
@pytest.mark.parametrize("width, height, options", [
    # narrow maps at their limits: their land is often too small, or too cut up for the mountains
    (5, 37, {"regions": 11, "prisons": 6, "mountains": 13}),
    (5, 29, {"regions": 9, "prisons": 5, "mountains": 10}),
    (37, 5, {"regions": 11, "prisons": 6, "mountains": 13}),
    (5, 33, {}),
])
def test_tight_options_retry_alike(width, height, options, monkeypatch):
    """Options that make attempts fail: both ways retry the same number of times, to the same island."""
    counts = []
    real = generator._attempt

    def counted(*args):
        counts[-1] += 1
        return real(*args)

    monkeypatch.setattr(generator, "_attempt", counted)
    retried = False
    for seed in range(30):
        tally = []
        for steps in (PYTHON_STEPS, COMPILED_STEPS):
            counts.append(0)
            try:
                generator._generate(width, height, options.get("regions"), options.get("prisons"),
                                    options.get("mountains"), None, None, np.random.default_rng(seed), steps)
            except ValueError:
                pass
            tally.append(counts[-1])
        assert tally[0] == tally[1]
        retried |= tally[0] > 1
        assert_same(width, height, seed, options)
    assert retried, "no attempt failed: the options are not tight enough to test the retries"


@needs_module
@pytest.mark.parametrize("size", [32, 64, 256])
def test_bench_islands_equal_the_python_steps_s(size):
    from treasure_cli.rules.seeds import bench_island_seed as island_seed
    for index in range(40 if size < 256 else 3):
        assert_same(size, size, island_seed(1, size, index), {})


@needs_module
def test_a_generator_subclass_gets_the_python_steps():
    class Counting(np.random.Generator):
        calls = 0

        def random(self, *args, **kwargs):
            Counting.calls += 1
            return super().random(*args, **kwargs)

    island = generator.generate_island(20, 20, rng=Counting(np.random.PCG64(3)))
    assert Counting.calls > 0  # its own methods were used
    assert format_map(island) == format_map(generator.generate_island(20, 20, rng=np.random.default_rng(3)))


@pytest.mark.skipif(PURE_PYTHON_ASKED, reason="TREASURE_CLI_PURE_PYTHON asks for the Python steps")
def test_the_generator_uses_the_compiled_steps():
    """The compiled module is optional to install, so a failed build is quiet: this says it.

    Where the package was installed with a C compiler and Python's headers (CI, `make
    install` here), the generator must run the compiled steps."""
    assert _gen is not None, f"treasure_cli.islands._gen does not import ({NOT_BUILT}); reinstall with a C compiler"
    assert generator.COMPILED and generator.COMPILED_STEPS is not None
