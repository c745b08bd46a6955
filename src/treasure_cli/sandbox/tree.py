"""A submission's folder as the sandbox shows it: which files count, and how much of them.

An agent plays with the files beside it (helpers it imports, packages, a data
file it opens), so the referee copies its folder, not only its file, into the
agent's private folder (sandbox/launch.py). Only regular files count: links
are never followed (a link to /etc/shadow or to the teacher's home would
show what it points at), and what editors, archivers and Python leave behind
(hidden files and folders, `__MACOSX/`, `__pycache__/`, a virtual environment)
is left out.

The caps hold before anything reads the files: a folder with more files or
bytes than allowed is refused, not cut, since a partial copy would fail in
ways that name no cause.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

from treasure_cli.agents import registry
from treasure_cli.sandbox import class_parse

MAX_FILES = 2_000            # files of one submission's folder
MAX_BYTES = 50 << 20         # bytes of one submission's folder
MAX_SOURCE_BYTES = registry.MAX_SOURCE_BYTES  # bytes of one source file the referee parses (ast)

# The caps a command sets (`tournament --max-group-files ...`: set_caps) are kept in the
# environment, so the worker processes it starts (spawned: they share no module state) hold a
# group to the same caps when they copy its folder for a game (sandbox/launch.py).
CAP_VARIABLES = ("TREASURE_CLI_MAX_GROUP_FILES", "TREASURE_CLI_MAX_GROUP_BYTES", "TREASURE_CLI_MAX_SOURCE_BYTES")


@dataclasses.dataclass(frozen=True)
class Caps:
    files: int = MAX_FILES          # files of a group
    bytes: int = MAX_BYTES          # bytes of a group
    source: int = MAX_SOURCE_BYTES  # bytes of one source file parsed to find the agent


def caps() -> Caps:
    """The caps in force: those a command set, else the defaults."""
    values = []
    for name, default in zip(CAP_VARIABLES, (MAX_FILES, MAX_BYTES, MAX_SOURCE_BYTES)):
        text = os.environ.get(name, "")
        values.append(int(text) if text.isdigit() and int(text) > 0 else default)
    return Caps(*values)


def set_caps(files: int | None = None, size: int | None = None, source: int | None = None) -> None:
    """The caps of this process and of the processes it starts (None: the default)."""
    for name, value in zip(CAP_VARIABLES, (files, size, source)):
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = str(value)

# What no agent's copy may hold, whatever folder it shares with an agent's file: the results
# store, the maps being played, the logs being written (`protect`). Kept in the environment, as
# the caps are, for the worker processes a command starts.
PROTECTED_VARIABLE = "TREASURE_CLI_PROTECTED"
_SQLITE_SIDES = ("", "-wal", "-shm", "-journal")


def protect(*paths: str | os.PathLike[str] | None) -> None:
    """Keep `paths` (files or folders; a store with its -wal, -shm and -journal files) out of every
    agent's copy made by this process and the processes it starts."""
    known = set(protected()) | {os.path.realpath(p) for p in paths if p}
    os.environ[PROTECTED_VARIABLE] = os.pathsep.join(sorted(known))


def protected() -> tuple[str, ...]:
    return tuple(p for p in os.environ.get(PROTECTED_VARIABLE, "").split(os.pathsep) if p)


def is_protected(path: Path) -> bool:
    """Whether `path` is, or is under, a path given to `protect`."""
    real = os.path.realpath(path)
    for p in protected():
        if real.startswith(p + os.sep) or any(real == p + side for side in _SQLITE_SIDES):
            return True
    return False


SKIPPED = frozenset({"__MACOSX", "__pycache__", "node_modules", ".DS_Store", "Thumbs.db", "desktop.ini"})


def virtual_env(folder: Path) -> bool:
    """Whether `folder` is a Python virtual environment (it has `pyvenv.cfg`): a group that hands one
    in beside its agent (`venv/`, thousands of files) plays with the referee's Python anyway."""
    return os.path.isfile(folder / "pyvenv.cfg") and not os.path.islink(folder / "pyvenv.cfg")


class TooBig(Exception):
    """A folder over a cap; the message says which cap and by how much."""


def skipped(name: str) -> bool:
    """Whether a file or folder called `name` is left out of a submission."""
    return name.startswith(".") or name in SKIPPED or name.endswith((".pyc", "~"))


def files(root: Path, max_files: int | None = None, max_bytes: int | None = None) -> list[tuple[Path, int]]:
    """The regular files under `root` (paths relative to it, sorted) with their sizes; TooBig past a
    cap (None: the cap in force, `caps()`).

    Walks without following links and without reading a byte of any file."""
    now = caps()
    max_files = now.files if max_files is None else max_files
    max_bytes = now.bytes if max_bytes is None else max_bytes
    found: list[tuple[Path, int]] = []
    total = 0
    pending = [Path()]
    while pending:
        rel = pending.pop()
        try:
            entries = sorted(os.scandir(root / rel), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if skipped(entry.name):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                if not virtual_env(root / rel / entry.name):
                    pending.append(rel / entry.name)
            elif stat.S_ISREG(st.st_mode):
                total += st.st_size
                found.append((rel / entry.name, st.st_size))
                if len(found) > max_files:
                    raise TooBig(f"more than {max_files} files (the cap)")
                if total > max_bytes:
                    raise TooBig(f"more than {_size(max_bytes)} of files (the cap)")
    return sorted(found)


def shared(folder: Path, entry: str) -> bool:
    """Whether `folder` holds other submissions beside `entry` (a class's folder: `students/ann.py`
    beside `students/bob.py` or `students/carl/`): another Python file with a class that has
    `act`, another program, an archive, or a subfolder holding one of those. Such a folder is not
    the agent's to see (another student's code would be in its sandbox). A folder whose entry is
    `agent.py`, or with an `agent.toml` in it or above it, is a group's."""
    if entry == "agent.py" or any((p / "agent.toml").is_file() for p in (folder, *list(folder.parents)[:4])):
        return False
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return True
    python: list[Path] = []  # parsed together, in a child, once nothing else has decided
    for e in entries:
        if e.name == entry or skipped(e.name) or virtual_env(Path(e.path)):
            continue
        if e.is_dir(follow_symlinks=False):
            try:
                inside = files(Path(e.path))
            except TooBig:
                return True
            paths = [Path(e.path) / rel for rel, _ in inside]
        elif e.is_file(follow_symlinks=False):
            if e.name.lower().endswith((".zip", ".tar.gz", ".tgz")):
                return True
            paths = [Path(e.path)]
        else:
            continue
        for path in paths:
            if path.suffix == ".py":
                python.append(path)
            elif _executable(path):
                return True
    return any(_acts(python))


def _executable(path: Path) -> bool:
    try:
        return bool(path.lstat().st_mode & 0o111)
    except OSError:
        return False


_ACTS: dict[tuple[str, int, int], bool] = {}  # (path, size, mtime): whether it has a class with `act`


def _acts(paths: list[Path]) -> list[bool]:
    """Whether each Python file (not over the source cap) has a top-level class with an agent's
    `act`: parsed, never run, in a child process under a memory limit (sandbox/class_parse.py),
    the referee never parses a stranger's file itself; each file once per process."""
    keys: list[tuple[str, int, int] | None] = []
    for path in paths:
        try:
            st = path.lstat()
        except OSError:
            keys.append(None)
            continue
        keys.append((str(path), st.st_size, st.st_mtime_ns) if st.st_size <= caps().source else None)
    todo = [Path(k[0]) for k in keys if k is not None and k not in _ACTS]
    if todo:
        found = class_parse.classes_of(todo, caps().source)
        for k in keys:
            if k is not None and k not in _ACTS:
                result = found.get(Path(k[0]), "")
                _ACTS[k] = not isinstance(result, str) and bool(result[0] or result[1])
    return [k is not None and _ACTS[k] for k in keys]


def _size(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 and not n % (1 << 20) else f"{n} bytes"


def cap_text(n: int) -> str:
    """A cap in bytes as the docs and --help give it: 2 MB, 50 MB, 1500 bytes."""
    return _size(n)


def size_text(n: int) -> str:
    """`n` bytes for a person: 812 B, 14.2 kB, 3.1 MB."""
    if n < 1000:
        return f"{n} B"
    if n < 1_000_000:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1_000_000:.1f} MB"
