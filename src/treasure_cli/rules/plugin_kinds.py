"""Hint kinds written outside this program (docs/hints.md): the API they implement
(`PluginHint`), how an agent holds one (`TileSetHint`), the registry of installed
kinds that the log reader looks names up in, and a plugin hint's log form.

Loading kinds from a file or an entry point, and the check on load, live in
formats/hint_plugins.py (this module reads no files).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Sequence
import numpy as np

from treasure_cli.rules.grid import Pos
from treasure_cli.rules.hint_kinds import HintContext
from treasure_cli.rules.hints import BUILTIN_NAMES, Hint, _field_names, parse_hint
from treasure_cli.rules.island import Island

__all__ = ["PluginHint", "TileSetHint", "tile_runs", "runs_mask", "install_kind", "installed_kind", "hint_text",
           "parse_hint_text", "parse_plugin", "FINDERS"]

_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}\Z")


class PluginHint(Hint):
    """Base of a hint kind written outside this program (docs/hints.md).

    A subclass is a frozen dataclass of its parameters with a `name`, a
    `draw` classmethod, `tile_set(island)` (S as an (H, W) bool array over
    the public island) and `statement()` (its sentence). Its parameters are
    written in the log by `write_params` and read back by `read_params`: by
    default a JSON list of the dataclass's fields in their order.
    """

    @classmethod
    def available(cls, island: Island, ctx: HintContext) -> bool:
        return True

    @classmethod
    def draw(cls, island: Island, ctx: HintContext, rng: np.random.Generator) -> Hint:
        raise NotImplementedError(f"hint kind {cls.name!r} defines no draw")

    def tile_set(self, island: Island) -> np.ndarray:
        raise NotImplementedError

    def statement(self) -> str:
        raise NotImplementedError

    def write_params(self) -> str:
        return json.dumps([getattr(self, f) for f in _field_names(type(self))], separators=(",", ":"))  # type: ignore[arg-type]

    @classmethod
    def read_params(cls, text: str) -> PluginHint:
        try:
            values = json.loads(text)
        except RecursionError:  # a log someone sent: `[[[...]]]` within a line's length
            raise ValueError("the parameters are nested too deep to be a hint's") from None
        if not isinstance(values, list):
            raise ValueError(f"the parameters {text!r} are not a JSON list")
        return cls(*values)

    # -- the Hint interface, from the above ---------------------------------
    @property
    def kind(self) -> str:  # type: ignore[override]
        return self.name

    def mask(self, island: Island, window: tuple[slice, slice] | None = None) -> np.ndarray:
        m = np.array(self._tiles(island), dtype=bool, copy=True)
        return m if window is None else m[window].copy()

    def holds_for(self, island: Island, pos: Pos) -> bool:
        r, c = int(pos[0]), int(pos[1])
        if not island.inside((r, c)):
            raise ValueError(f"position {(r, c)} is outside the {island.height}x{island.width} map")
        return bool(self._tiles(island)[r, c])

    def _tiles(self, island: Island) -> np.ndarray:
        """`tile_set(island)`, refused (ValueError naming the kind and the method) unless it is the
        (H, W) bool array it must be: an int array or a column would be read wrongly, not refused."""
        m = self.tile_set(island)
        if isinstance(m, np.ndarray) and m.dtype == bool and m.shape == island.shape:
            return m
        got = (f"an array of dtype {m.dtype}, shape {m.shape}" if isinstance(m, np.ndarray)
               else f"a {type(m).__name__}")
        raise ValueError(f"hint kind {self.name!r}: {type(self).__name__}.tile_set(island) returned {got}; "
                         f"it must be an (H, W) array of bools, here of shape {island.shape} (dtype bool)")

    def sentence(self) -> str:
        return self.statement()


@dataclasses.dataclass(frozen=True)
class TileSetHint(Hint):
    """A hint known only by its kind's name, its statement and its tiles: what every agent gets of
    a plugin kind, in the program's process (Game.observe) as in another (the protocol always
    sends such a hint's tiles), so an agent sees one value wherever it plays."""

    name: str  # type: ignore[misc]
    text: str
    runs: tuple[int, ...]  # [start, length, ...] over the row-major tile index (`tile_runs`)
    # The tiles as a read-only mask, when made from one (`of`): not part of the value.
    _tiles: np.ndarray | None = dataclasses.field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, hint: Hint, island: Island) -> TileSetHint:
        """`hint` as an agent gets it: its kind's name, its statement, its tiles on `island` (public)."""
        tiles = hint.mask(island)
        tiles.setflags(write=False)
        return cls(hint.name, hint.sentence(), tuple(tile_runs(tiles)), tiles)

    @property
    def kind(self) -> str:  # type: ignore[override]
        return self.name

    def mask(self, island: Island, window: tuple[slice, slice] | None = None) -> np.ndarray:
        if self._tiles is not None and self._tiles.shape == island.shape:
            return self._tiles.copy() if window is None else self._tiles[window].copy()  # type: ignore[no-any-return]
        m = runs_mask(self.runs, island.shape)
        return m if window is None else m[window].copy()

    def holds_for(self, island: Island, pos: Pos) -> bool:
        return bool(self.mask(island)[int(pos[0]), int(pos[1])])

    def sentence(self) -> str:
        return self.text


def tile_runs(mask: np.ndarray) -> list[int]:
    """A tile set as [start, length, ...] runs over the row-major tile index (as the protocol sends it)."""
    flat = np.concatenate(([False], np.ravel(mask), [False])).view(np.int8)
    edges = np.flatnonzero(np.diff(flat))
    starts, ends = edges[0::2], edges[1::2]
    return np.column_stack((starts, ends - starts)).ravel().tolist()  # type: ignore[no-any-return]


def runs_mask(runs: Sequence[int], shape: tuple[int, int]) -> np.ndarray:
    """The tile set of [start, length, ...] runs (those of `tile_runs`, or any: in any order, they
    may overlap; the set is their union), as a fresh (H, W) bool array."""
    # +1 where a run starts, -1 past its end, counted (two runs may start on one tile): the running
    # sum is the number of runs over each tile (no Python loop)
    n = shape[0] * shape[1]
    bounds = np.asarray(runs, dtype=np.intp).reshape(-1, 2)
    steps = np.bincount(bounds[:, 0], minlength=n + 1) - np.bincount(bounds[:, 0] + bounds[:, 1], minlength=n + 1)
    return (np.cumsum(steps[:n]) > 0).reshape(shape)


_INSTALLED: dict[str, type[PluginHint]] = {}
# Called with a name that is not installed; may install it (formats/hint_plugins.py adds the
# entry points' finder: this module reads no files).
FINDERS: list[Callable[[str], object]] = []
# Called, if the finders above found nothing, with the name and the origin a log gave for it
# (`kind NAME@ORIGIN`: where the kind came from, see `origin`); may install it.
ORIGIN_FINDERS: list[Callable[[str, str], object]] = []
# Where a kind was loaded from, for the log: set by its loader (formats/hint_plugins.py).
ORIGINS: dict[type, str] = {}
_ORIGIN = re.compile(r"[A-Za-z0-9_.-]+(#[0-9a-f]{16})?\Z")  # FILE.py#SHA256-16, or a module's dotted name


def origin(cls: type) -> str | None:
    """Where the kind `cls` came from, as a log writes it after its name: `FILE#DIGEST` (a file's
    name and the first 16 hex digits of the SHA-256 of its bytes) or a module's name (an installed
    package's entry point); None when unknown or not writable on one word."""
    where = ORIGINS.get(cls)
    return where if where is not None and _ORIGIN.match(where) else None


def install_kind(cls: type[PluginHint]) -> type[PluginHint]:
    """Make a plugin kind known to the log reader and the protocol; ValueError if its name is
    taken by another kind or malformed."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"hint kind {cls.__qualname__}: its name {name!r} must be 1-40 of a-z, 0-9, "
                         "'_' or '-', starting with a letter")
    if name in BUILTIN_NAMES:
        raise ValueError(f"hint kind {name!r}: the name is a built-in kind's")
    other = _INSTALLED.get(name)
    if other is not None and other is not cls and other.__qualname__ != cls.__qualname__:
        raise ValueError(f"hint kind {name!r} is defined twice: by {other.__qualname__} and by {cls.__qualname__}")
    _INSTALLED[name] = cls
    return cls


def installed_kind(name: str, where: str | None = None) -> type[PluginHint]:
    """The installed plugin kind called `name`, else one the finders install (with `where`, the
    origin a log gives for it); ValueError naming it if there is none."""
    cls = _INSTALLED.get(name)
    if cls is None:
        for find in FINDERS:
            find(name)
        cls = _INSTALLED.get(name)
    if cls is None and where is not None:
        for find_at in ORIGIN_FINDERS:
            find_at(name, where)
        cls = _INSTALLED.get(name)
    if cls is None:
        if where is not None and "#" in where:
            file, _, digest = where.partition("#")
            raise ValueError(f"hint kind {name!r} is not installed: it came from a file {file} (SHA-256 {digest}...); "
                             f"give it with --hints FILE")
        came = f" (from the module {where})" if where is not None else ""
        raise ValueError(f"hint kind {name!r}{came} is not installed: give its file with --hints FILE, "
                         "or install the package that provides it")
    return cls


def hint_text(hint: Hint) -> str:
    """A hint as the log writes it: a built-in kind's sentence; a plugin kind's
    `kind NAME PARAMS: STATEMENT` (PARAMS has no ": ")."""
    if isinstance(hint, PluginHint):
        where = origin(type(hint))
        return f"kind {hint.name}{'@' + where if where else ''} {hint.write_params()}: {hint.statement()}"
    if isinstance(hint, TileSetHint):
        raise ValueError(f"a hint of kind {hint.name!r} known only by its tiles cannot be written to a log")
    return hint.sentence()


_PLUGIN_LINE = re.compile(r"kind (\S+) (.*?): (.*)", re.DOTALL)


def parse_hint_text(text: str) -> Hint:
    """The hint a log line's text is (`hint_text` read back): a plugin kind's
    `kind NAME PARAMS: STATEMENT`, else a built-in sentence (hints.parse_hint); ValueError
    quoting `text` otherwise. Built-in sentences never start with `kind `."""
    plugin = _PLUGIN_LINE.fullmatch(" ".join(text.split())) if isinstance(text, str) else None
    if plugin is not None:
        return parse_plugin(text, *plugin.groups())
    return parse_hint(text)


def parse_plugin(text: str, name: str, params: str, statement: str) -> Hint:
    """A plugin hint's log form `kind NAME[@ORIGIN] PARAMS: STATEMENT`, split (parse_hint_text), as
    its kind's hint."""
    name, at, where = name.partition("@")
    cls = installed_kind(name, where if at else None)
    try:
        hint = cls.read_params(params)
    except (ValueError, TypeError) as e:
        raise ValueError(f"bad hint {text[:200]!r}: kind {name!r} cannot read its parameters {params!r}: {e}") from None
    if " ".join(hint.statement().split()) != statement:
        raise ValueError(f"bad hint {text[:200]!r}: kind {name!r} states {hint.statement()!r} for these parameters")
    return hint
