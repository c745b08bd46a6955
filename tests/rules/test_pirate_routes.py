"""PrisonRoutes (bit sets over the shortest-path DAG) against the straightforward reading of the
pirate's moves with one walking-distance field per tile, kept here as the reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.grid import Direction, bfs_distance
from treasure_cli.rules.pirate import (
    PrisonRoutes, _surely_preferred, next_stop, pirate_path, prison_routes, route_options,
)

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


N, E, S, W = Direction.N, Direction.E, Direction.S, Direction.W


def preferred_before(step, previous):
    """RULES §6 read on its own: after a step in direction p the pirate tries p, then N, E, S, W
    (N, E, S, W before his first step). The directions he tries before `step` whatever p was
    among `previous`, in N, E, S, W order."""
    sure = {N, E, S, W}
    for p in previous:
        tried = ([p] if p is not None else []) + [d for d in (N, E, S, W) if d is not p]
        sure &= set(tried[:tried.index(step)])
    return [d for d in (N, E, S, W) if d in sure]


@pytest.mark.parametrize(("step", "previous", "expected"), [
    (N, {None}, []), (W, {None}, [N, E, S]), (W, {E}, [N, E, S]), (N, {E}, [E]), (N, {E, None}, []),
    (S, {E, W}, [N, E]), (S, {S}, []), (E, {W, None}, [N]), (E, {S}, [N, S]), (E, {N, S, None}, [N]),
])
def test_surely_preferred_directions_by_hand(step, previous, expected):
    """Worked by hand from the rules, not computed by the code under test."""
    assert preferred_before(step, previous) == expected
    assert _surely_preferred(step, set(previous)) == expected


def reference_consistent_treasures(walkable, from_prison, distance_from, src, dst, steps_before, previous):
    """The field-based definition PrisonRoutes.consistent_treasures replaced (same answer, a BFS per tile)."""
    h, w = walkable.shape
    allowed = np.zeros(walkable.shape, dtype=bool)
    last = set()
    for option in route_options(walkable, src, dst):
        ok = np.ones(walkable.shape, dtype=bool)
        prev = previous
        for i, (tile, step) in enumerate(option):
            j = steps_before + i
            nxt = (tile[0] + step.dr, tile[1] + step.dc)
            dn = distance_from(nxt)
            ok &= (dn >= 0) & (dn == from_prison - j - 1)
            for d in preferred_before(step, prev):  # the rules' own reading, not the code under test
                y = (tile[0] + d.dr, tile[1] + d.dc)
                if 0 <= y[0] < h and 0 <= y[1] < w and walkable[y]:
                    dy = distance_from(y)
                    ok &= ~((dy >= 0) & (dy == from_prison - j - 1))
            prev = {step}
        if ok.any():
            allowed |= ok
            last.add(option[-1][1])
    return allowed, last


def field_of(walkable):
    return lambda pos: bfs_distance(walkable, [pos])


# Small random grids: walls everywhere, mazes, open fields and unreachable pockets.
grids = st.tuples(st.integers(1, 12), st.integers(1, 12), st.floats(0.3, 1.0), st.integers(0, 2**32 - 1))


def make_grid(case):
    h, w, density, seed = case
    rng = np.random.default_rng(seed)
    return rng.random((h, w)) < density, rng


@SETTINGS
@given(grids, st.integers(0, 30))
def test_on_route_is_the_distance_field_equation(case, steps):
    walkable, rng = make_grid(case)
    h, w = walkable.shape
    prison = (int(rng.integers(h)), int(rng.integers(w)))  # walkable or not: a BFS source either way
    routes = PrisonRoutes(walkable, prison)
    from_prison = bfs_distance(walkable, [prison])
    for _ in range(8):
        pos = (int(rng.integers(h)), int(rng.integers(w)))  # any tile: also the fallback cases
        here = bfs_distance(walkable, [pos])
        want = (here >= 0) & (here == from_prison - steps)
        assert np.array_equal(routes.on_route(pos, steps), want)


directions = st.sets(st.sampled_from([None, *Direction]), min_size=1)


@SETTINGS
@given(grids, st.integers(0, 20), directions)
def test_consistent_treasures_match_the_reference_for_any_move(case, steps_before, previous):
    walkable, rng = make_grid(case)
    h, w = walkable.shape
    prison = (int(rng.integers(h)), int(rng.integers(w)))
    routes = PrisonRoutes(walkable, prison)
    from_prison = bfs_distance(walkable, [prison])
    for _ in range(6):
        src = (int(rng.integers(h)), int(rng.integers(w)))
        dr, dc = (int(x) for x in rng.integers(-2, 3, size=2))
        dst = (min(max(src[0] + dr, 0), h - 1), min(max(src[1] + dc, 0), w - 1))
        got = routes.consistent_treasures(src, dst, steps_before, previous)
        want = reference_consistent_treasures(walkable, from_prison, field_of(walkable), src, dst,
                                              steps_before, previous)
        assert np.array_equal(got[0], want[0]) and got[1] == want[1]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(6, 40), st.integers(6, 40), st.integers(0, 2**32 - 1))
def test_the_pirate_walk_is_read_the_same_move_by_move(w, h, seed):
    island = generate_island(w, h, rng=np.random.default_rng(seed))
    routes = prison_routes(island, island.reachable_prisons[0])
    walkable = island.walkable
    from_prison = bfs_distance(walkable, [routes.prison])
    path = pirate_path(walkable, island.treasure_distance, routes.prison)
    index, steps, last_new, last_ref = 0, 0, {None}, {None}
    treasure = island.treasure
    while index < len(path) - 1:
        src, index = path[index], next_stop(path, index)
        dst = path[index]
        new, last_new = routes.consistent_treasures(src, dst, steps, last_new)
        ref, last_ref = reference_consistent_treasures(walkable, from_prison, field_of(walkable), src, dst,
                                                       steps, last_ref)
        assert np.array_equal(new, ref) and last_new == last_ref
        assert new[treasure]  # the treasure is never ruled out
        steps += abs(dst[0] - src[0]) + abs(dst[1] - src[1])


def test_routes_are_made_once_per_island_and_prison_and_shared_with_its_public_copy():
    island = generate_island(20, 16, rng=np.random.default_rng(3))
    a, b = island.prisons[:2]
    assert prison_routes(island, a) is prison_routes(island, a) is prison_routes(island.public(), a)
    assert prison_routes(island, a) is not prison_routes(island, b)
    other = generate_island(20, 16, rng=np.random.default_rng(3))  # the same map, another island
    assert prison_routes(other, a) is not prison_routes(island, a)


def test_a_repeated_move_gets_the_same_answer_from_the_cache_unharmed_by_callers():
    island = generate_island(20, 16, rng=np.random.default_rng(3))
    routes = PrisonRoutes(island.walkable, island.reachable_prisons[0])
    path = pirate_path(island.walkable, island.treasure_distance, routes.prison)
    src, dst = path[0], path[next_stop(path, 0)]
    first, last = routes.consistent_treasures(src, dst, 0, {None})
    assert not first.flags.writeable  # shared with later games: nobody may change it
    last.add("changed by the caller")  # the caller's set is its own
    again, last_again = routes.consistent_treasures(src, dst, 0, {None})
    assert again is first and "changed by the caller" not in last_again
    fresh, fresh_last = PrisonRoutes(island.walkable, routes.prison)._consistent(src, dst, 0, {None})
    assert np.array_equal(again, fresh) and last_again == fresh_last
