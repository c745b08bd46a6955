"""The pirate's walk: one deterministic shortest path from his prison to the treasure."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from treasure_cli.rules import grid
from treasure_cli.rules.bitgrid import BitGrid
from treasure_cli.rules.grid import DagWalk, Direction, Pos, bfs_distance, dag_descendants
from treasure_cli.rules.island import Island

STEPS_PER_TURN = 2
_ORDER = tuple(Direction)  # N, E, S, W: the tie-break after "keep going straight"


def pirate_path(walkable: np.ndarray, distance_to_treasure: np.ndarray, prison: Pos) -> list[Pos]:
    """Tiles from the prison to the treasure, both included (RULES §6).

    From each tile take a walkable neighbour one step closer to the treasure,
    preferring the direction of the previous step, then N, E, S, W.
    `distance_to_treasure` is the walking distance field (-1 = unreachable).
    """
    d = int(distance_to_treasure[prison])
    if d < 0:
        raise ValueError(f"the treasure cannot be reached from the prison at {prison}")
    return list(_steps(walkable, prison, d, lambda r, c, k: distance_to_treasure[r, c] == k))


# Up to this many tiles the treasure's walking-distance layers are found as bit sets
# (`bitgrid`): a layer costs a few whole-map int operations, cheaper than the numpy
# frontier's calls while the map is small. Above it the frontier, whose work per
# layer follows the layer's size, not the map's, is faster.
_BIT_LAYERS_MAX_TILES = 128 * 128


class PiratePath(Sequence[Pos]):
    """`pirate_path` found as far as it is read: the game reads his walk 2 tiles a turn, and a
    game often ends long before he arrives (a 1,000,000-tile corridor's walk took 2.8 s in Python)."""

    def __init__(self, steps: Iterator[Pos], length: int):
        self._steps = steps
        self._tiles: list[Pos] = []
        self._length = length

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: Any) -> Any:  # an int or a slice, as a list takes them
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("the pirate's path has no such tile")
        tiles = self._tiles
        while len(tiles) <= index:
            tiles.append(next(self._steps))
        return tiles[index]


def island_pirate_path(island: Island, prison: Pos) -> PiratePath:
    """`pirate_path` on an island with a treasure, with the cheapest distance layers for its size.

    With the compiled BFS (`grid.COMPILED`) the distance field up to the prison's
    layer is cheaper than the bit layers at every size (13 vs 46 us at 32x32,
    39 vs 104 us at 64x64); the bit layers serve numpy's fallback.
    """
    if (grid.COMPILED or "treasure_distance" in island.__dict__
            or island.walkable.size > _BIT_LAYERS_MAX_TILES):
        distance = island.treasure_distance_within(prison)
        d = int(distance[prison])
        if d < 0:
            raise ValueError(f"the treasure cannot be reached from the prison at {prison}")
        return PiratePath(_steps(island.walkable, prison, d, lambda r, c, k: distance[r, c] == k), d + 1)
    walkable = island.walkable
    g = BitGrid(walkable.shape)
    # layers[k]: tiles at walking distance k from the treasure, until the prison's layer.
    layers = g.layers(island.treasure, g.from_mask(walkable), stop=prison)  # type: ignore[arg-type]  # the game's island
    if not layers[-1] >> g.index(prison) & 1:
        raise ValueError(f"the treasure cannot be reached from the prison at {prison}")
    stride = g.stride
    return PiratePath(_steps(walkable, prison, len(layers) - 1,
                             lambda r, c, k: layers[k] >> ((r + 1) * stride + c + 1) & 1), len(layers))


def _steps(walkable: np.ndarray, prison: Pos, d: int, at_distance: Callable[[int, int, int], Any]) -> Iterator[Pos]:
    """The tiles of the rule's path from `prison`, `d` steps from the treasure, in order;
    `at_distance(r, c, k)` tells whether tile (r, c) is k steps from the treasure."""
    h, w = walkable.shape
    yield prison
    r, c = prison
    previous_step: tuple[tuple[Direction, int, int], ...] = ()  # (direction, dr, dc) of the last step: tried first
    while d > 0:
        for step in previous_step + _DELTAS:
            _, dr, dc = step
            nr, nc = r + dr, c + dc
            if 0 <= nr < h and 0 <= nc < w and walkable[nr, nc] and at_distance(nr, nc, d - 1):
                break
        else:  # impossible with a consistent distance field
            raise AssertionError(f"no step closer to the treasure from {(r, c)}")
        r, c, d, previous_step = nr, nc, d - 1, (step,)
        yield (r, c)


def next_stop(path: Sequence[Pos], index: int) -> int:
    """Index on `path` after one turn's walk from `index` (2 tiles, or 1 if only 1 remains)."""
    return min(index + STEPS_PER_TURN, len(path) - 1)


def preference(previous: Direction | None) -> tuple[Direction, ...]:
    """The pirate's order of choice after a step in `previous` (RULES §6)."""
    if previous is None:
        return _ORDER
    return (previous,) + tuple(d for d in _ORDER if d is not previous)


def _surely_preferred(step: Direction, previous: set[Direction | None]) -> list[Direction]:
    """Directions the pirate would have taken before `step` whatever his previous step was."""
    return _surely_preferred_cached(step, frozenset(previous))


@functools.cache  # at most 4 steps x 32 subsets of previous directions
def _surely_preferred_cached(step: Direction, previous: frozenset[Direction | None]) -> list[Direction]:
    out = None
    for prev in previous:
        order = preference(prev)
        before = set(order[: order.index(step)])
        out = before if out is None else out & before
    return [d for d in _ORDER if d in (out or set())]


def route_options(walkable: np.ndarray, src: Pos, dst: Pos) -> list[list[tuple[Pos, Direction]]]:
    """The ways a 1- or 2-step move src -> dst can have gone: lists of (tile left, direction)."""
    h, w = walkable.shape
    options = []
    for d1, dr1, dc1 in _DELTAS:
        m = (src[0] + dr1, src[1] + dc1)
        if m == dst:
            options.append([(src, d1)])
            continue
        if not (0 <= m[0] < h and 0 <= m[1] < w and walkable[m]):
            continue
        for d2, dr2, dc2 in _DELTAS:
            if (m[0] + dr2, m[1] + dc2) == dst:
                options.append([(src, d1), (m, d2)])
    return options


_DELTAS = tuple((d, d.dr, d.dc) for d in _ORDER)  # an enum property read costs more than a tuple read
_DELTA = {d: (dr, dc) for d, dr, dc in _DELTAS}


class PrisonRoutes:
    """The shortest walks from one prison, to read the treasure off the pirate's moves.

    The pirate walks a shortest path from his prison p to the treasure, so
    after j steps he stands on a tile x with dist(p, x) = j, and a tile t can
    be the treasure only if x lies on a shortest p -> t path:
    dist(x, t) = dist(p, t) - j. Those t are x's descendants in the
    shortest-path DAG from p (edges u -> v between neighbours with
    dist(p, v) = dist(p, u) + 1).

    What is kept per prison is one walking-distance field from p (4 bytes a
    tile), and a set of descendants is found by a search from x over the DAG
    (`grid.dag_descendants`: in C, work in proportion to the set found). An
    earlier version kept one bit set per distance layer from p, cumulated:
    layers x tiles bits, which is the square of the island on a corridor
    (issue 23). The sets found, and the answers, are cached in a number of
    bytes that does not depend on the map: his later moves, and later games
    on the same island, reuse them.

    The set of the tile he stands on after each move comes from a `grid.DagWalk`
    that follows him: on a corridor that set is most of the island at every
    move, and one search per move made a 513x513 snake's game quadratic again.
    """

    _CACHE_BYTES = 4 << 20  # cached tile sets per prison (a mask is a byte a tile)
    _ANSWER_BYTES = 16 << 20  # cached consistent_treasures masks per prison

    def __init__(self, walkable: np.ndarray, prison: Pos):
        self.walkable = walkable
        self.prison = (int(prison[0]), int(prison[1]))
        # The prison is at distance 0 even if it is not walkable (a BFS source).
        self.distance = bfs_distance(walkable, [self.prison])
        self.distance.setflags(write=False)
        self._after: dict[Pos, np.ndarray] = {}
        self._walk = DagWalk(walkable, self.distance, self.prison)  # follows the pirate
        self._after_limit = max(2, self._CACHE_BYTES // walkable.size)
        # Answers of consistent_treasures: on one island the pirate walks the same few
        # paths game after game (a Gymnasium run, a bench of many agents), so most repeat.
        self._answers: dict[tuple[Any, ...], tuple[np.ndarray, frozenset[Direction | None]]] = {}
        self._answers_limit = max(2, self._ANSWER_BYTES // walkable.size)

    def on_route(self, pos: Pos, steps: int) -> np.ndarray:
        """Tiles t with dist(pos, t) = dist(p, t) - steps (both reachable): the (H, W) mask of the
        tiles for which a shortest walk from the prison stands on `pos` after `steps` steps.
        Read-only (it may be shared)."""
        found = self._on_route(pos, steps, True)
        if found is None:
            found = np.zeros(self.walkable.shape, dtype=bool)
            found.setflags(write=False)
        return found

    def _on_route(self, pos: Pos, steps: int, walked: bool = False) -> np.ndarray | None:
        """on_route, or None for no tile. `walked`: the pirate stands on `pos` (the walk follows)."""
        d = int(self.distance[pos])
        if d == steps:
            return self._descendants(pos, steps, walked)
        if 0 <= d < steps:
            # dist(p, t) <= dist(p, pos) + dist(pos, t) < steps + dist(pos, t).
            return None
        # pos is unreachable or farther than `steps` (never on the pirate's own walk): use the fields.
        here = bfs_distance(self.walkable, [pos])
        found = (here >= 0) & (here == self.distance - steps)
        found.setflags(write=False)
        return found  # type: ignore[no-any-return]

    def _descendants(self, pos: Pos, k: int, walked: bool = False) -> np.ndarray:
        """The DAG descendants of `pos`, which lies at distance k (itself included);
        `walked`: `pos` is where the pirate stands, found by the walk that follows him."""
        found = self._after.get(pos)
        if found is None:
            if walked:
                found = self._walk.descendants(pos)
            else:
                found = dag_descendants(self.walkable, self.distance, pos)
            found.setflags(write=False)
            if len(self._after) >= self._after_limit:
                self._after.clear()
            self._after[pos] = found
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
        allowed = None
        last: set[Direction | None] = set()
        for option in route_options(walkable, src, dst):
            ok = self._on_option(option, steps_before)
            if ok is None:
                continue
            prev = previous
            for i, (tile, step) in enumerate(option):
                j = steps_before + i  # steps walked when he stands on `tile`
                for d in _surely_preferred(step, prev):
                    dr, dc = _DELTA[d]
                    y = (tile[0] + dr, tile[1] + dc)
                    if 0 <= y[0] < h and 0 <= y[1] < w and walkable[y]:
                        other = self._on_route(y, j + 1)
                        if other is not None:
                            ok = ok & ~other
                prev = {step}
            if ok is not None and ok.any():
                allowed = ok if allowed is None else allowed | ok
                last.add(option[-1][1])
        if allowed is None:
            return np.zeros(walkable.shape, dtype=bool), last
        return allowed.copy() if not allowed.flags.writeable else allowed, last

    def _on_option(self, option: list[tuple[Pos, Direction]], steps_before: int) -> np.ndarray | None:
        """The tiles t for which a shortest walk from the prison makes the option's steps
        (`on_route` after each step, intersected), or None for no tile."""
        ends = []
        for i, (tile, step) in enumerate(option):
            dr, dc = _DELTA[step]
            end = (tile[0] + dr, tile[1] + dc)
            d = int(self.distance[end])
            if 0 <= d < steps_before + i + 1:
                return None  # (as _on_route has it)
            ends.append((end, steps_before + i + 1, d))
        if all(d == k for _, k, d in ends):
            # Each step goes one farther from the prison: a DAG edge, so each tile's descendants
            # hold the next one's, and the intersection is the last tile's (the pirate's).
            return self._descendants(ends[-1][0], ends[-1][1], True)
        ok = None
        for end, k, _ in ends:
            on = self._on_route(end, k)
            if on is None:
                return None
            ok = on if ok is None else ok & on
        return ok


def prison_routes(island: Island, prison: Pos) -> PrisonRoutes:
    """The PrisonRoutes from `prison` on this island, made once per island and prison: the games
    of a Gymnasium run, or of every agent of a bench, on one island share them."""
    prison = (int(prison[0]), int(prison[1]))
    return island.memo(("pirate routes", prison), lambda isl: PrisonRoutes(isl.walkable, prison))
