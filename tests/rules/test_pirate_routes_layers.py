"""The pirate-route inference against the one it replaced (issue 23), on mazes and corridors.

`LayeredRoutes` below is PrisonRoutes as it was before issue 23, kept verbatim
as the oracle: one bit set per walking-distance layer from the prison,
cumulated, and descendants found by spreading through the layers. Its cost is
layers x tiles (the square of a corridor), so it only runs here, on small maps
whose walks are long for their size: the new inference must give exactly its
answers, move by move.
"""

from __future__ import annotations

import itertools
import operator

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.bitgrid import BitGrid
from treasure_cli.rules.grid import (
    DagWalk, Direction, Pos, bfs_distance, dag_descendants, _dag_descendants_numpy,
)
from treasure_cli.rules.pirate import (
    _DELTA, PrisonRoutes, _surely_preferred, next_stop, pirate_path, route_options,
)


class LayeredRoutes:
    """The shortest walks from one prison, to read the treasure off the pirate's moves.

    The pirate walks a shortest path from his prison p to the treasure, so
    after j steps he stands on a tile x with dist(p, x) = j, and a tile t can
    be the treasure only if x lies on a shortest p -> t path:
    dist(x, t) = dist(p, t) - j. Those t are x's descendants in the
    shortest-path DAG from p (edges u -> v between neighbours with
    dist(p, v) = dist(p, u) + 1), so one walking-distance layering from p,
    kept as bit sets (`bitgrid`), gives every such set by spreading from x
    layer by layer: no walking-distance field per tile, which the pirate's
    every move needed before (a BFS each, ~3 per move). The sets are cached
    by tile: his later moves, and later games on the same island, reuse them.
    """

    _CACHE_BITS = 1 << 22  # cached tile sets per prison: at most ~512 KB of them, whatever the map size
    _ANSWER_BYTES = 16 << 20  # cached consistent_treasures masks per prison

    def __init__(self, walkable: np.ndarray, prison: Pos):
        self.walkable = walkable
        self.prison = (int(prison[0]), int(prison[1]))
        g = self.grid = BitGrid(walkable.shape)
        open_ = g.from_mask(walkable)
        # layers[k]: tiles at walking distance k from the prison (the prison is
        # layer 0 even if it is not walkable, as bfs_distance treats a source).
        self.layers = g.layers(self.prison, open_)
        self.within = list(itertools.accumulate(self.layers, operator.or_))  # within[k]: tiles at distance <= k
        self._after: dict[int, int] = {}
        self._after_limit = max(64, self._CACHE_BITS // g.size)
        self._from_prison: np.ndarray | None = None
        # Answers of consistent_treasures: on one island the pirate walks the same few
        # paths game after game (a Gymnasium run, a bench of many agents), so most repeat.
        self._answers: dict[tuple, tuple[np.ndarray, frozenset[Direction | None]]] = {}
        self._answers_limit = max(2, self._ANSWER_BYTES // walkable.size)  # a mask is a byte a tile

    def on_route(self, pos: Pos, steps: int) -> int:
        """Tiles t with dist(pos, t) = dist(p, t) - steps (both reachable): the bit set of the
        tiles for which a shortest walk from the prison stands on `pos` after `steps` steps."""
        i = self.grid.index(pos)
        layers = self.layers
        if steps < len(layers) and layers[steps] >> i & 1:
            return self._descendants(i, steps)
        if steps >= 1 and self.within[min(steps, len(layers)) - 1] >> i & 1:
            # dist(p, pos) < steps: dist(p, t) <= dist(p, pos) + dist(pos, t) < steps + dist(pos, t).
            return 0
        # pos is unreachable or farther than `steps` (never on the pirate's own walk): use the fields.
        if self._from_prison is None:
            self._from_prison = bfs_distance(self.walkable, [self.prison])
        here = bfs_distance(self.walkable, [pos])
        return self.grid.from_mask((here >= 0) & (here == self._from_prison - steps))

    def _descendants(self, i: int, k: int) -> int:
        """The DAG descendants of tile bit i, which lies in layer k (itself included)."""
        found = self._after.get(i)
        if found is None:
            s = self.grid.stride
            found = front = 1 << i
            for layer in self.layers[k + 1:]:
                front = ((front << 1) | (front >> 1) | (front << s) | (front >> s)) & layer  # grid.spread, inlined
                if not front:
                    break
                found |= front
            if len(self._after) >= self._after_limit:
                self._after.clear()
            self._after[i] = found
        return found

    def consistent_treasures(self, src: Pos, dst: Pos, steps_before: int,
                             previous: set[Direction | None]) -> tuple[np.ndarray, set[Direction | None]]:
        """Tiles t for which the pirate's rule walks src -> dst, given the route so far.

        On the true route, the tile after j steps is on a shortest walk to t
        (`on_route`), and at each step no neighbour preferred over the one
        taken is one step closer to t, i.e. on such a walk too. `previous`
        holds the directions his last step may have had (None before the
        first step); only constraints that hold for all of them are used, so
        the treasure is never ruled out. Returns the (H, W) mask and the
        possible directions of his last step. The mask is read-only (it may be shared).
        """
        key = (src, dst, steps_before, frozenset(previous))
        answer = self._answers.get(key)
        if answer is None:
            if len(self._answers) >= self._answers_limit:
                self._answers.clear()
            mask, last = self._consistent(src, dst, steps_before, previous)
            mask.setflags(write=False)
            answer = self._answers[key] = (mask, frozenset(last))
        return answer[0], set(answer[1])

    def _consistent(self, src: Pos, dst: Pos, steps_before: int,
                    previous: set[Direction | None]) -> tuple[np.ndarray, set[Direction | None]]:
        h, w = self.walkable.shape
        walkable = self.walkable
        allowed = 0
        last: set[Direction | None] = set()
        for option in route_options(walkable, src, dst):
            ok = -1  # every tile (an int with all bits set); the first step's set narrows it
            prev = previous
            for i, (tile, step) in enumerate(option):
                j = steps_before + i  # steps walked when he stands on `tile`
                dr, dc = _DELTA[step]
                ok &= self.on_route((tile[0] + dr, tile[1] + dc), j + 1)
                for d in _surely_preferred(step, prev):
                    dr, dc = _DELTA[d]
                    y = (tile[0] + dr, tile[1] + dc)
                    if 0 <= y[0] < h and 0 <= y[1] < w and walkable[y]:
                        ok &= ~self.on_route(y, j + 1)
                prev = {step}
            if ok:
                allowed |= ok
                last.add(option[-1][1])
        return self.grid.to_mask(allowed), last




def maze(h: int, w: int, seed: int, braid: float) -> np.ndarray:
    """A walkable mask: a random depth-first maze on the odd cells, some walls knocked out."""
    rng = np.random.default_rng(seed)
    walk = np.zeros((h, w), dtype=bool)
    cells = [(r, c) for r in range(0, h, 2) for c in range(0, w, 2)]
    start = cells[int(rng.integers(len(cells)))]
    walk[start] = True
    stack = [start]
    while stack:
        r, c = stack[-1]
        nxt = [(r + dr, c + dc) for dr, dc in ((-2, 0), (2, 0), (0, -2), (0, 2))
               if 0 <= r + dr < h and 0 <= c + dc < w and not walk[r + dr, c + dc]]
        if not nxt:
            stack.pop()
            continue
        nr, nc = nxt[int(rng.integers(len(nxt)))]
        walk[(r + nr) // 2, (c + nc) // 2] = walk[nr, nc] = True
        stack.append((nr, nc))
    walls = np.argwhere(~walk)
    if len(walls):
        knock = walls[rng.random(len(walls)) < braid]
        walk[knock[:, 0], knock[:, 1]] = True
    return walk


def snake(h: int, w: int) -> np.ndarray:
    """One corridor a tile wide, folded row after row."""
    walk = np.zeros((h, w), dtype=bool)
    walk[::2] = True
    for i, r in enumerate(range(1, h, 2)):
        walk[r, w - 1 if i % 2 == 0 else 0] = True
    return walk


def corridor(h: int, w: int) -> np.ndarray:
    return np.ones((h, w), dtype=bool)  # thin when h is 1-3


shapes = st.one_of(
    st.builds(maze, st.integers(1, 15), st.integers(1, 15), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.05, 0.2])),
    st.builds(snake, st.integers(1, 13), st.integers(1, 13)),
    st.builds(corridor, st.integers(1, 3), st.integers(1, 40)),
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
directions = st.sets(st.sampled_from([None, *Direction]), min_size=1)


def tiles(walkable, rng, count):
    h, w = walkable.shape
    return [(int(rng.integers(h)), int(rng.integers(w))) for _ in range(count)]


@SETTINGS
@given(shapes, st.integers(0, 2**32 - 1))
def test_on_route_is_the_layered_answer_on_mazes_and_corridors(walkable, seed):
    rng = np.random.default_rng(seed)
    prison = tiles(walkable, rng, 1)[0]
    new, old = PrisonRoutes(walkable, prison), LayeredRoutes(walkable, prison)
    far = int(new.distance.max()) + 2
    for pos in tiles(walkable, rng, 6):
        for steps in {0, 1, int(new.distance[pos]), int(new.distance[pos]) + 1, int(rng.integers(far + 1))}:
            if steps >= 0:
                assert np.array_equal(new.on_route(pos, steps), old.grid.to_mask(old.on_route(pos, steps)))


@SETTINGS
@given(shapes, st.integers(0, 2**32 - 1), directions)
def test_consistent_treasures_are_the_layered_answer_for_any_move(walkable, seed, previous):
    rng = np.random.default_rng(seed)
    h, w = walkable.shape
    prison = tiles(walkable, rng, 1)[0]
    new, old = PrisonRoutes(walkable, prison), LayeredRoutes(walkable, prison)
    for src in tiles(walkable, rng, 6):
        dr, dc = (int(x) for x in rng.integers(-2, 3, size=2))
        dst = (min(max(src[0] + dr, 0), h - 1), min(max(src[1] + dc, 0), w - 1))
        d = max(int(new.distance[src]), 0)
        for steps_before in (d, max(d - 1, 0), int(rng.integers(0, 2 * d + 3))):
            got = new.consistent_treasures(src, dst, steps_before, previous)
            want = old.consistent_treasures(src, dst, steps_before, previous)
            assert np.array_equal(got[0], want[0]) and got[1] == want[1]


@SETTINGS
@given(shapes, st.integers(0, 2**32 - 1))
def test_the_pirate_walk_is_read_as_before_move_by_move(walkable, seed):
    rng = np.random.default_rng(seed)
    free = np.argwhere(walkable)
    if len(free) < 2:
        return
    a, b = rng.choice(len(free), size=2, replace=False)
    prison, treasure = tuple(int(x) for x in free[a]), tuple(int(x) for x in free[b])
    from_treasure = bfs_distance(walkable, [treasure])
    if from_treasure[prison] < 0:
        return
    path = pirate_path(walkable, from_treasure, prison)
    new, old = PrisonRoutes(walkable, prison), LayeredRoutes(walkable, prison)
    index, steps, last_new, last_old = 0, 0, {None}, {None}
    while index < len(path) - 1:
        src, index = path[index], next_stop(path, index)
        dst = path[index]
        got, last_new = new.consistent_treasures(src, dst, steps, last_new)
        want, last_old = old.consistent_treasures(src, dst, steps, last_old)
        assert np.array_equal(got, want) and last_new == last_old
        assert got[treasure]
        steps += abs(dst[0] - src[0]) + abs(dst[1] - src[1])


@SETTINGS
@given(shapes, st.integers(0, 2**32 - 1))
def test_dag_descendants_compiled_and_numpy_agree(walkable, seed):
    rng = np.random.default_rng(seed)
    source = tiles(walkable, rng, 1)[0]
    distance = bfs_distance(walkable, [source])
    for pos in tiles(walkable, rng, 6) + [source]:
        assert np.array_equal(dag_descendants(walkable, distance, pos),
                              _dag_descendants_numpy(walkable, distance, pos))


@SETTINGS
@given(shapes, st.integers(0, 2**32 - 1))
def test_the_dag_walk_gives_each_tiles_descendants_in_any_order(walkable, seed):
    """Forward along the DAG one or two steps at a time (the pirate's moves), with jumps
    back, sideways and off the DAG between (the walk starts over)."""
    rng = np.random.default_rng(seed)
    h, w = walkable.shape
    source = tiles(walkable, rng, 1)[0]
    distance = bfs_distance(walkable, [source])
    walk = DagWalk(walkable, distance, source)
    pos = source
    for _ in range(12):
        if rng.random() < 0.25:
            pos = tiles(walkable, rng, 1)[0]
        for _ in range(int(rng.integers(1, 3))):
            r, c = pos
            children = [(r + dr, c + dc) for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1))
                        if 0 <= r + dr < h and 0 <= c + dc < w and distance[r + dr, c + dc] == distance[pos] + 1]
            if children and distance[pos] >= 0:
                pos = children[int(rng.integers(len(children)))]
        assert np.array_equal(walk.descendants(pos), _dag_descendants_numpy(walkable, distance, pos))



def test_the_generators_maze_is_read_as_before():
    island = generate_island(21, 21, style="maze", rng=np.random.default_rng(5))
    walkable = island.walkable
    for prison in island.reachable_prisons:
        path = pirate_path(walkable, island.treasure_distance, prison)
        new, old = PrisonRoutes(walkable, prison), LayeredRoutes(walkable, prison)
        index, steps, last_new, last_old = 0, 0, {None}, {None}
        while index < len(path) - 1:
            src, index = path[index], next_stop(path, index)
            got, last_new = new.consistent_treasures(src, path[index], steps, last_new)
            want, last_old = old.consistent_treasures(src, path[index], steps, last_old)
            assert np.array_equal(got, want) and last_new == last_old
            steps += abs(path[index][0] - src[0]) + abs(path[index][1] - src[1])
