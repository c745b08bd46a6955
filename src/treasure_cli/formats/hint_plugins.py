"""Hint kinds from outside the program: a file (`--hints FILE`) or an entry point, checked on load.

A plugin kind is trusted code that runs on the referee's side, like the map
(docs/security.md): it is imported into the program's own process. Before a
game uses it, `check_kind` plays its draw on generated islands and refuses a
kind whose tile set, rebuilt from what the log keeps of it and from the
public island only, disagrees with the truth the pirate gave it.
See docs/hints.md.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import inspect
import math
import os
import sys
from collections.abc import Iterable, Sequence

import numpy as np

from treasure_cli.errors import TreasureError
from treasure_cli.rules import hints as hints_mod
from treasure_cli.rules.draws import Draws
from treasure_cli.rules.hint_draw import BUILTIN_HINTS, HintContext, HintSet, draw_hint
from treasure_cli.rules.hints import HINT_CLASSES, Hint, PluginHint, install_kind, parse_hint

ENTRY_POINT_GROUP = "treasure_cli.hints"
BUILTIN_GROUP = "builtin"  # in a weight spec: the 15 built-in kinds together


class HintKindError(TreasureError):
    """A hint kind that cannot be loaded, or that breaks the rules of a kind."""


# ---------------------------------------------------------------- loading
def load_file(path: str) -> list[type[PluginHint]]:
    """The hint kinds a Python file defines (every PluginHint subclass with a `name`), installed."""
    full = os.path.abspath(path)
    if not os.path.isfile(full):
        raise HintKindError(f"--hints {path}: no such file")
    module_name = "treasure_hints_" + hashlib.sha256(full.encode()).hexdigest()[:12]
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, full)
        if spec is None or spec.loader is None:
            raise HintKindError(f"--hints {path}: not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # dataclasses and pickle look classes up there
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[module_name]
            raise HintKindError(f"--hints {path}: the file fails on import: {type(exc).__name__}: {exc}") from exc
    kinds = [obj for obj in vars(module).values()
             if inspect.isclass(obj) and issubclass(obj, PluginHint) and obj.__module__ == module_name
             and "name" in vars(obj)]
    if not kinds:
        raise HintKindError(f"--hints {path}: the file defines no hint kind (a PluginHint subclass with a name)")
    return [_install(k, f"--hints {path}") for k in kinds]


def load_entry_point(name: str) -> type[PluginHint] | None:
    """The kind an installed package provides under `name` in the `treasure_cli.hints` group."""
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            try:
                cls = ep.load()
            except Exception as exc:
                raise HintKindError(f"hint kind {name!r} (entry point {ep.value}) fails on import: {exc}") from exc
            if not (inspect.isclass(cls) and issubclass(cls, PluginHint)):
                raise HintKindError(f"entry point {name!r} ({ep.value}) is not a PluginHint subclass")
            if cls.name != name:
                raise HintKindError(f"entry point {name!r} ({ep.value}) names a kind called {cls.name!r}")
            return _install(cls, f"entry point {ep.value}")
    return None


def entry_point_names() -> list[str]:
    return sorted(ep.name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))


def _install(cls: type[PluginHint], where: str) -> type[PluginHint]:
    if not dataclasses.is_dataclass(cls):
        raise HintKindError(f"hint kind {getattr(cls, 'name', cls.__qualname__)!r} ({where}): "
                            "it must be a frozen dataclass of its parameters")
    try:
        return install_kind(cls)
    except ValueError as exc:
        raise HintKindError(f"{exc} ({where})") from None


def _find(name: str) -> None:
    """The log reader's fallback for a kind it does not know: an installed entry point."""
    try:
        load_entry_point(name)
    except HintKindError:
        pass  # the reader's own message names the kind


hints_mod.FINDERS.append(_find)


# ---------------------------------------------------------------- the check
CHECK_SIZES = ((10, 10), (16, 16), (12, 20), (24, 24))
CHECK_DRAWS = 8  # hints of each truth per island


def check_kind(cls: type[Hint], sizes: Sequence[tuple[int, int]] = CHECK_SIZES, draws: int = CHECK_DRAWS) -> None:
    """Play the kind's draw on generated islands and refuse it (HintKindError naming it) if a hint
    it gives is not read back from its log form, or if its tile set (from the public island) holds
    the treasure when the hint is false or leaves it out when it is true."""
    from treasure_cli.formats.generator import generate_island  # (the generator imports numpy code only)

    name = cls.name
    only = HintSet((cls,), (1.0,))
    for i, (h, w) in enumerate(sizes):
        island = generate_island(h, w, rng=np.random.default_rng(7919 + i))
        public = island.public()
        t = island.treasure
        assert t is not None  # a generated island
        prisons = island.reachable_prisons
        for j in range(2 * draws):
            truthful = j % 2 == 0
            rng = Draws([7919, i, j])
            r, c = np.argwhere(island.walkable)[j % int(island.walkable.sum())]
            agent = (int(r), int(c))
            ctx = HintContext(j + 1, prisons[j % len(prisons)], agent, j >= draws)
            try:
                hint = draw_hint(island, t, ctx, truthful, rng, only)
                if type(hint) is not cls:
                    continue  # no draw of this kind had the truth asked: the fallback kind gave it
                text = hints_mod.hint_text(hint)
                back = parse_hint(text)
                mask = back.mask(public)
            except TreasureError:
                raise
            except Exception as exc:
                raise HintKindError(f"hint kind {name!r} fails on a {h}x{w} island: "
                                    f"{type(exc).__name__}: {exc}") from exc
            where = f"on a {h}x{w} island, its {'true' if truthful else 'false'} hint {text!r}"
            if back != hint:
                raise HintKindError(f"hint kind {name!r} {where} is read back from the log as {back!r}")
            if mask.dtype != bool or mask.shape != island.shape:
                raise HintKindError(f"hint kind {name!r} {where}: its tile set is not a {h}x{w} bool array")
            if bool(mask[t]) != truthful:
                held = "leaves out" if truthful else "holds"
                raise HintKindError(f"hint kind {name!r} {where}: its tile set {held} the treasure at {t}")


# ---------------------------------------------------------------- a game's hint set
def parse_weights(text: str | None) -> dict[str, float]:
    """`NAME=W,NAME=W` (NAME a kind or `builtin`, W >= 0) as a dict; HintKindError if malformed."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        name, sep, value = part.partition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = math.nan
        if not sep or not name.strip() or not (weight >= 0 and math.isfinite(weight)):
            raise HintKindError(f"--hint-weights: {part!r} is not NAME=WEIGHT with a weight >= 0")
        out[name.strip()] = weight
    return out


def hint_set(files: Iterable[str] = (), weights: str | None = None, check: bool = True) -> HintSet | None:
    """The kinds a game's pirate chooses from: the built-ins, plus the kinds of `files` and of the
    entry points that `weights` names, at the weights it gives (`builtin=0` leaves the built-ins
    out). None when that is the built-ins at their own weights (the games of the golden logs)."""
    files = tuple(files)
    given = parse_weights(weights)
    plugins: dict[str, type[PluginHint]] = {}
    for path in files:
        for cls in load_file(path):
            plugins[cls.name] = cls
    builtin_names = {c.name for c in HINT_CLASSES.values()}
    for name in given:
        if name != BUILTIN_GROUP and name not in builtin_names and name not in plugins:
            found = load_entry_point(name)
            if found is None:
                known = sorted({*builtin_names, *plugins, *entry_point_names()})
                raise HintKindError(f"--hint-weights: no hint kind called {name!r} (known: {', '.join(known)})")
            plugins[name] = found
    if check:
        for cls in plugins.values():
            check_kind(cls)
    group = given.get(BUILTIN_GROUP, 1.0)
    kinds, ws = [], []
    for cls in (*HINT_CLASSES.values(), *plugins.values()):  # type: ignore[assignment]
        base = group * cls.weight if cls.name in builtin_names else cls.weight
        w = given.get(cls.name, base)
        if w > 0:
            kinds.append(cls)
            ws.append(w)
    if not kinds:
        raise HintKindError("--hint-weights leaves no hint kind with a weight above 0")
    out = HintSet(kinds, ws, recipe=(_rebuild, (tuple(os.path.abspath(f) for f in files), weights)))
    return None if out == BUILTIN_HINTS else out


def _rebuild(files: tuple[str, ...], weights: str | None) -> HintSet | None:
    """A hint set in another process (a pool worker, a Dask worker): loaded again, checked once."""
    return hint_set(files, weights, check=False) or BUILTIN_HINTS
