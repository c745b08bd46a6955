"""The pirate's 15 hint kinds (RULES §7): parameters, tile set, sentence, draw.

Every hint says "the treasure is in the tile set S". A hint is a frozen
dataclass holding only its parameters; `mask(island)` builds S as an (H, W)
bool array with whole-array numpy operations, `holds_for(island, pos)` tests
one tile without building the mask (the pirate's draw tests many), and
`sentence()` is the one-line English statement that the log prints and that
`parse_hint` turns back into the identical value.

How the pirate draws them lives in hint_draw.py; kinds written outside this
program, in plugin_kinds.py.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from treasure_cli.rules.grid import Pos, format_pos
from treasure_cli.rules.hint_kinds import (
    FIXED_KINDS, KIND_WEIGHTS, RARE_KINDS, Compass, Half, HintContext, HintKind, Origin,
)
from treasure_cli.rules.hint_params import ParamDrawer, available_kinds
from treasure_cli.rules.island import Island

__all__ = [
    "HintKind", "FIXED_KINDS", "Hint", "Geometric", "Compass", "Half", "Origin",
    "NotTiles", "InRegions", "NotRegions", "InRectangle", "NotRectangle",
    "NearerThanPrison", "InLine", "NotLine", "PairBoundary", "AnyBoundary",
    "NearSea", "NotHalf", "InDirection", "BetweenSquares", "MountainRegions",
    "HINT_CLASSES", "parse_hint", "RARE_KINDS", "BUILTIN_NAMES",
]


# ---------------------------------------------------------------------------
# Sentence pieces. Parsing works on the text with whitespace runs collapsed to
# one space, so the patterns use single spaces and `\s*` only around the
# punctuation a hand-edited log might space differently.
_POS = r"\(\s*(\d+)\s*,\s*(\d+)\s*\)"
_POS_ANY = r"\(\s*\d+\s*,\s*\d+\s*\)"
_POS_LIST = rf"({_POS_ANY}(?:\s*,\s*{_POS_ANY})*)"
_INT_LIST = r"(\d+(?:\s*,\s*\d+)*)"
_FLAGS = re.ASCII | re.IGNORECASE  # ASCII: `\d` must not accept other scripts' digits


class _Pattern:
    """A sentence's pattern, compiled when first matched: compiling the fifteen at import
    took ~13 ms of every start, an agent process's included, most of which never parse."""

    __slots__ = ("text", "_compiled")

    def __init__(self, text: str):
        self.text = text
        self._compiled: re.Pattern[str] | None = None

    def fullmatch(self, string: str) -> re.Match[str] | None:
        if self._compiled is None:
            self._compiled = re.compile(self.text, _FLAGS)
        return self._compiled.fullmatch(string)


_PATTERNS: list[_Pattern] = []


def _pattern(text: str) -> _Pattern:
    pattern = _Pattern(text)
    _PATTERNS.append(pattern)
    return pattern


def compile_patterns() -> None:
    """Compile every sentence pattern now: a warm agent host does, once, before it forks its
    games' processes, which would otherwise each compile again every kind they meet (~0.1-1 ms)."""
    for pattern in _PATTERNS:
        pattern.fullmatch("")


def _parse_positions(text: str) -> tuple[Pos, ...]:
    return tuple((int(r), int(c)) for r, c in re.findall(_POS, text, _FLAGS))


def _parse_ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text, re.ASCII))


def _as_pos(p: Sequence[int], what: str) -> Pos:
    if len(p) != 2:
        raise ValueError(f"{what} must be a (row, col) pair, got {p!r}")
    r, c = int(p[0]), int(p[1])
    if r < 0 or c < 0:
        raise ValueError(f"{what} {(r, c)} has a negative coordinate")
    return (r, c)


def _as_count(x: int, what: str, low: int = 0) -> int:
    v = int(x)
    if v < low:
        raise ValueError(f"{what} must be >= {low}, got {v}")
    return v


def _distinct_sorted(items: Iterable[Any], what: str) -> tuple[Any, ...]:
    out = tuple(sorted(items))
    if not out:
        raise ValueError(f"{what}: the list is empty")
    if len(set(out)) != len(out):
        raise ValueError(f"{what}: the list repeats an item: {out}")
    return out


# ---------------------------------------------------------------------------
class Hint:
    """Base of the hint kinds: the statement "the treasure is in S".

    A subclass defines the positive set (`_set_mask`, `_in_set`); kinds that
    state a complement ("not in ...") set `_negated`, so both directions share
    one definition of the set.
    """

    kind: ClassVar[HintKind | str]
    # The hint-kind API (docs/hints.md), the same for the built-in kinds and for plugins:
    name: ClassVar[str]             # the kind's name in the log, the protocol and --hint-weights
    weight: ClassVar[float] = 1.0   # its default chance of being chosen, against the others'
    fixed: ClassVar[bool] = False   # no random parameters: drawn once, a redraw cannot change its truth
    _negated: ClassVar[bool] = False
    _PATTERN: ClassVar[_Pattern]

    @classmethod
    def available(cls, island: Island, ctx: HintContext) -> bool:
        """Whether the pirate may give this kind now (built-ins: RULES §7's conditions)."""
        return cls.kind in available_kinds(island, ctx)

    @classmethod
    def draw(cls, island: Island, ctx: HintContext, rng: np.random.Generator) -> Hint:
        """One draw of the kind's parameters from the hint's own stream `rng`; the pirate redraws
        until the statement's truth is the one he chose (hint_draw.draw_hint). A built-in kind's
        draw is the pirate's own (hint_params.py): the same random calls, so the same hints."""
        kind: HintKind = cls.kind  # type: ignore[assignment]  # a built-in's kind is a HintKind
        return HINT_CLASSES[kind](*ParamDrawer(island, ctx, rng).params(kind))

    def mask(self, island: Island, window: tuple[slice, slice] | None = None) -> np.ndarray:
        """S as a fresh, writable (H, W) bool array; with `window` (a row slice and
        a column slice), S on those tiles only."""
        m = self._set_mask(island) if window is None else self._window_mask(island, window)
        return ~m if self._negated else m

    def holds_for(self, island: Island, pos: Pos) -> bool:
        """True when a treasure at `pos` makes this statement true."""
        r, c = int(pos[0]), int(pos[1])
        if not island.inside((r, c)):
            raise ValueError(f"position {(r, c)} is outside the {island.height}x{island.width} map")
        return bool(self._in_set(island, r, c)) != self._negated

    def sentence(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.sentence()

    # -- for subclasses -----------------------------------------------------
    def _set_mask(self, island: Island) -> np.ndarray:
        raise NotImplementedError

    def _window_mask(self, island: Island, window: tuple[slice, slice]) -> np.ndarray:
        """The positive set on `window`: the whole set, cut (kinds that can, build the window only)."""
        return self._set_mask(island)[window]

    def _in_set(self, island: Island, r: int, c: int) -> bool:
        raise NotImplementedError

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        raise NotImplementedError


class Geometric(Hint):
    """A set given by a formula over row and column indices.

    `contains(*fields, rows, cols, shape)` is the formula, a static function of
    the hint's fields in their order, written with broadcasting operators only
    (and the built-in `abs`): the same code tests one tile (Python ints) and
    builds the whole mask (a column of rows against a row of columns), and the
    pirate's draw tests redrawn parameters with it before any Hint is built.
    """

    @staticmethod
    def contains(*args: Any) -> Any:
        raise NotImplementedError

    def _inside(self, rows: Any, cols: Any, shape: tuple[int, int]) -> Any:
        return self.contains(*[getattr(self, name) for name in _field_names(type(self))], rows, cols, shape)  # type: ignore[arg-type]

    def _set_mask(self, island: Island) -> np.ndarray:
        h, w = island.shape
        rows, cols = _index_grids(h, w)
        return _filled(self._inside(rows, cols, (h, w)), (h, w))

    def _window_mask(self, island: Island, window: tuple[slice, slice]) -> np.ndarray:
        h, w = island.shape
        rows, cols = _index_grids(h, w)
        rows, cols = rows[window[0]], cols[:, window[1]]  # views: no copy
        return _filled(self._inside(rows, cols, (h, w)), (rows.shape[0], cols.shape[1]))

    def _in_set(self, island: Island, r: int, c: int) -> bool:
        return bool(self._inside(r, c, island.shape))


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    """A hint class's fields in their order (dataclasses.fields rebuilds the list at each call)."""
    return tuple(f.name for f in dataclasses.fields(cls))


def _filled(inside: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """A formula's result as a fresh (H, W) array: itself when the operators made it full
    size, else (a formula over rows only, or columns only) broadcast into a new array."""
    if inside.shape == shape:
        return inside
    out = np.empty(shape, dtype=bool)
    out[...] = inside  # a third of np.broadcast_to(...).copy()'s cost at 64x64
    return out


@functools.lru_cache(maxsize=8)
def _index_grids(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """A column of row numbers and a row of column numbers, read-only (kept per shape)."""
    rows, cols = np.arange(h)[:, None], np.arange(w)[None, :]
    rows.setflags(write=False)
    cols.setflags(write=False)
    return rows, cols


# -- 1 ------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class NotTiles(Hint):
    """Kind 1: none of the listed tiles holds the treasure."""

    tiles: tuple[Pos, ...]

    kind = HintKind.NOT_TILES
    _negated = True
    _PATTERN = _pattern(rf"the treasure is not on (?:this tile|any of these tiles): {_POS_LIST}")

    def __post_init__(self) -> None:
        tiles = _distinct_sorted((_as_pos(t, "tile") for t in self.tiles), "tiles")
        object.__setattr__(self, "tiles", tiles)

    def _set_mask(self, island: Island) -> np.ndarray:
        m = np.zeros(island.shape, dtype=bool)
        inside = [t for t in self.tiles if island.inside(t)]
        if inside:
            rows, cols = zip(*inside)
            m[list(rows), list(cols)] = True
        return m

    def _in_set(self, island: Island, r: int, c: int) -> bool:
        return (r, c) in self.tiles

    def sentence(self) -> str:
        lead = "this tile" if len(self.tiles) == 1 else "any of these tiles"
        return f"the treasure is not on {lead}: " + ", ".join(map(format_pos, self.tiles))

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        return cls(_parse_positions(m[1]))


# -- 2, 3 ---------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _Regions(Hint):
    regions: tuple[int, ...]

    def __post_init__(self) -> None:
        regs = _distinct_sorted((_as_count(x, "region", 1) for x in self.regions), "regions")
        object.__setattr__(self, "regions", regs)

    def _set_mask(self, island: Island) -> np.ndarray:
        return island.regions_mask(self.regions)

    def _window_mask(self, island: Island, window: tuple[slice, slice]) -> np.ndarray:
        return island.regions_mask(self.regions, window)

    def _in_set(self, island: Island, r: int, c: int) -> bool:
        return int(island.regions[r, c]) in self.regions

    def _list(self) -> str:
        return ", ".join(map(str, self.regions))

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        return cls(_parse_ints(m[1] or m[2]))


@dataclasses.dataclass(frozen=True)
class InRegions(_Regions):
    """Kind 2: one of these regions holds the treasure."""

    kind = HintKind.IN_REGIONS
    _PATTERN = _pattern(rf"the treasure is in (?:region (\d+)|one of regions {_INT_LIST})")

    def sentence(self) -> str:
        if len(self.regions) == 1:
            return f"the treasure is in region {self.regions[0]}"
        return f"the treasure is in one of regions {self._list()}"


@dataclasses.dataclass(frozen=True)
class NotRegions(_Regions):
    """Kind 3: none of these regions holds the treasure."""

    kind = HintKind.NOT_REGIONS
    _negated = True
    _PATTERN = _pattern(rf"the treasure is not in (?:region (\d+)|any of regions {_INT_LIST})")

    def sentence(self) -> str:
        if len(self.regions) == 1:
            return f"the treasure is not in region {self.regions[0]}"
        return f"the treasure is not in any of regions {self._list()}"


# -- 4, 5 ---------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _Rectangle(Geometric):
    """Rows top..bottom and columns left..right, both inclusive."""

    top: int
    left: int
    bottom: int
    right: int

    def __post_init__(self) -> None:
        for name in ("top", "left", "bottom", "right"):
            object.__setattr__(self, name, _as_count(getattr(self, name), name))
        if self.top > self.bottom or self.left > self.right:
            raise ValueError(
                f"rectangle corners {(self.top, self.left)} and {(self.bottom, self.right)} "
                "are not top-left and bottom-right"
            )

    @staticmethod
    def contains(top: Any, left: Any, bottom: Any, right: Any, rows: Any, cols: Any, shape: Any) -> Any:
        # The row terms and the column terms apart: one (H, W) operation, not two.
        return ((rows >= top) & (rows <= bottom)) & ((cols >= left) & (cols <= right))

    def _set_mask(self, island: Island) -> np.ndarray:
        # `contains` over the whole map as one slice: two numpy calls, not seven (tests/rules/test_hints.py).
        m = np.zeros(island.shape, dtype=bool)
        m[self.top: self.bottom + 1, self.left: self.right + 1] = True
        return m

    def _corners(self) -> str:
        return f"from {format_pos((self.top, self.left))} to {format_pos((self.bottom, self.right))}"

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        top, left, bottom, right = (int(x) for x in m.groups())
        return cls(top, left, bottom, right)


@dataclasses.dataclass(frozen=True)
class InRectangle(_Rectangle):
    """Kind 4: the treasure is in this (large) rectangle."""

    kind = HintKind.IN_RECTANGLE
    _PATTERN = _pattern(rf"the treasure is in the rectangle from {_POS} to {_POS}")

    def sentence(self) -> str:
        return f"the treasure is in the rectangle {self._corners()}"


@dataclasses.dataclass(frozen=True)
class NotRectangle(_Rectangle):
    """Kind 5: the treasure is not in this (small) rectangle."""

    kind = HintKind.NOT_RECTANGLE
    _negated = True
    _PATTERN = _pattern(rf"the treasure is not in the rectangle from {_POS} to {_POS}")

    def sentence(self) -> str:
        return f"the treasure is not in the rectangle {self._corners()}"


# -- 6 ------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class NearerThanPrison(Geometric):
    """Kind 6: the treasure is strictly nearer (Manhattan) to the agent than to the prison."""

    agent: Pos
    prison: Pos

    kind = HintKind.NEARER_THAN_PRISON
    _PATTERN = _pattern(
        rf"you at {_POS} are nearer to the treasure than the prison at {_POS} is"
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "agent", _as_pos(self.agent, "agent"))
        object.__setattr__(self, "prison", _as_pos(self.prison, "prison"))

    @staticmethod
    def contains(agent: Any, prison: Any, rows: Any, cols: Any, shape: Any) -> Any:
        (ar, ac), (pr, pc) = agent, prison
        # Strict: a tile as near to the prison as to the agent is not in S.
        # |r-ar| + |c-ac| < |r-pr| + |c-pc|, with the row terms on one side and
        # the column terms on the other: the (H, W) work is one comparison of
        # a column against a row, not four int64 (H, W) temporaries (this
        # was a third of a 2048x2048 game).
        return abs(rows - ar) - abs(rows - pr) < abs(cols - pc) - abs(cols - ac)

    def sentence(self) -> str:
        return (
            f"you at {format_pos(self.agent)} are nearer to the treasure "
            f"than the prison at {format_pos(self.prison)} is"
        )

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        ar, ac, pr, pc = (int(x) for x in m.groups())
        return cls((ar, ac), (pr, pc))


# -- 7, 8 ---------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _Line(Geometric):
    """A row, a column, or (both given) their union."""

    row: int | None
    col: int | None

    def __post_init__(self) -> None:
        if self.row is None and self.col is None:
            raise ValueError("a row/column hint needs a row, a column or both")
        for name in ("row", "col"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _as_count(getattr(self, name), name))

    @staticmethod
    def contains(row: Any, col: Any, rows: Any, cols: Any, shape: Any) -> Any:
        # -1 never matches an index, so a missing line contributes nothing.
        return (rows == (-1 if row is None else row)) | (cols == (-1 if col is None else col))

    def _set_mask(self, island: Island) -> np.ndarray:
        m = np.zeros(island.shape, dtype=bool)  # `contains` as slices (a line off the map is no tile)
        if self.row is not None and self.row < m.shape[0]:
            m[self.row] = True
        if self.col is not None and self.col < m.shape[1]:
            m[:, self.col] = True
        return m

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        g = m.groupdict()
        row, col = g.get("row") or g.get("row2"), g.get("col") or g.get("col2")
        return cls(None if row is None else int(row), None if col is None else int(col))


@dataclasses.dataclass(frozen=True)
class InLine(_Line):
    """Kind 7 (rare): the treasure is in this row, this column, or either."""

    kind = HintKind.IN_LINE
    _PATTERN = _pattern(
        r"the treasure is in (?:row (?P<row>\d+)(?: or column (?P<col>\d+))?|column (?P<col2>\d+))"
    )

    def sentence(self) -> str:
        if self.col is None:
            return f"the treasure is in row {self.row}"
        if self.row is None:
            return f"the treasure is in column {self.col}"
        return f"the treasure is in row {self.row} or column {self.col}"


@dataclasses.dataclass(frozen=True)
class NotLine(_Line):
    """Kind 8: the treasure is not in this row / column / either."""

    kind = HintKind.NOT_LINE
    _negated = True
    _PATTERN = _pattern(
        r"the treasure is (?:not in (?:row (?P<row>\d+)|column (?P<col>\d+))"
        r"|neither in row (?P<row2>\d+) nor in column (?P<col2>\d+))"
    )

    def sentence(self) -> str:
        if self.col is None:
            return f"the treasure is not in row {self.row}"
        if self.row is None:
            return f"the treasure is not in column {self.col}"
        return f"the treasure is neither in row {self.row} nor in column {self.col}"


# -- 9, 10 --------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class PairBoundary(Hint):
    """Kind 9: on the boundary of regions a and b (stored with a < b)."""

    a: int
    b: int

    kind = HintKind.PAIR_BOUNDARY
    _PATTERN = _pattern(r"the treasure is on the boundary between regions (\d+) and (\d+)")

    def __post_init__(self) -> None:
        a, b = _as_count(self.a, "region", 1), _as_count(self.b, "region", 1)
        if a == b:
            raise ValueError(f"a boundary needs two different regions, got {a} twice")
        # The set is symmetric in a and b; one order keeps equal hints equal.
        object.__setattr__(self, "a", min(a, b))
        object.__setattr__(self, "b", max(a, b))

    def _set_mask(self, island: Island) -> np.ndarray:
        return island.boundary(self.a, self.b)

    @staticmethod
    def on_boundary(a: int, b: int, here: int, around: set[int]) -> bool:
        """The rule for one tile: of region a with a 4-neighbour in b, or of b with one in a
        (`here` its region, `around` its neighbours' regions; the pirate's draw tests
        redrawn pairs with it)."""
        return (here == a and b in around) or (here == b and a in around)

    def _in_set(self, island: Island, r: int, c: int) -> bool:
        return self.on_boundary(self.a, self.b, int(island.regions[r, c]), island.regions_around(r, c))

    def sentence(self) -> str:
        return f"the treasure is on the boundary between regions {self.a} and {self.b}"

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        return cls(int(m[1]), int(m[2]))


@dataclasses.dataclass(frozen=True)
class AnyBoundary(Hint):
    """Kind 10: on a land tile touching another land region."""

    kind = HintKind.ANY_BOUNDARY
    _PATTERN = _pattern(r"the treasure is on a boundary between two regions")

    def _set_mask(self, island: Island) -> np.ndarray:
        return island.all_boundaries.copy()  # type: ignore[no-any-return]

    def _window_mask(self, island: Island, window: tuple[slice, slice]) -> np.ndarray:
        return island.all_boundaries[window].copy()  # type: ignore[no-any-return]

    def _in_set(self, island: Island, r: int, c: int) -> bool:
        return bool(island.all_boundaries[r, c])

    def sentence(self) -> str:
        return "the treasure is on a boundary between two regions"

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        return cls()


# -- 11 -----------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class NearSea(Hint):
    """Kind 11: a land tile within Manhattan distance k of the sea."""

    k: int

    kind = HintKind.NEAR_SEA
    _PATTERN = _pattern(r"the treasure is within (\d+) tiles? of the sea")

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _as_count(self.k, "k"))

    def _set_mask(self, island: Island) -> np.ndarray:
        return self._window_mask(island, np.s_[:, :])

    def _window_mask(self, island: Island, window: tuple[slice, slice]) -> np.ndarray:
        return island.land[window] & (island.sea_distance[window] <= self.k)

    def _in_set(self, island: Island, r: int, c: int) -> bool:
        return bool(island.land[r, c]) and int(island.sea_distance[r, c]) <= self.k

    def sentence(self) -> str:
        return f"the treasure is within {self.k} tile{'' if self.k == 1 else 's'} of the sea"

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        return cls(int(m[1]))


# -- 12 -----------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class NotHalf(Geometric):
    """Kind 12 (rare): this half holds no treasure.

    Halves are H//2 rows (W//2 columns) deep, so on an odd size the middle
    row (column) is in neither half and always in S.
    """

    half: Half

    kind = HintKind.NOT_HALF
    _negated = True
    _PATTERN = _pattern(r"the treasure is not in the (top|bottom|left|right) half of the map")

    def __post_init__(self) -> None:
        object.__setattr__(self, "half", Half(self.half))

    @staticmethod
    def contains(half: Any, rows: Any, cols: Any, shape: Any) -> Any:
        h, w = shape
        if half is Half.TOP:
            return rows < h // 2
        if half is Half.BOTTOM:
            return rows >= h - h // 2
        if half is Half.LEFT:
            return cols < w // 2
        return cols >= w - w // 2

    def _set_mask(self, island: Island) -> np.ndarray:
        h, w = island.shape
        m = np.zeros((h, w), dtype=bool)  # `contains` as a slice
        half = self.half
        if half is Half.TOP:
            m[: h // 2] = True
        elif half is Half.BOTTOM:
            m[h - h // 2:] = True
        elif half is Half.LEFT:
            m[:, : w // 2] = True
        else:
            m[:, w - w // 2:] = True
        return m

    def sentence(self) -> str:
        return f"the treasure is not in the {self.half.value} half of the map"

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        return cls(Half(m[1].lower()))


# -- 13 -----------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class InDirection(Geometric):
    """Kind 13: the treasure is to the D of the origin (map centre or prison).

    N is the 45° triangle above the origin widening to the map edge
    (row < or and |col - oc| <= or - row); S, E, W are the same triangle
    turned. NE is the open quadrant row < or and col > oc; NW, SE, SW alike.
    """

    direction: Compass
    origin: Pos
    origin_kind: Origin

    kind = HintKind.DIRECTION
    _PATTERN = _pattern(
        rf"the treasure is to the (NE|NW|SE|SW|N|S|E|W) of the (map centre|prison) at {_POS}"
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "direction", Compass(self.direction))
        object.__setattr__(self, "origin", _as_pos(self.origin, "origin"))
        object.__setattr__(self, "origin_kind", Origin(self.origin_kind))

    @staticmethod
    def contains(direction: Any, origin: Any, origin_kind: Any, rows: Any, cols: Any, shape: Any) -> Any:
        up = origin[0] - rows      # > 0 above the origin
        right = cols - origin[1]   # > 0 right of the origin
        d = direction
        if d is Compass.N:
            return (up > 0) & (abs(right) <= up)
        if d is Compass.S:
            return (up < 0) & (abs(right) <= -up)
        if d is Compass.E:
            return (right > 0) & (abs(up) <= right)
        if d is Compass.W:
            return (right < 0) & (abs(up) <= -right)
        vertical = (up > 0) if "N" in d.value else (up < 0)
        horizontal = (right > 0) if "E" in d.value else (right < 0)
        return vertical & horizontal

    def sentence(self) -> str:
        return (
            f"the treasure is to the {self.direction.value} of the "
            f"{self.origin_kind.value} at {format_pos(self.origin)}"
        )

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        return cls(Compass(m[1].upper()), (int(m[3]), int(m[4])), Origin(m[2].lower()))


# -- 14 -----------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class BetweenSquares(Geometric):
    """Kind 14 (rare): inside the big square but not inside the small one.

    Squares are given by top-left corner and side. The small square lies in
    the big one's interior, so S is a ring at least one tile wide.
    """

    big_top: int
    big_left: int
    big_side: int
    small_top: int
    small_left: int
    small_side: int

    kind = HintKind.BETWEEN_SQUARES
    _PATTERN = _pattern(
        rf"the treasure is in the square from {_POS} to {_POS} "
        rf"but not in the square from {_POS} to {_POS}"
    )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            low = 1 if f.name.endswith("side") else 0
            object.__setattr__(self, f.name, _as_count(getattr(self, f.name), f.name, low))
        bt, bl, bs = self.big_top, self.big_left, self.big_side
        st, sl, ss = self.small_top, self.small_left, self.small_side
        if not (bt < st and st + ss < bt + bs and bl < sl and sl + ss < bl + bs):
            raise ValueError(
                f"the small square at {(st, sl)} side {ss} is not strictly inside "
                f"the big square at {(bt, bl)} side {bs}"
            )

    @staticmethod
    def contains(big_top: Any, big_left: Any, big_side: Any, small_top: Any, small_left: Any, small_side: Any,
                 rows: Any, cols: Any, shape: Any) -> Any:
        def square(top: int, left: int, side: int) -> Any:  # row and column terms apart, as _Rectangle's
            return ((rows >= top) & (rows < top + side)) & ((cols >= left) & (cols < left + side))

        # `^` (not `~`), so the formula is right for Python bools too: inside the big one, not the small
        big = square(big_top, big_left, big_side)
        return big & (big ^ square(small_top, small_left, small_side))

    def _set_mask(self, island: Island) -> np.ndarray:
        m = np.zeros(island.shape, dtype=bool)  # `contains` as slices: the small square lies inside the big one
        m[self.big_top: self.big_top + self.big_side, self.big_left: self.big_left + self.big_side] = True
        m[self.small_top: self.small_top + self.small_side, self.small_left: self.small_left + self.small_side] = False
        return m

    def sentence(self) -> str:
        def corners(top: int, left: int, side: int) -> str:
            return f"from {format_pos((top, left))} to {format_pos((top + side - 1, left + side - 1))}"

        return (
            f"the treasure is in the square {corners(self.big_top, self.big_left, self.big_side)} "
            f"but not in the square {corners(self.small_top, self.small_left, self.small_side)}"
        )

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        bt, bl, bb, br, st, sl, sb, sr = (int(x) for x in m.groups())
        if bb - bt != br - bl or sb - st != sr - sl or bb < bt or sb < st:
            raise ValueError("the corners do not describe two squares")
        return cls(bt, bl, bb - bt + 1, st, sl, sb - st + 1)


# -- 15 -----------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class MountainRegions(Hint):
    """Kind 15: in a land region that holds at least one mountain tile."""

    kind = HintKind.MOUNTAIN_REGIONS
    _PATTERN = _pattern(r"the treasure is in a region that has a mountain")

    def _set_mask(self, island: Island) -> np.ndarray:
        return island.regions_mask(island.mountain_regions)

    def _window_mask(self, island: Island, window: tuple[slice, slice]) -> np.ndarray:
        return island.regions_mask(island.mountain_regions, window)

    def _in_set(self, island: Island, r: int, c: int) -> bool:
        return int(island.regions[r, c]) in island.mountain_regions

    def sentence(self) -> str:
        return "the treasure is in a region that has a mountain"

    @classmethod
    def _from_match(cls, m: re.Match[str]) -> Hint:
        return cls()


HINT_CLASSES: dict[HintKind, type[Hint]] = {
    cls.kind: cls
    for cls in (
        NotTiles, InRegions, NotRegions, InRectangle, NotRectangle, NearerThanPrison,
        InLine, NotLine, PairBoundary, AnyBoundary, NearSea, NotHalf, InDirection,
        BetweenSquares, MountainRegions,
    )
}
for _cls in HINT_CLASSES.values():  # the API's class attributes, from RULES §7's table
    _cls.name = _cls.kind.name.lower()  # type: ignore[union-attr]  # a built-in's kind is a HintKind
    _cls.weight = KIND_WEIGHTS[_cls.kind]  # type: ignore[index]
    _cls.fixed = _cls.kind in FIXED_KINDS
BUILTIN_NAMES: frozenset[str] = frozenset(cls.name for cls in HINT_CLASSES.values())



def parse_hint(text: str, kind: HintKind | None = None) -> Hint:
    """The built-in hint whose `sentence()` is `text`; ValueError quoting `text` otherwise.
    `kind`, when known (the agent protocol says it), tries that kind's form only. (A log's
    hint line may also be a plugin kind's: plugin_kinds.parse_hint_text reads both.)"""
    if not isinstance(text, str):
        raise ValueError(f"a hint sentence must be a string, got {type(text).__name__}")
    norm = " ".join(text.split())
    if re.search(r"[0-9]{11,}", norm):  # past any region number or map size; numpy would overflow
        raise ValueError(f"bad hint {text[:80]!r}: a number in it is too long")
    for cls in HINT_CLASSES.values() if kind is None else (HINT_CLASSES[kind],):
        m = cls._PATTERN.fullmatch(norm)
        if m is not None:
            try:
                return cls._from_match(m)
            except ValueError as e:
                raise ValueError(f"bad hint {text!r}: {e}") from None
    raise ValueError(f"not a hint sentence: {text!r}")
