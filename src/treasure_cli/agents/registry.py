"""From an agent spec (what `--agent` takes) to agents.

A spec is one of:

* a built-in name: `logic`, `greedy`, `random`, `oracle`, or an ablation;
* `package.module:Class`: anything importable;
* `path/to/file.py:Class`: a file anywhere, loaded under a private module name
  (`path/to/file.py` alone when the file has exactly one class with `act`);
* the name of a plugin: an installed package's entry point in the group
  `treasure_cli.agents` (a built-in name wins over a plugin of the same name);
* `exec:PATH [ARGS]`: any executable that speaks the agent protocol
  (docs/agent-protocol.md), such as a compiled C++ agent.

Every agent but the built-ins is a stranger's code: the referee runs it in a
process of its own (sandbox/launch.py), so `check_spec` tells whether a spec
names something without running any of its code; `resolve` builds it in
this process, which only the built-ins, the agent host in the agent's own
process, and `--agent-isolation none` do.

`Class` is any callable that takes no argument and returns an object with
`act(obs)`: a class, or a factory function. Every game gets a new agent.
Specs are plain strings, so worker processes (fork or spawn) and log files
carry them as they are and each resolves them itself.

This module imports no agent and no numpy until a spec is resolved, so the
command line can list the names at start-up for free.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib
import importlib.util
import os
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from treasure_cli.errors import AgentLoadError

if TYPE_CHECKING:
    import ast

PLUGIN_GROUP = "treasure_cli.agents"
EXEC = "exec:"
_LOGIC = "treasure_cli.agents.logic:LogicAgent"
_PLANNER = "treasure_cli.agents.planner:PlanningAgent"


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    """A resolved spec: how to build the agent, and how the game must treat it."""

    spec: str                             # as the user gave it; recorded in the log
    factory: Callable[[], Any]
    summary: str = ""
    sees_hint_truths: bool = False        # the game tells it every hint's truth (the oracle bound)

    def build(self) -> Any:
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
    return _Builtin(_LOGIC, f"ablation: logic-greedy with {said}", tuple(switches.items()))


BUILTIN: dict[str, _Builtin] = {
    "logic": _Builtin(_PLANNER, "the logical agent: candidate tiles, each action chosen by the turns it leaves"),
    "oracle": _Builtin(_PLANNER, "the logic agent told every hint's truth for free (an upper bound)",
                       sees_hint_truths=True),
    # Today's logic before it planned (issue 44): kept so a student can see what planning adds.
    "logic-greedy": _Builtin(_LOGIC, "the logic agent before planning: a fixed order of greedy rules"),
    "oracle-greedy": _Builtin(_LOGIC, "logic-greedy told every hint's truth for free (the old bound)",
                              sees_hint_truths=True),
    "greedy": _Builtin("treasure_cli.agents.greedy:GreedyAgent",
                       "a typical-student baseline: verify, scan, walk to the densest spot, chase the pirate"),
    "random": _Builtin("treasure_cli.agents.random_agent:RandomAgent",
                       "uniformly random legal actions, never teleports (a floor)"),
    # Ablations: logic-greedy (the rules the planner keeps for sure scans and the teleport while the pirate is in
    # prison) with one idea switched, to measure what each adds (docs/agent.md).
    "logic-no-tie-break": _ablation(tie_break=False),
    "logic-plan-two": _ablation(plan_two=True),
    "logic-no-race": _ablation(race=False),
    "logic-soft-hints": _ablation(soft_hints=True),
}

SPEC_HELP = ("a built-in name (" + ", ".join(sorted(BUILTIN)) + "), package.module:Class, "
             "path/to/file.py:Class, exec:PATH [ARGS], or an installed plugin's name")


def is_builtin(spec: str) -> bool:
    """Built-in agents are this package's own code: they always play in the referee's process."""
    return spec.strip() in BUILTIN


def is_exec_spec(spec: str) -> bool:
    return spec.strip().startswith(EXEC)


def exec_command(spec: str) -> list[str]:
    """The command line of an `exec:PATH [ARGS]` spec (split as a POSIX shell would, no shell run)."""
    import shlex

    try:
        words = shlex.split(spec.strip()[len(EXEC):])
    except ValueError as exc:
        raise AgentLoadError(f"agent {spec!r}: {exc}") from None
    if not words:
        raise AgentLoadError(f"agent {spec!r}: give the program after exec:, e.g. exec:./my-agent")
    return words


def check_spec(spec: str) -> str:
    """`spec`, stripped, if it names an agent; AgentLoadError saying what is wrong otherwise.

    Runs none of the agent's code: a file is looked for, a module's source file found
    without importing it, a plugin's entry point read but not loaded.
    """
    spec = spec.strip()
    if not spec:
        raise AgentLoadError("an agent spec is empty")
    if spec in BUILTIN:
        return spec
    if is_exec_spec(spec):
        program = Path(exec_command(spec)[0]).expanduser()
        if not program.is_file():
            raise AgentLoadError(f"agent {spec!r}: no such program {str(program)!r}")
        if not os.access(program, os.X_OK):
            raise AgentLoadError(f"agent {spec!r}: {str(program)!r} is not executable (chmod +x it)")
        return spec
    if ":" in spec:
        where, _, attr = spec.rpartition(":")
        if not attr.isidentifier():
            raise AgentLoadError(f"agent {spec!r}: {attr!r} is not a Python name (expected FILE_OR_MODULE:Class)")
        if is_file_spec(spec):
            if not Path(where).expanduser().is_file():
                raise AgentLoadError(f"agent {spec!r}: no such file {where!r}")
            _check_name(spec, Path(where).expanduser(), where, attr)
            return spec
        module = _module_file(where)
        if module is None:
            raise AgentLoadError(f"agent {spec!r}: cannot find the module {where!r}")
        _check_name(spec, module, where, attr)
        return spec
    if spec in _plugins():
        return spec
    if spec.endswith(".py") and Path(spec).expanduser().is_file():
        return f"{spec}:{only_agent_class(spec)}"
    hint = ""
    if Path(spec).expanduser().is_file():
        hint = f" (a Python file needs its class: {spec}:ClassName; a program: exec:{spec})"
    raise AgentLoadError(f"unknown agent {spec!r}; give {SPEC_HELP}{hint}")


MAX_SOURCE_BYTES = 2 << 20  # bytes of a source file the referee parses (a 4 MB file took 1.7 GB to parse)


def _check_name(spec: str, path: Path, where: str, attr: str) -> None:
    """AgentLoadError, with a "did you mean", when the Python source `path` binds no `attr` at all:
    a misspelt class is found before any game, once. Read, not run; a file Python cannot parse,
    or one that may make names at run time (`import *`, a module `__getattr__`, `globals()`),
    is left to its loading."""
    import ast
    import difflib

    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:  # never parse what is not capped
            return
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, RecursionError, MemoryError, ValueError, OSError):
        return
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return
                bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.Name) and node.id in ("globals", "vars", "setattr"):
            return
    if "__getattr__" in bound or attr in bound:
        return
    offered = [node.name for node in tree.body  # what a spec names: its top-level classes and functions
               if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
               and not node.name.startswith("_")]
    close = difflib.get_close_matches(attr, offered, n=1)
    if close:
        hint = f"; did you mean {where}:{close[0]}?"
    elif offered:
        hint = f"; it defines {', '.join(offered[:8])}{', ...' if len(offered) > 8 else ''}"
    else:
        hint = "; it defines no class or function"
    raise AgentLoadError(f"agent {spec!r}: {where} has no {attr!r}{hint}")


def agent_classes(path: str | Path) -> list[str]:
    """The top-level classes of a Python file that may be its agent, found by parsing it (none of
    its code runs: a stranger's file runs only in its own process): those that define `act`, or
    when none does, the one class of the file (it may inherit `act`). SyntaxError as AgentLoadError."""
    import ast

    try:
        size = Path(path).expanduser().stat().st_size
    except OSError as exc:
        raise AgentLoadError(f"{path}: cannot read it ({exc.strerror})") from None
    if size > MAX_SOURCE_BYTES:  # parsing takes ~400 bytes of memory a byte of source
        raise AgentLoadError(f"{path}: {size / 1e6:.1f} MB, over the {MAX_SOURCE_BYTES >> 20} MB cap for a "
                             "source file")
    try:
        tree = ast.parse(Path(path).expanduser().read_bytes(), filename=str(path))
    except SyntaxError as exc:
        raise AgentLoadError(f"{path}:{exc.lineno}: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError) as exc:  # nested too deep for the parser; NUL bytes
        raise AgentLoadError(f"{path}: Python cannot parse it ({type(exc).__name__}: {exc})") from None
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    acting = [node.name for node in classes if buildable(node)
              and any(isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == "act" for f in node.body)]
    if not acting and any(not buildable(node) for node in classes):
        raise AgentLoadError(f"{path}: its class needs arguments to be made, and an agent class is made with none; "
                             f"a program that speaks the protocol is played as exec:{path}")
    return acting or ([classes[0].name] if len(classes) == 1 and classes[0].bases else [])


def buildable(node: ast.ClassDef) -> bool:
    """Whether a class (parsed) can be made with no argument, as the referee makes an agent: one whose
    `__init__` needs an argument (the plain kit's `Agent(island)`, a protocol program) cannot."""
    import ast

    for f in node.body:
        if isinstance(f, ast.FunctionDef) and f.name == "__init__":
            a = f.args
            needed = len(a.posonlyargs) + len(a.args) - 1 - len(a.defaults)  # (less `self`)
            return needed <= 0 and all(d is not None for d in a.kw_defaults)
    return True


def only_agent_class(path: str | Path) -> str:
    """The one agent class of a Python file (a spec without `:Class`), or an error naming what was found."""
    found = agent_classes(path)
    if len(found) == 1:
        return found[0]
    if not found:
        raise AgentLoadError(f"{path}: no class with an act(obs) method found; give the agent as "
                             f"{path}:ClassName (a class or a factory function)")
    raise AgentLoadError(f"{path}: {len(found)} agent classes ({', '.join(found)}); say which: "
                         + " or ".join(f"{path}:{name}" for name in found))


def _module_file(name: str) -> Path | None:
    """The source file of module `name`, found on the import path without importing it
    (nor its parent packages, whose __init__ would run)."""
    from importlib.machinery import PathFinder

    parts = name.split(".")
    if not all(p.isidentifier() for p in parts):
        return None
    found = PathFinder.find_spec(parts[0])
    for part in parts[1:]:
        if found is None or not found.submodule_search_locations:
            return None
        found = PathFinder.find_spec(part, list(found.submodule_search_locations))
    if found is None or not found.origin or not Path(found.origin).is_file():
        return None
    return Path(found.origin)


def agent_names() -> list[str]:
    """Built-in names, then installed plugins."""
    return sorted(BUILTIN) + sorted(n for n in _plugins() if n not in BUILTIN)


@functools.cache
def resolve(spec: str) -> AgentSpec:
    """The AgentSpec of `spec`; AgentLoadError saying what is wrong when there is none."""
    spec = spec.strip()
    if not spec:
        raise AgentLoadError("an agent spec is empty")
    builtin = BUILTIN.get(spec)
    if is_exec_spec(spec):
        raise AgentLoadError(f"agent {spec!r}: a program plays only in a process of its own, "
                             "not with --agent-isolation none")
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
        # Absolute, as Python gives an imported module: its code runs in its own folder (at_home),
        # where a path relative to the referee's no longer leads to a file beside it (weights.json).
        module.__file__ = os.path.abspath(os.path.expanduser(where))
        _run_as_module(module, lambda: exec(compile(source, where, "exec"), module.__dict__), spec, where)
    return AgentSpec(spec, _callable(module, attr, spec))


def load_code(spec: str, code: types.CodeType) -> AgentSpec:
    """The AgentSpec of the file agent `spec` from its source compiled already (`compile(source,
    path, "exec")`): a warm host compiles it once and runs it in each game's fresh process."""
    spec = spec.strip()
    where, _, attr = spec.rpartition(":")
    module = types.ModuleType("treasure_cli_user_agent")
    module.__file__ = where  # what tracebacks and error messages show
    _run_as_module(module, lambda: exec(code, module.__dict__), spec, where)
    return AgentSpec(spec, _callable(module, attr, spec))


@dataclasses.dataclass(frozen=True)
class AgentCode:
    """Which code an agent spec stands for, to tell a resubmitted agent from the one already played."""

    digest: str                  # "file:<sha256>", "module:<sha256>" or "package:<name>==<version>"
    source: bytes | None = None  # a file agent's bytes, to send to machines without the file


def agent_code(spec: str) -> AgentCode:
    """The digest of the code behind `spec` (resolve it first, so a bad spec fails there).

    * path/to/file.py:Class: SHA-256 of the file's bytes (16 hex digits), and the bytes;
    * exec:PATH [ARGS]: the same of the program's file;
    * package.module:Class: SHA-256 of the module's own source file (not of what it imports);
    * a built-in: the version of treasure-cli; a plugin: its distribution's name and version.
    """
    spec = spec.strip()
    if spec in BUILTIN:
        from treasure_cli.version import __version__

        return AgentCode(f"package:treasure-cli=={__version__}")
    if is_exec_spec(spec):
        data = Path(exec_command(spec)[0]).expanduser().read_bytes()
        return AgentCode("exec:" + hashlib.sha256(data).hexdigest()[:16], data)
    if ":" in spec:
        where, _, _ = spec.rpartition(":")
        if is_file_spec(spec):
            data = Path(where).expanduser().read_bytes()
            return AgentCode("file:" + hashlib.sha256(data).hexdigest()[:16], data)
        origin = _module_file(where)  # not imported: a stranger's module runs only in its own process
        if origin is not None:
            return AgentCode("module:" + hashlib.sha256(origin.read_bytes()).hexdigest()[:16])
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


def _plugins() -> dict[str, Any]:
    from importlib.metadata import entry_points  # 30 ms to import: only when a spec needs plugins

    return {ep.name: ep for ep in entry_points(group=PLUGIN_GROUP)}


def _import_module(name: str, spec: str) -> types.ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise AgentLoadError(f"agent {spec!r}: cannot import {name!r}: {exc}") from None
    except Exception as exc:
        raise AgentLoadError(f"agent {spec!r}: importing {name!r} raised {type(exc).__name__}: {exc}") from None


def _import_attr(target: str, spec: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    return _callable(_import_module(module, spec), attr, spec)


def _load_file(path: str, spec: str) -> types.ModuleType:
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
    loader = module_spec.loader
    return _run_as_module(module, lambda: loader.exec_module(module), spec, path)


GROUP_TOP = "/./"
"""In a file agent's or a program's path, what marks its group's top folder, as rsync's
`--relative` reads it: `class/ann/./src/agent.py` is `src/agent.py` of the group whose folder is
`class/ann` (grading/intake.py writes it). The path is the file's all the same; the sandbox shows
the agent the whole tree from that folder (sandbox/launch.py), and the folder is on its import path."""


def group_top(where: str) -> str | None:
    """The group's top folder that `where` (a file's path) marks with GROUP_TOP, else None."""
    top, mark, rest = where.rpartition(GROUP_TOP)
    inside = rest and not rest.startswith("/") and ".." not in rest.split("/")  # (a path in the group)
    return top if mark and top and inside else None


def package_of(where: str) -> tuple[str, str] | None:
    """(its package's dotted name, the folder that holds the package) when the agent file `where`
    lies in a package of its group: its folder has an `__init__.py`, as `src/treasure_bot/agent.py`
    of a `src/` layout does, whose `from .strategy import choose` needs its package. Only below its
    group's top folder (GROUP_TOP): the folders above it are not the group's."""
    top = group_top(where)
    if top is None:
        return None
    stop = os.path.abspath(os.path.expanduser(top))
    folder = os.path.dirname(os.path.abspath(os.path.expanduser(where)))
    parts: list[str] = []
    while (folder != stop and folder.startswith(stop + os.sep) and os.path.basename(folder).isidentifier()
           and os.path.isfile(os.path.join(folder, "__init__.py"))):
        parts.append(os.path.basename(folder))
        folder = os.path.dirname(folder)
    return (".".join(reversed(parts)), folder) if parts else None


def import_folders(where: str) -> list[str]:
    """Where an agent file's imports are looked for, first first: its own folder, the folder that
    holds its package when it lies in one (package_of), then its group's top folder when its path
    marks one (a helper package beside `src/`)."""
    folder = os.path.dirname(os.path.abspath(os.path.expanduser(where)))
    package = package_of(where)
    top = group_top(where)
    above = os.path.abspath(os.path.expanduser(top)) if top else None
    found = [folder]
    for place in (package[1] if package else None, above):
        if place and place not in found:
            found.append(place)
    return found


@contextlib.contextmanager
def at_home(where: str) -> Iterator[None]:
    """While an agent file's code runs in this process (`--agent-isolation none`): as `python
    agent.py` would at home, its folder first on the import path and the working folder (its
    group's top folder next on the path, see GROUP_TOP). The modules it imported from them are
    then forgotten by name (its own code keeps them), so another group's `helpers` is not taken
    for this one's."""
    folders = import_folders(where)
    folder = folders[0]
    # A module of this process named like one of the folders' (`helpers`, `utils`) is put aside
    # while the agent loads: at home its own would be found first.
    own: set[str] = set()
    for place in folders:
        try:
            own |= {n[:-3] if n.endswith(".py") else n for n in os.listdir(place)
                    if n.endswith(".py") or os.path.isfile(os.path.join(place, n, "__init__.py"))}
        except OSError:
            pass
    mine = tuple(place + os.sep for place in folders)
    aside = {name: module for name, module in sys.modules.items()
             if name.partition(".")[0] in own and not (getattr(module, "__file__", None) or "").startswith(mine)}
    for name in aside:
        del sys.modules[name]
    before = set(sys.modules)
    here = os.getcwd()
    for place in reversed(folders):
        if place not in sys.path:
            sys.path.insert(0, place)
    try:
        os.chdir(folder)
    except OSError:
        pass
    try:
        yield
    finally:
        os.chdir(here)
        for name in set(sys.modules) - before:
            file = getattr(sys.modules[name], "__file__", None) or ""
            if file.startswith(mine):
                del sys.modules[name]
        sys.modules.update(aside)


def _run_as_module(module: types.ModuleType, run: Callable[[], object], spec: str, where: str) -> types.ModuleType:
    """Run an agent file's code as `module`, registered in sys.modules (dataclasses and pickle
    look classes up there) unless it raises, which names the file."""
    sys.modules[module.__name__] = module
    package = package_of(where)
    if package:
        module.__package__ = package[0]  # its relative imports (`from .strategy import ...`) find its package
    try:
        with at_home(where) if os.path.isfile(os.path.expanduser(where)) else contextlib.nullcontext():
            run()
    except Exception as exc:
        del sys.modules[module.__name__]
        raise AgentLoadError(f"agent {spec!r}: loading {where!r} raised {type(exc).__name__}: {exc}") from None
    return module


def _callable(module: types.ModuleType, attr: str, spec: str) -> Callable[..., Any]:
    if not attr.isidentifier():
        raise AgentLoadError(f"agent {spec!r}: {attr!r} is not a Python name (expected FILE_OR_MODULE:Class)")
    target = getattr(module, attr, None)
    if target is None:
        import difflib

        where = getattr(module, "__file__", None) or module.__name__
        # (in the agent's own process, its module loaded: a class named in a group's agent.toml)
        offered = [name for name, value in vars(module).items() if not name.startswith("_") and callable(value)
                   and getattr(value, "__module__", None) == module.__name__]
        close = difflib.get_close_matches(attr, offered, n=1)
        raise AgentLoadError(f"agent {spec!r}: {where} has no {attr!r}" + (f"; did you mean {close[0]!r}?" if close else ""))
    if not callable(target):
        raise AgentLoadError(f"agent {spec!r}: {attr!r} is not a class or a function")
    return target  # type: ignore[no-any-return]
