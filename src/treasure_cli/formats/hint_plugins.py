"""Hint kinds from outside the program: a file (`--hints FILE`) or an entry point, checked on load.

A plugin kind is trusted code that runs on the referee's side, like the map
(docs/security.md): it is imported into the program's own process. Before a
game uses it, `check_kind` plays its draw on generated islands and refuses a
kind whose tile set, rebuilt from what the log keeps of it and from the
public island only, disagrees with the truth the pirate gave it.
See docs/hints.md.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import hashlib
import inspect
import math
import os
import shlex
import sys
import types
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from treasure_cli.errors import TreasureError
from treasure_cli.rules import plugin_kinds
from treasure_cli.rules.draws import Draws
from treasure_cli.rules.hint_draw import BUILTIN_HINTS, HintSet, draw_hint
from treasure_cli.rules.hint_kinds import HintContext
from treasure_cli.rules.hints import HINT_CLASSES, Hint
from treasure_cli.rules.plugin_kinds import PluginHint, install_kind

ENTRY_POINT_GROUP = "treasure_cli.hints"
BUILTIN_GROUP = "builtin"  # in a weight spec: the 15 built-in kinds together


class HintKindError(TreasureError):
    """A hint kind that cannot be loaded, or that breaks the rules of a kind."""


# ---------------------------------------------------------------- loading
def load_file(path: str) -> list[type[PluginHint]]:
    """The hint kinds a Python file defines (every PluginHint subclass with a `name`), installed."""
    return load_source(_read(path), path)


def _read(path: str) -> bytes:
    full = os.path.abspath(path)
    if not os.path.isfile(full):
        raise HintKindError(f"--hints {path}: no such file")
    try:
        with open(full, "rb") as f:
            return f.read()
    except OSError as exc:
        raise HintKindError(f"--hints {path}: {exc.strerror}") from None


def load_source(source: bytes, path: str) -> list[type[PluginHint]]:
    """The hint kinds of a file's bytes (`path` names it in messages and tracebacks), installed.

    The module is named after the bytes' digest: the same code is one module, and one set of
    classes, however it arrives (a path here, bytes on a pool or Dask worker that has no copy
    of the file), so the hints a worker draws pickle and compare as the referee's."""
    digest = hashlib.sha256(source).hexdigest()
    module_name = "treasure_hints_" + digest[:16]
    module = sys.modules.get(module_name)
    if module is None:
        module = types.ModuleType(module_name)
        module.__file__ = os.path.abspath(path)
        sys.modules[module_name] = module  # dataclasses and pickle look classes up there
        try:
            exec(compile(source, module.__file__, "exec"), module.__dict__)
        except Exception as exc:
            del sys.modules[module_name]
            raise HintKindError(f"--hints {path}: the file fails on import: {type(exc).__name__}: {exc}") from exc
    kinds = [obj for obj in vars(module).values()
             if inspect.isclass(obj) and issubclass(obj, PluginHint) and obj.__module__ == module_name
             and "name" in vars(obj)]
    if not kinds:
        raise HintKindError(f"--hints {path}: the file defines no hint kind (a PluginHint subclass with a name)")
    for cls in kinds:
        _FILES[cls] = (path, source)
        plugin_kinds.ORIGINS[cls] = f"{os.path.basename(path)}#{digest[:16]}"  # what a log names it by
    return [_install(k, f"--hints {path}") for k in kinds]


# The file (as given, and its bytes) each kind loaded from a file came from.
_FILES: dict[type, tuple[str, bytes]] = {}


def load_entry_point(name: str) -> type[PluginHint] | None:
    """The kind an installed package provides under `name` in the `treasure_cli.hints` group."""
    import importlib.metadata  # here, not at import: ~20 ms of every command's start

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
            plugin_kinds.ORIGINS[cls] = ep.value.partition(":")[0].strip()  # what a log names it by
            return _install(cls, f"entry point {ep.value}")
    return None


def entry_point_names() -> list[str]:
    import importlib.metadata

    return sorted(ep.name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))


def _install(cls: type[PluginHint], where: str) -> type[PluginHint]:
    if not dataclasses.is_dataclass(cls):
        raise HintKindError(f"hint kind {getattr(cls, 'name', cls.__qualname__)!r} ({where}): "
                            "it must be a frozen dataclass of its parameters")
    try:
        return install_kind(cls)
    except ValueError as exc:
        raise HintKindError(f"{exc} ({where})") from None


# The folders of the logs being read (`beside`): a kind a log says came from a file is looked for
# there, to name it in the error. It is never loaded from there: a log and a file beside it may
# come from anyone (a student who sends both writes the digest too), and a kind's module code would
# run in the reader's own process, outside every sandbox. Only `--hints FILE` loads a file.
_LOG_FOLDERS: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("log_folders", default=())


@contextlib.contextmanager
def beside(folder: str | os.PathLike[str]) -> Iterator[None]:
    """While reading a log in `folder`, a hint kind the log says came from FILE#DIGEST that no
    `--hints` gave is refused with the command that loads `folder`/FILE, when that file's SHA-256
    starts with DIGEST (the code that played the game)."""
    token = _LOG_FOLDERS.set(_LOG_FOLDERS.get() + (os.fspath(folder),))
    try:
        yield
    finally:
        _LOG_FOLDERS.reset(token)


def _find_at(name: str, where: str) -> None:
    """The log reader's fallback for a kind it does not know, from the origin the log gives: the
    module of an installed package. A kind from a file is not loaded (`beside`): if the very file
    is beside the log, ValueError says how to load it."""
    file, hashed, digest = where.partition("#")
    if hashed:
        if file.endswith(".py") and not file.startswith(".") and os.path.basename(file) == file:
            for folder in _LOG_FOLDERS.get():
                candidate = os.path.join(folder, file)
                try:
                    same = os.path.isfile(candidate) and hashlib.sha256(_read(candidate)).hexdigest()[:16] == digest
                except (HintKindError, OSError):
                    same = False
                if same:
                    raise ValueError(f"hint kind {name!r} is not installed: it came from {candidate}, the file beside "
                                     f"the log; a kind's file is code that runs as you, so replay loads it only when "
                                     f"you give it: add --hints {shlex.quote(candidate)} if you trust it")
        return
    try:
        import importlib.metadata

        # Only a module an installed package offers kinds from: a log's word imports nothing else.
        offered = {ep.value.partition(":")[0].strip() for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
        if file not in offered:
            return
        module = importlib.import_module(file)
    except (HintKindError, ImportError, ValueError):
        return  # the reader's own message names the kind and where it came from
    for obj in vars(module).values():
        if inspect.isclass(obj) and issubclass(obj, PluginHint) and vars(obj).get("name") == name:
            plugin_kinds.ORIGINS[obj] = file
            with contextlib.suppress(HintKindError):
                _install(obj, f"module {file}")
            return


plugin_kinds.ORIGIN_FINDERS.append(_find_at)


def _find(name: str) -> None:
    """The log reader's fallback for a kind it does not know: an installed entry point."""
    try:
        load_entry_point(name)
    except HintKindError:
        pass  # the reader's own message names the kind


plugin_kinds.FINDERS.append(_find)


# ---------------------------------------------------------------- the check
CHECK_SIZES = ((10, 10), (16, 16), (12, 20), (24, 24))
CHECK_DRAWS = 8  # hints of each truth per island


def check_kind(cls: type[Hint], sizes: Sequence[tuple[int, int]] = CHECK_SIZES, draws: int = CHECK_DRAWS) -> None:
    """Play the kind's draw on generated islands and refuse it (HintKindError naming it) if a hint
    it gives is not read back from its log form, or if its tile set (from the public island) holds
    the treasure when the hint is false or leaves it out when it is true."""
    from treasure_cli.islands.generator import generate_island  # (the generator imports numpy code only)

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
                text = plugin_kinds.hint_text(hint)
                back = plugin_kinds.parse_hint_text(text)
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
    return _hint_set(tuple((path, _read(path)) for path in files), weights, check)


def _hint_set(sources: tuple[tuple[str, bytes], ...], weights: str | None, check: bool) -> HintSet | None:
    given = parse_weights(weights)
    plugins: dict[str, type[PluginHint]] = {}
    for path, source in sources:
        for cls in load_source(source, path):
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
    # Another process (a pool or Dask worker) rebuilds it from the files' bytes, not their paths.
    out = HintSet(kinds, ws, recipe=(_rebuild, (sources, weights)))
    return None if out == BUILTIN_HINTS else out


def _rebuild(sources: tuple[tuple[str, bytes], ...], weights: str | None) -> HintSet | None:
    """A hint set in another process (a pool worker, a Dask worker): loaded again, checked once."""
    return _hint_set(sources, weights, check=False) or BUILTIN_HINTS


# ---------------------------------------------------------------- a set's record
BUILTIN_KEY = "builtin"  # the record of the 15 built-in kinds at their own weights


def kind_digest(cls: type[Hint]) -> str:
    """What identifies a kind's code: `builtin`, or the sha256 (16 hex digits) of the file that
    defines it (its --hints file, or an entry point's module file)."""
    if HINT_CLASSES.get(getattr(cls, "kind", None)) is cls:  # type: ignore[arg-type]
        return "builtin"
    loaded = _FILES.get(cls)
    if loaded is not None:
        source = loaded[1]
    else:
        try:
            source = inspect.getsource(sys.modules[cls.__module__]).encode("utf-8")
        except (OSError, TypeError, KeyError):
            return "unknown"
    return "sha256:" + hashlib.sha256(source).hexdigest()[:16]


def hints_key(hints: HintSet | None) -> str | None:
    """A hint set as the text a results store records and a game's settings hold: each kind in
    play as NAME=WEIGHT, with @DIGEST of its code for a kind that is not built in; None for the
    15 built-in kinds at their own weights (so those games keep their settings and ids)."""
    if hints is None or hints == BUILTIN_HINTS:
        return None
    parts = []
    for cls, w in zip(hints.kinds, hints.weights):
        digest = kind_digest(cls)
        parts.append(f"{cls.name}={w!r}" + ("" if digest == "builtin" else f"@{digest}"))
    return ",".join(parts)


def parse_key(key: str | None) -> list[tuple[str, float, str]]:
    """`hints_key`'s text as (name, weight, digest) triples (digest `builtin` for the built-ins)."""
    if not key or key == BUILTIN_KEY:
        return [(cls.name, cls.weight, "builtin") for cls in HINT_CLASSES.values()]
    out = []
    for part in key.split(","):
        name, _, rest = part.partition("=")
        weight, _, digest = rest.partition("@")
        try:
            out.append((name, float(weight), digest or "builtin"))
        except ValueError:  # a store handed over or edited
            raise TreasureError(f"the record of hint kinds {key!r:.60} (of a store or a log) is damaged "
                                f"(weight {weight!r:.20})") from None
    return out


def describe_key(key: str | None) -> str:
    """A hint set's record for people: `the 15 built-in kinds`, or its kinds and weights."""
    if not key or key == BUILTIN_KEY:
        return "the 15 built-in kinds"
    triples = parse_key(key)
    builtin = [(n, w) for n, w, d in triples if d == "builtin"]
    words = []
    if len(builtin) == len(HINT_CLASSES) and all(w == HINT_CLASSES_BY_NAME[n].weight for n, w in builtin):
        words.append("the 15 built-in kinds")
    else:
        words += [f"{n} ({w:g})" for n, w in builtin]
    words += [f"{n} ({w:g}, code {d})" for n, w, d in triples if d != "builtin"]
    return ", ".join(words)


HINT_CLASSES_BY_NAME: dict[str, type[Hint]] = {cls.name: cls for cls in HINT_CLASSES.values()}


def hint_set_of_key(key: str | None, what: str) -> HintSet | None:
    """The hint set a `hints_key` text records, from the kinds installed now (loaded with --hints, or
    entry points); HintKindError, beginning with `what`, if a kind is missing or its code changed."""
    if not key or key == BUILTIN_KEY:
        return None
    kinds, ws = [], []
    for name, weight, digest in parse_key(key):
        cls: type[Hint] | None = HINT_CLASSES_BY_NAME.get(name)
        if cls is None:
            try:
                cls = plugin_kinds.installed_kind(name)
            except ValueError:
                raise HintKindError(f"{what} was played with the hint kind {name!r}, which is not installed: "
                                    "give its file with --hints FILE") from None
        if kind_digest(cls) != digest:
            raise HintKindError(f"{what} was played with the hint kind {name!r} of code {digest}; the one "
                                f"loaded now is {kind_digest(cls)}: give the file it was played with")
        kinds.append(cls)
        ws.append(weight)
    sources = tuple(dict.fromkeys(_FILES[k] for k in kinds if k in _FILES))
    weights = ",".join(f"{k.name}={w!r}" for k, w in zip(kinds, ws)) + f",{BUILTIN_GROUP}=0"
    return HintSet(kinds, ws, recipe=(_rebuild, (sources, weights)))
