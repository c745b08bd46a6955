"""The island: public terrain as numpy arrays, plus the treasure when known.

`Island` is an immutable value. The arrays are made read-only on creation so
no holder (game, agent, renderer) can change the map under another. Derived
masks are computed on first use and cached; those that depend on the terrain
only are shared with the island's public copy, whichever computes them first,
so the game and its agent never hold two copies of a map-sized mask.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Hashable, Iterable
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

import numpy as np

from treasure_cli.rules import grid
from treasure_cli.rules.grid import Pos

SEA = 0
T = TypeVar("T")


def _frozen(a: np.ndarray, dtype: Any) -> np.ndarray:
    if isinstance(a, np.ndarray) and a.dtype == dtype and not a.flags.writeable:
        return a  # already one of ours (a public copy shares the arrays)
    a = np.array(a, dtype=dtype, copy=True)
    a.setflags(write=False)
    return a


def _sealed(a: np.ndarray, dtype: Any) -> np.ndarray:
    """A mask the island has just computed, which nobody else holds: read-only
    without the copy `_frozen` makes (a map-sized copy each, 64 MB for an
    int32 field at 4096x4096)."""
    a = np.asarray(a, dtype=dtype)
    a.setflags(write=False)
    return a


class _terrain(Generic[T]):
    """Like functools.cached_property, for a value that depends on the terrain only:
    kept in a cache the island shares with its public copy.

    `compute` is the numpy code: the reference, and the fallback of `compiled`,
    which (when given) tries the compiled kernels first: it caches this value,
    and maybe others made in the same pass, and returns True, or returns False
    (the module not built, or an input it declines) and `compute` runs.
    """

    def __init__(self, compute: Callable[[Island], T], compiled: Callable[[Island], bool] | None = None) -> None:
        self.compute = compute
        self.compiled = compiled
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, island: None, owner: type | None = None) -> _terrain[T]: ...
    @overload
    def __get__(self, island: Island, owner: type | None = None) -> T: ...

    def __get__(self, island: Island | None, owner: type | None = None) -> T | _terrain[T]:
        if island is None:
            return self
        cache = island._shared
        if self.name not in cache and not (self.compiled is not None and self.compiled(island)):
            cache[self.name] = self.compute(island)
        return cache[self.name]  # type: ignore[no-any-return]  # the cache holds each name's T


def _compiled(fill: Callable[[Island], bool]) -> Callable[[Callable[[Island], T]], _terrain[T]]:
    """Decorates a _terrain's numpy code with its compiled twin `fill` (see _terrain)."""
    return lambda compute: _terrain(compute, fill)


def _compiled_region_tables(island: Island) -> bool:
    """sea, land, region_count, land_regions, mountain_regions, adjacent_pairs and
    all_boundaries from one compiled pass over the regions (rules/_grid.c).

    At 32x32 these were ~12 numpy passes and sorts costing ~40 us, mostly each
    call's fixed cost; the pass is a few us. Values already cached are kept
    (whoever holds them keeps the island's very objects).
    """
    c = grid._c
    if c is None:
        return False
    shape = island.regions.shape
    sea, land = np.empty(shape, dtype=bool), np.empty(shape, dtype=bool)
    bounds = np.empty(island.regions.size, dtype=bool).reshape(shape)  # a view, as _region_contacts' is
    got = c.region_tables(island.regions, island.mountain, sea, land, bounds)
    if got is False:
        return False
    sea.setflags(write=False)
    land.setflags(write=False)
    bounds.setflags(write=False)
    count, lands, mountains, pairs = got
    setdefault = island._shared.setdefault
    for name, value in (("sea", sea), ("land", land), ("region_count", count), ("land_regions", lands),
                        ("mountain_regions", mountains), ("adjacent_pairs", pairs), ("all_boundaries", bounds)):
        setdefault(name, value)
    return True


def _compiled_prisons(island: Island) -> bool:
    c = grid._c
    got = False if c is None else c.positions(island.prison)
    if got is False:
        return False
    island._shared["prisons"] = got
    return True


def _compiled_prison_reach(island: Island) -> bool:
    c = grid._c
    if c is None:
        return False
    if not island.prisons:
        reach = island.walkable
    else:
        out = np.empty(island.shape, dtype=bool)
        got = c.piece_reach(island.walk_pieces, island.prison, out)
        if got is False:
            return False
        if got == 1:  # the prisons hold every piece
            reach = island.walkable
        else:
            out.setflags(write=False)
            reach = out
    island._shared["prison_reach"] = reach
    return True


@dataclasses.dataclass(frozen=True, eq=False)
class Island:
    """A Treasure Island map.

    `regions` holds a region number per tile (0 = sea); `mountain` and
    `prison` are bool masks. `reveal_turn` (r) and `free_turn` (f) are the
    pirate's schedule. `treasure` is None in the agents' public copy.
    """

    regions: np.ndarray
    mountain: np.ndarray
    prison: np.ndarray
    reveal_turn: int
    free_turn: int
    treasure: Pos | None = None
    if TYPE_CHECKING:  # set in __post_init__, not a field: the _terrain values, shared with the public copy
        _shared: dict[str, Any] = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regions", _frozen(self.regions, np.int32))
        object.__setattr__(self, "mountain", _frozen(self.mountain, bool))
        object.__setattr__(self, "prison", _frozen(self.prison, bool))
        if self.treasure is not None:
            object.__setattr__(self, "treasure", (int(self.treasure[0]), int(self.treasure[1])))
        if not (self.regions.shape == self.mountain.shape == self.prison.shape):
            raise ValueError("regions, mountain and prison must have one shape")
        if self.reveal_turn < 1 or self.free_turn < 1:  # RULES §2: r >= 1, f >= 1, however the island is made
            raise ValueError(f"the reveal and free turns must be 1 or more, got r={self.reveal_turn}, "
                             f"f={self.free_turn}")
        object.__setattr__(self, "_shared", {})  # the _terrain values

    # -- identity ---------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Island):
            return NotImplemented
        return (
            self.reveal_turn == other.reveal_turn
            and self.free_turn == other.free_turn
            and self.treasure == other.treasure
            and np.array_equal(self.regions, other.regions)
            and np.array_equal(self.mountain, other.mountain)
            and np.array_equal(self.prison, other.prison)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable-looking arrays: not hashable

    def public(self) -> Island:
        """The same island without the treasure: what an agent may see.

        Shares the read-only arrays and the terrain masks, computed or to come;
        made once, so every game on this island shows its agents the same copy.
        """
        copy = self.__dict__.get("_public")
        if copy is None:
            copy = dataclasses.replace(self, treasure=None)
            object.__setattr__(copy, "_shared", self._shared)
            self.__dict__["_public"] = copy
        return copy

    @cached_property
    def digest(self) -> str:
        """16 hex digits of SHA-256 over the map's content (size, schedule, treasure, every tile).

        The same map gives the same digest whatever its file is called, where
        it lives, or how its text is laid out; it keys a batch game's seed and
        ties a log to its map.
        """
        h = hashlib.sha256(f"{self.width}x{self.height};{self.reveal_turn};{self.free_turn};"
                           f"{self.treasure}".encode())
        for tiles, dtype in ((self.regions, "<i4"), (self.mountain, bool), (self.prison, bool)):
            # The array's own buffer when it already is contiguous and of that
            # type: astype and tobytes copied 130 MB at 4096x4096.
            h.update(np.ascontiguousarray(tiles, dtype=dtype).data)
        return h.hexdigest()[:16]

    def precompute(self) -> Island:
        """Compute every cached mask now (before a timed game, or before sharing); returns self."""
        for name in TERRAIN_MASKS:
            getattr(self, name)
        if self.treasure is not None:
            self.reachable_prisons  # noqa: B018  (computed and cached on first read)
        return self

    def memo(self, key: Hashable, compute: Callable[[Island], T], *, own: bool = False) -> T:
        """`compute(island)`, made once per island and kept with its terrain masks (shared with
        the public copy): for tables other modules derive from the terrain alone, such as
        the hint draw's or the pirate's routes from a prison. With `own`, kept with this
        island object only, never with its public copy: for what depends on the treasure,
        which an agent's island must not lead to (RULES §3)."""
        cache = self._shared if not own else self.__dict__.setdefault("_own", {})
        if key not in cache:
            cache[key] = compute(self)  # type: ignore[index]
        return cache[key]  # type: ignore[no-any-return,index]

    def prime(self, *, walkable: np.ndarray, walk_pieces: np.ndarray, treasure_distance: np.ndarray) -> None:
        """Cache masks the caller already computed (the generator): each must equal
        what the property would compute (walk_pieces labelled as `grid.components`
        does, treasure_distance as `walk_distance([treasure])`). Tests compare them."""
        self._shared["walkable"] = _frozen(walkable, bool)
        self._shared["walk_pieces"] = _frozen(walk_pieces, np.int32)
        self.__dict__["treasure_distance"] = _frozen(treasure_distance, np.int32)

    # -- size -------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        return self.regions.shape

    @property
    def height(self) -> int:
        return self.regions.shape[0]  # type: ignore[no-any-return]

    @property
    def width(self) -> int:
        return self.regions.shape[1]  # type: ignore[no-any-return]

    def inside(self, pos: Pos) -> bool:
        return 0 <= pos[0] < self.height and 0 <= pos[1] < self.width

    # -- tile masks -------------------------------------------------------
    @_compiled(_compiled_region_tables)
    def sea(self) -> np.ndarray:
        return _sealed(self.regions == SEA, bool)

    @_compiled(_compiled_region_tables)
    def land(self) -> np.ndarray:
        return _sealed(self.regions != SEA, bool)

    @_terrain
    def walkable(self) -> np.ndarray:
        """Land that is not mountain; prisons are walkable."""
        return _sealed(self.land & ~self.mountain, bool)

    @_compiled(_compiled_region_tables)
    def region_count(self) -> int:
        """R as the file should state it: the highest region number plus one."""
        return int(self.regions.max()) + 1 if self.regions.size else 1

    @_compiled(_compiled_region_tables)
    def land_regions(self) -> tuple[int, ...]:
        """Region numbers of the land regions present, ascending."""
        return tuple(i for i in _present(self.regions.ravel(), self.region_count) if i != SEA)

    def regions_around(self, r: int, c: int) -> set[int]:
        """The regions of the (up to 4) tiles next to (r, c) inside the map."""
        reg, (h, w) = self.regions, self.shape
        return {int(reg[r + dr, c + dc]) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                if 0 <= r + dr < h and 0 <= c + dc < w}

    def region_mask(self, region: int) -> np.ndarray:
        return self.regions == region  # type: ignore[no-any-return]

    def regions_mask(self, regions: Iterable[int], window: tuple[slice, slice] | None = None) -> np.ndarray:
        """Tiles of any of `regions` (a lookup table indexed by region: faster than isin);
        with `window` (a row slice and a column slice), on those tiles only."""
        tiles = self.regions if window is None else self.regions[window]
        if self.region_count > 4 * self.regions.size:  # sparse numbers (foreign maps): no huge table
            return np.isin(tiles, list(regions))
        table = np.zeros(self.region_count, dtype=bool)
        wanted = [r for r in regions if 0 <= r < self.region_count]
        table[wanted] = True
        return _lookup(table, tiles)

    @_compiled(_compiled_prisons)
    def prisons(self) -> tuple[Pos, ...]:
        w = self.width
        return tuple(divmod(i, w) for i in self.prison.ravel().nonzero()[0].tolist())

    @_compiled(_compiled_region_tables)
    def mountain_regions(self) -> tuple[int, ...]:
        """Land regions holding at least one mountain tile."""
        return _present(self.regions[self.mountain & self.land], self.region_count)

    # -- region geometry --------------------------------------------------
    @_compiled(_compiled_region_tables)
    def adjacent_pairs(self) -> tuple[tuple[int, int], ...]:
        """Pairs (a, b), a < b, of land regions that touch 4-wise."""
        return self._region_contacts()[0]

    def boundary(self, a: int, b: int) -> np.ndarray:
        """Tiles of region a with a 4-neighbour in b, and tiles of b with one in a."""
        ma, mb = self.region_mask(a), self.region_mask(b)
        return (ma & grid.neighbours_of(mb)) | (mb & grid.neighbours_of(ma))  # type: ignore[no-any-return]

    @_compiled(_compiled_region_tables)
    def all_boundaries(self) -> np.ndarray:
        """Land tiles with a 4-neighbour in another land region."""
        return self._region_contacts()[1]

    def _region_contacts(self) -> tuple[tuple[tuple[int, int], ...], np.ndarray]:
        """adjacent_pairs and all_boundaries, both cached at once: they compare the same neighbours.

        Over the flat grid, a tile's neighbour across is the next index (but
        not from a row's last tile) and the one below is `width` further: each
        comparison is one pass, where those over 2-D views are walked row by
        row, and the touching tiles' indices pick the pairs out.
        """
        h, w = self.shape
        flat, land = self.regions.ravel(), self.land.ravel()
        bounds = np.zeros(h * w, dtype=bool)
        pairs: tuple[tuple[int, int], ...] = ()
        if flat.size:
            across = flat[:-1] != flat[1:]  # two land regions side by side
            across &= land[:-1]
            across &= land[1:]
            across[w - 1::w] = False  # a row's last tile and the next row's first
            down = flat[:-w] != flat[w:]  # two land regions one above the other
            down &= land[:-w]
            down &= land[w:]
            for touch, step in ((across, 1), (down, w)):
                bounds[:-step] |= touch
                bounds[step:] |= touch
            at_across, at_down = across.nonzero()[0], down.nonzero()[0]
            a = np.concatenate((flat[at_across], flat[at_down]))
            b = np.concatenate((flat[1:][at_across], flat[w:][at_down]))
            # One int64 per pair (regions < 2**31), sorted like the pairs:
            # np.unique over rows (axis=0) was 10x slower, and np.unique over
            # the codes 3x slower than sorting them in place (431 codes).
            codes = np.minimum(a, b).astype(np.int64)
            codes <<= 31
            codes |= np.maximum(a, b)
            codes.sort()
            new = np.empty(codes.size, dtype=bool)  # the first of equal codes
            new[:1] = True
            np.not_equal(codes[1:], codes[:-1], out=new[1:])
            codes = codes[new]
            pairs = tuple(zip((codes >> 31).tolist(), (codes & ((1 << 31) - 1)).tolist()))
        bounds = _sealed(bounds.reshape(h, w), bool)
        self._shared.update(adjacent_pairs=pairs, all_boundaries=bounds)
        return pairs, bounds

    @_terrain
    def sea_distance(self) -> np.ndarray:
        """Manhattan distance of every tile to the nearest sea tile."""
        return _sealed(grid.manhattan_distance_to(self.sea), np.int32)

    def walk_distance(self, sources: list[Pos] | np.ndarray) -> np.ndarray:
        """Walking distance over walkable tiles from the nearest source (-1: unreachable)."""
        return grid.bfs_distance(self.walkable, sources)

    @_terrain
    def walk_pieces(self) -> np.ndarray:
        """The 4-connected pieces of walkable land, labelled 1, 2, ... (0: not walkable)."""
        return _sealed(grid.components(self.walkable), np.int32)

    def reach_of(self, pos: Pos) -> np.ndarray:
        """Tiles one can walk to from `pos` (a walkable tile)."""
        return self.walk_pieces == self.walk_pieces[pos]  # type: ignore[no-any-return]

    @_compiled(_compiled_prison_reach)
    def prison_reach(self) -> np.ndarray:
        """Tiles some prison can walk to: the treasure is always one of them."""
        if not self.prisons:
            return self.walkable
        pieces = self.walk_pieces
        # A lookup table indexed by label: one gather instead of np.isin's sort.
        table = np.zeros(int(pieces.max()) + 1, dtype=bool)
        table[pieces[self.prison]] = True
        if table[1:].all() and not table[0]:  # every piece, as on most maps (often the only one)
            return self.walkable
        return _sealed(_lookup(table, pieces), bool)

    @cached_property
    def treasure_distance(self) -> np.ndarray:
        """Walking distance of every tile to the treasure (game side only)."""
        if self.treasure is None:
            raise ValueError("this island has no treasure position")
        return _sealed(self.walk_distance([self.treasure]), np.int32)

    def treasure_distance_within(self, pos: Pos) -> np.ndarray:
        """treasure_distance where it is at most that of `pos` (a tile that reaches the
        treasure), UNREACHABLE beyond: all a path from `pos` to the treasure needs.

        The cached full field when it is known, else a BFS that stops at `pos`'s layer
        (not cached: it is not the full field).
        """
        if "treasure_distance" in self.__dict__:
            return self.treasure_distance
        if self.treasure is None:
            raise ValueError("this island has no treasure position")
        return grid.bfs_distance(self.walkable, [self.treasure], until=pos)

    @cached_property
    def reachable_prisons(self) -> tuple[Pos, ...]:
        """Prisons from which the treasure can be reached by walking."""
        if self.treasure is None:
            raise ValueError("this island has no treasure position")
        pieces = self.walk_pieces
        label = pieces[self.treasure]
        if label == 0:  # treasure off walkable land: only the BFS says which neighbours it reaches
            d = self.treasure_distance
            return tuple(p for p in self.prisons if d[p] >= 0)
        # Same piece of walkable land as the treasure: no distance field needed
        # (the map reader checks this on every map; the BFS costs 10x the labels).
        return tuple(p for p in self.prisons if pieces[p] == label)


def _lookup(table: np.ndarray, index: np.ndarray) -> np.ndarray:
    """table[index] for an int32 (H, W) index, in slices of rows.

    numpy widens int32 indices to intp before a lookup; a slice's widened
    copy stays in the cache, where the whole map's is 134 MB at 4096x4096
    (19 vs 39 ms). "wrap" treats an index below 0 as indexing does
    ("raise" would buffer the output).
    """
    out = np.empty(index.shape, dtype=table.dtype)
    step = max(1, (1 << 18) // max(1, index.shape[1]))
    for top in range(0, index.shape[0], step):
        np.take(table, index[top:top + step], out=out[top:top + step], mode="wrap")
    return out


def _present(values: np.ndarray, count: int) -> tuple[int, ...]:
    """The distinct values (all in 0..count-1), ascending.

    A table of the values seen is a single pass where np.unique sorts (and
    a bool table is 3x faster than np.bincount, which widens the values to
    int64 first); a foreign map's region numbers may be huge, though, so a
    long table falls back to unique.
    """
    if count <= 4 * values.size + 1024 and (not values.size or values.min() >= 0):
        seen = np.zeros(count, dtype=bool)
        # Widened to intp in slices, as _lookup does: numpy widens int32
        # indices itself, but twice as slowly (7.3 vs 4.2 us at 64x64).
        step = 1 << 18
        for top in range(0, values.size, step):
            seen[values[top:top + step].astype(np.intp)] = True
        return tuple(seen.nonzero()[0].tolist())
    return tuple(np.unique(values).tolist())


TERRAIN_MASKS = tuple(name for name, value in vars(Island).items() if isinstance(value, _terrain))
