"""From an agent spec (what `--agent` takes) to agents.

A spec is one of:

* a built-in name: `logic`, `greedy`, `random`, `oracle`, or an ablation;
* `package.module:Class`: anything importable;
* `path/to/file.py:Class`: a file anywhere, loaded under a private module name;
* the name of a plugin: an installed package's entry point in the group
  `treasure_cli.agents` (a built-in name wins over a plugin of the same name).

`Class` is any callable that takes no argument and returns an object with
`act(obs)`: a class, or a factory function. Every game gets a new agent.
Specs are plain strings, so worker processes (fork or spawn) and log files
carry them as they are and each resolves them itself.

This module imports no agent and no numpy until a spec is resolved, so the
command line can list the names at start-up for free.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import importlib.util
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from treasure_cli.errors import AgentLoadError

PLUGIN_GROUP = "treasure_cli.agents"
_LOGIC = "treasure_cli.agents.logic:LogicAgent"


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    """A resolved spec: how to build the agent, and how the game must treat it."""

    spec: str                             # as the user gave it; recorded in the log
    factory: Callable[[], Any]
    summary: str = ""
    sees_hint_truths: bool = False        # the game tells it every hint's truth (the oracle bound)

    def build(self):
        agent = self.factory()
        if not callable(getattr(agent, "act", None)):
            raise AgentLoadError(f"agent {self.spec!r}: {type(agent).__name__} has no act(obs) method")
        return agent


@dataclasses.dataclass(frozen=True)
class _Builtin:
    target: str
    summary: str
    switches: tuple[tuple[str, bool], ...] = ()
    sees_hint_truths: bool = False


def _ablation(**switches: bool) -> _Builtin:
    said = ", ".join(f"{k}={v}" for k, v in switches.items())
    return _Builtin(_LOGIC, f"ablation: the logic agent with {said}", tuple(switches.items()))


BUILTIN: dict[str, _Builtin] = {
    "logic": _Builtin(_LOGIC, "the logical agent: candidate tiles, best verification, scan or move"),
    "oracle": _Builtin(_LOGIC, "the logic agent told every hint's truth for free (an upper bound)",
                       sees_hint_truths=True),
    "greedy": _Builtin("treasure_cli.agents.greedy:GreedyAgent",
                       "a typical-student baseline: verify, scan, walk to the densest spot, chase the pirate"),
    "random": _Builtin("treasure_cli.agents.random_agent:RandomAgent",
                       "uniformly random legal actions, never teleports (a floor)"),
    # Ablations: the logic agent with one idea switched, to measure what each adds (docs/agent.md).
    "logic-no-tie-break": _ablation(tie_break=False),
    "logic-plan-two": _ablation(plan_two=True),
    "logic-no-race": _ablation(race=False),
    "logic-soft-hints": _ablation(soft_hints=True),
}

SPEC_HELP = ("a built-in name (" + ", ".join(sorted(BUILTIN)) + "), package.module:Class, "
             "path/to/file.py:Class, or an installed plugin's name")


def agent_names() -> list[str]:
    """Built-in names, then installed plugins."""
    return sorted(BUILTIN) + sorted(n for n in _plugins() if n not in BUILTIN)


@functools.lru_cache(maxsize=None)
def resolve(spec: str) -> AgentSpec:
    """The AgentSpec of `spec`; AgentLoadError saying what is wrong when there is none."""
    spec = spec.strip()
    if not spec:
        raise AgentLoadError("an agent spec is empty")
    builtin = BUILTIN.get(spec)
    if builtin is not None:
        cls = _import_attr(builtin.target, spec)
        switches = dict(builtin.switches)
        return AgentSpec(spec, functools.partial(cls, **switches) if switches else cls,
                         builtin.summary, builtin.sees_hint_truths)
    if ":" in spec:
        where, _, attr = spec.rpartition(":")
        if is_file_spec(spec):
            return AgentSpec(spec, _callable(_load_file(where, spec), attr, spec))
        return AgentSpec(spec, _callable(_import_module(where, spec), attr, spec))
    plugin = _plugins().get(spec)
    if plugin is not None:
        try:
            target = plugin.load()
        except Exception as exc:
            raise AgentLoadError(f"agent {spec!r}: the plugin failed to load: {type(exc).__name__}: {exc}") from None
        if not callable(target):
            raise AgentLoadError(f"agent {spec!r}: the plugin's entry point is not callable")
        return AgentSpec(spec, target, f"plugin from {plugin.value}")
    raise AgentLoadError(f"unknown agent {spec!r}; give {SPEC_HELP}")


def is_file_spec(spec: str) -> bool:
    """Whether `spec` names a Python file (path/to/file.py:Class) rather than a module or a name."""
    where, colon, _ = spec.strip().rpartition(":")
    return bool(colon) and spec.strip() not in BUILTIN and (
        where.endswith(".py") or "/" in where or "\\" in where)


def load_source(spec: str, source: bytes) -> AgentSpec:
    """The AgentSpec of the file agent `spec` (path/to/file.py:Class) built from the file's bytes.

    For machines that do not have the file (a Dask worker): the caller reads
    the file once and sends its bytes with each game. The module gets a
    private name from the bytes' hash, so two versions of one file never mix
    and each version is executed once per process.
    """
    spec = spec.strip()
    where, _, attr = spec.rpartition(":")
    name = "treasure_cli_shipped_agent_" + hashlib.sha256(source).hexdigest()[:16]
    module = sys.modules.get(name)
    if module is None:
        module = types.ModuleType(name)
        module.__file__ = where  # what tracebacks and error messages show
        _run_as_module(module, lambda: exec(compile(source, where, "exec"), module.__dict__), spec, where)
    return AgentSpec(spec, _callable(module, attr, spec))


@dataclasses.dataclass(frozen=True)
class AgentCode:
    """Which code an agent spec stands for, to tell a resubmitted agent from the one already played."""

    digest: str                  # "file:<sha256>", "module:<sha256>" or "package:<name>==<version>"
    source: bytes | None = None  # a file agent's bytes, to send to machines without the file


def agent_code(spec: str) -> AgentCode:
    """The digest of the code behind `spec` (resolve it first, so a bad spec fails there).

    * path/to/file.py:Class: SHA-256 of the file's bytes (16 hex digits), and the bytes;
    * package.module:Class: SHA-256 of the module's own source file (not of what it imports);
    * a built-in: the version of treasure-cli; a plugin: its distribution's name and version.
    """
    spec = spec.strip()
    if spec in BUILTIN:
        from treasure_cli import __version__

        return AgentCode(f"package:treasure-cli=={__version__}")
    if ":" in spec:
        where, _, _ = spec.rpartition(":")
        if is_file_spec(spec):
            data = Path(where).expanduser().read_bytes()
            return AgentCode("file:" + hashlib.sha256(data).hexdigest()[:16], data)
        module = _import_module(where, spec)
        origin = getattr(module, "__file__", None)
        if origin and Path(origin).is_file():
            return AgentCode("module:" + hashlib.sha256(Path(origin).read_bytes()).hexdigest()[:16])
        return AgentCode("package:" + _distribution(where.partition(".")[0]))
    plugin = _plugins().get(spec)
    if plugin is not None:
        dist = getattr(plugin, "dist", None)
        if dist is not None:
            return AgentCode(f"package:{dist.metadata['Name']}=={dist.version}")
        return AgentCode("package:" + _distribution(plugin.value.partition(":")[0].partition(".")[0]))
    raise AgentLoadError(f"unknown agent {spec!r}; give {SPEC_HELP}")


def _distribution(top_level: str) -> str:
    """`name==version` of the installed distribution that provides a top-level package, or `top_level==?`."""
    from importlib.metadata import packages_distributions, version

    for name in packages_distributions().get(top_level, []):
        return f"{name}=={version(name)}"
    return f"{top_level}==?"


def _plugins() -> dict:
    from importlib.metadata import entry_points  # 30 ms to import: only when a spec needs plugins

    return {ep.name: ep for ep in entry_points(group=PLUGIN_GROUP)}


def _import_module(name: str, spec: str):
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise AgentLoadError(f"agent {spec!r}: cannot import {name!r}: {exc}") from None
    except Exception as exc:
        raise AgentLoadError(f"agent {spec!r}: importing {name!r} raised {type(exc).__name__}: {exc}") from None


def _import_attr(target: str, spec: str):
    module, _, attr = target.partition(":")
    return _callable(_import_module(module, spec), attr, spec)


def _load_file(path: str, spec: str):
    """Execute a Python file once per process as a module of its own (name from its full path)."""
    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise AgentLoadError(f"agent {spec!r}: no such file {path!r}")
    name = "treasure_cli_user_agent_" + hashlib.sha256(str(file).encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, file)
    if module_spec is None or module_spec.loader is None:
        raise AgentLoadError(f"agent {spec!r}: {path!r} is not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    return _run_as_module(module, lambda: module_spec.loader.exec_module(module), spec, path)


def _run_as_module(module: types.ModuleType, run: Callable[[], object], spec: str, where: str) -> types.ModuleType:
    """Run an agent file's code as `module`, registered in sys.modules (dataclasses and pickle
    look classes up there) unless it raises, which names the file."""
    sys.modules[module.__name__] = module
    try:
        run()
    except Exception as exc:
        del sys.modules[module.__name__]
        raise AgentLoadError(f"agent {spec!r}: loading {where!r} raised {type(exc).__name__}: {exc}") from None
    return module


def _callable(module, attr: str, spec: str):
    if not attr.isidentifier():
        raise AgentLoadError(f"agent {spec!r}: {attr!r} is not a Python name (expected FILE_OR_MODULE:Class)")
    target = getattr(module, attr, None)
    if target is None:
        where = getattr(module, "__file__", None) or module.__name__
        raise AgentLoadError(f"agent {spec!r}: {where} has no {attr!r}")
    if not callable(target):
        raise AgentLoadError(f"agent {spec!r}: {attr!r} is not a class or a function")
    return target
