"""Where an agent plays: in the referee's process (built-ins), or in a process of its own.

The one place an agent spec becomes a command line (`agent_launch`): the
Python agent host for Python agents (files, modules, plugins), the program
itself for `exec:` agents, inside the sandbox or not (sandbox/levels.py). Where
a warm host can fork each game's process (Linux), it starts them all: for
an `exec:` agent each forked process becomes the program.

A file agent or a program plays from a copy of its folder (sandbox/tree.py says
which files count): helpers it imports, packages and data files beside it are
there, read-only in the sandbox, and the agent's working folder is its own file's
folder. A group's agent, whose path marks its group's top folder
(`class/ann/./src/agent.py`, agents/registry.py: GROUP_TOP), plays from a copy of
the group's whole tree instead (`../data/weights.json` opens, a package at the
top imports), still in its own file's folder. A folder over the caps (a file
agent run from a home folder, say), or one that holds other submissions too (a
class's folder of single files: tree.shared), is not copied: the agent gets its
own file alone, as before.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

from treasure_cli.agents import registry
from treasure_cli.agents.registry import (
    GROUP_TOP,
    AgentCode,
    exec_command,
    group_top,
    is_builtin,
    is_exec_spec,
    is_file_spec,
)
from treasure_cli.errors import TreasureError
from treasure_cli.sandbox import tree
from treasure_cli.sandbox.levels import FORKS, Launch, host_command, launch, zygote_command, zygote_exec_command

DEFAULT_GAME_TIMEOUT = 60.0  # seconds: an agent in a process of its own never hangs a run by default


def in_process(spec: str, level: str) -> bool:
    """Whether `spec` plays in the referee's own process at isolation `level`."""
    return is_builtin(spec) or (level == "none" and not is_exec_spec(spec))


def agent_launch(spec: str, level: str, source: bytes | None = None) -> Launch:
    """How to start the agent of `spec` at `level` ("process" or "sandbox"; "none" for an
    exec: agent means "process").

    A file agent or a program plays from a copy of its bytes (`source`, or the file
    read now) in a folder of its own: the sandbox's user can read it whatever the
    original's permissions, the folders around it stay out of view, and the code that
    plays is the code whose digest the results record, even if the file changes."""
    level = "process" if level == "none" else level
    if is_exec_spec(spec):
        command = exec_command(spec)
        data = source if source is not None else Path(command[0]).expanduser().read_bytes()
        folder, program = _shipped(command[0], data, executable=True)
        if FORKS:  # a warm host forks each game's process, which becomes the program
            return launch(zygote_exec_command([program, *command[1:]], jail=level == "sandbox"), level, folder,
                          python=True, forks=True)
        return launch([program, *command[1:]], level, folder, python=False)
    if is_file_spec(spec):
        where, _, attr = spec.strip().rpartition(":")
        data = source if source is not None else Path(where).expanduser().read_bytes()
        folder, file = _shipped(where, data, executable=False)
        return launch(python_command(f"{file}:{attr}", level), level, folder, python=True, forks=FORKS)
    return launch(python_command(spec.strip(), level), level, None, python=True, forks=FORKS)  # installed code


def python_command(spec: str, level: str) -> list[str]:
    """A Python agent's host: where it can, a warm one that forks each game's process (sandbox/warm_host.py)."""
    return zygote_command(spec, jail=level == "sandbox") if FORKS else host_command(spec)


def _shipped(name: str, data: bytes, executable: bool) -> tuple[str, str]:
    """A private copy of the folder of `name` (the files sandbox/tree.py counts, `name` itself as
    `data`), readable by the sandbox's user, in a folder named by a digest of it all: the copy's
    folder and the path of `name` in it. The folder is the group's top one where `name` marks it
    (GROUP_TOP; the path in the copy marks it too). Without a folder to copy (over the caps,
    unreadable), `name` alone. Made again if a file there is no longer what was copied (an agent
    without a sandbox runs as this user and could have changed it)."""
    original = Path(name).expanduser()
    top = group_top(name)
    entry = Path(name.rpartition(GROUP_TOP)[2]) if top else Path(original.name)  # its path in the copy
    beside = _beside(original, top)
    digest = hashlib.sha256(f"{entry.as_posix()}\0".encode("utf-8", "surrogateescape") + data)  # (names as bytes)
    for rel, size, when in beside:
        digest.update(f"\0{rel}\0{size}\0{when}".encode("utf-8", "surrogateescape"))
    key = digest.hexdigest()[:16]
    root = Path(tempfile.gettempdir()) / f"treasure-cli-agents-{os.getuid()}"
    folder = root / key
    told = f"{folder}{GROUP_TOP}{entry.as_posix()}" if top else str(folder / entry)  # (the group's top marked)
    seen = _VERIFIED.get(folder)
    if seen is not None and seen == _identities(folder, seen):
        return str(folder), told  # the copy this process checked or wrote, untouched since
    root.mkdir(parents=True, exist_ok=True)
    if root.lstat().st_uid != os.getuid() or root.is_symlink():
        raise TreasureError(f"{root} belongs to another user: agents' copies cannot go there")
    os.chmod(root, 0o755)
    if folder.is_dir() and _intact(folder, entry, hashlib.sha256(data).hexdigest(), beside):
        _VERIFIED[folder] = _identities(folder, None)
        return str(folder), told
    fresh = Path(tempfile.mkdtemp(dir=root, prefix=f".{key}-"))
    os.chmod(fresh, 0o755)
    home = Path(top).expanduser() if top else original.parent
    for rel, _, _ in beside:
        if rel == entry:
            continue
        _folders(fresh, rel)
        try:
            _copy_file(home / rel, fresh / rel)
        except OSError:
            continue  # gone or unreadable since it was listed: the agent plays without it
    _folders(fresh, entry)
    with open(fresh / entry, "wb") as f:
        f.write(data)
    os.chmod(fresh / entry, 0o755 if executable else 0o644)
    if folder.is_dir() and _intact(folder, entry, hashlib.sha256(data).hexdigest(), beside):
        # Another worker of the run made it while this one copied (two workers start an agent's
        # first games at once): its copy is as good, and one of its games may be starting on it
        # (bubblewrap then finds no folder) or playing from it (its files would be removed).
        shutil.rmtree(fresh, ignore_errors=True)
        _VERIFIED[folder] = _identities(folder, None)
        return str(folder), told
    if folder.exists():  # a copy that is not what it was: out of the way, then replaced
        stale = Path(tempfile.mkdtemp(dir=root, prefix=".stale-"))
        os.replace(folder, stale / "old")
        shutil.rmtree(stale, ignore_errors=True)
    try:
        os.replace(fresh, folder)
    except OSError:  # another referee process made it at the same moment: its copy is as good
        shutil.rmtree(fresh, ignore_errors=True)
    _VERIFIED[folder] = _identities(folder, None)
    return str(folder), told


def _folders(copy: Path, rel: Path) -> None:
    """The folders of `rel` under `copy`, open to the sandbox's user."""
    for parent in reversed(rel.parents[:-1]):
        (copy / parent).mkdir(mode=0o755, exist_ok=True)
        os.chmod(copy / parent, 0o755)


def _beside(original: Path, top: str | None = None) -> list[tuple[Path, int, int]]:
    """The files of `original`'s folder (of its group's `top` folder when given) to copy with it
    (paths relative to that folder), or none when the folder is over the caps or cannot be read:
    listed once per process (a tournament's games all play the folder as it was at its first game;
    walking it again cost ~0.15 ms a game)."""
    key = _listing_key(original, top)
    listed = _LISTED.get(key)
    if listed is None:
        listed = _LISTED[key] = _list_beside(original, top)
    return listed


_LISTED: dict[str, list[tuple[Path, int, int]]] = {}


def _listing_key(original: Path, top: str | None) -> str:
    return f"{original.absolute()}\0{top}"


def _list_beside(original: Path, top: str | None = None) -> list[tuple[Path, int, int]]:
    if top is not None:  # a group's whole tree: the intake found it the group's own
        home = Path(top).expanduser().resolve()
        if str(home) in _NOT_A_SUBMISSION or str(home) == str(Path.home()):
            return []
    else:
        home = original.resolve().parent
        if str(home) in _NOT_A_SUBMISSION or str(home) == str(Path.home()) or tree.shared(home, original.name):
            return []  # a file put straight in /tmp or a home folder, or among others': the folder is not the agent's
    try:
        listed = tree.files(home)
    except (tree.TooBig, OSError):
        return []
    if tree.protected():  # the store, the maps, the logs of this command: never in an agent's copy
        listed = [(rel, size) for rel, size in listed if not tree.is_protected(home / rel)]
    stamped = []
    for rel, size in listed:
        try:
            stamped.append((rel, size, os.lstat(home / rel).st_mtime_ns))
        except OSError:
            continue
    return stamped


_NOT_A_SUBMISSION = {os.path.realpath(tempfile.gettempdir()), "/", "/tmp", "/var/tmp"}


def left_out(spec: str, message: str) -> str | None:
    """Why a file agent could not import a module that is beside its file (`message`, its error,
    says `No module named 'X'`): the folder's files were not copied with it, the folder holding
    another agent's file (or being /tmp or a home folder). None when that is not the cause."""
    found = re.search(r"No module named '([A-Za-z_][A-Za-z0-9_]*)", message)
    if found is None or not is_file_spec(spec):
        return None
    where = spec.strip().rpartition(":")[0]
    if group_top(where) is not None:  # a group's whole tree is copied
        return None
    original = Path(where).expanduser()
    home = original.resolve().parent
    helper = next((p for p in (home / f"{found[1]}.py", home / found[1]) if p.exists()), None)
    if helper is None:
        return None
    if str(home) in _NOT_A_SUBMISSION or str(home) == str(Path.home()):
        why, advice = f"{home} is a shared folder", "put it and its helpers in a folder of their own"
    elif tree.shared(home, original.name):  # (an entry named agent.py marks the folder as its own)
        why = "its folder holds another agent's file (a class with act, a program or an archive)"
        advice = "name it agent.py, or put it and its helpers in a folder of their own without other agents"
    else:
        return None
    return f"{helper.name} is beside {original.name}, but {why}, so the agent plays from a copy of its file alone: {advice}"


def _copy_file(source: Path, copy: Path) -> None:
    """A regular file's bytes, never through a link (the file was listed as regular; it may be a
    link by now), with its executable bit, readable by all."""
    fd = os.open(source, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not (st.st_mode & 0o170000) == 0o100000:
            return
        with open(copy, "wb") as out:
            shutil.copyfileobj(f, out)
    os.chmod(copy, 0o755 if st.st_mode & 0o111 else 0o644)


def _intact(folder: Path, entry: Path, entry_digest: str, beside: list[tuple[Path, int, int]]) -> bool:
    """Whether an existing copy holds the entry's bytes (at `entry` in it) and, by size, the files beside it."""
    try:
        if hashlib.sha256((folder / entry).read_bytes()).hexdigest() != entry_digest:
            return False
        return all((folder / rel).stat().st_size == size for rel, size, _ in beside if rel != entry)
    except OSError:
        return False


# The copies this process has checked, by what stat says of their files then: reading and
# hashing a copy again before every game of a tournament cost ~0.2 ms a game.
_VERIFIED: dict[Path, dict[str, tuple[int, int, int, int]]] = {}


def _identities(folder: Path, known: dict[str, tuple[int, int, int, int]] | None) -> dict[str, tuple[int, int, int, int]]:
    """What changes when a file under `folder` is written, replaced, added or removed (the paths
    in `known` when given, and their count checked by a walk only when not)."""
    found: dict[str, tuple[int, int, int, int]] = {}
    names = list(known) if known is not None else [
        os.path.relpath(os.path.join(d, f), folder) for d, _, fs in os.walk(folder) for f in fs]
    for rel in names:
        try:
            st = os.lstat(folder / rel)
        except OSError:
            continue
        found[rel] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return found


def folder_files(name: str) -> tuple[Path, list[Path]]:
    """The folder a file agent or program at `name` plays from a copy of, and the files of it that
    the copy holds besides `name` itself (relative to the folder; none: `name` plays alone). What
    a machine without the folder is sent (play/shipping.py), chosen as the copy is, caps included."""
    original = Path(name).expanduser()
    top = group_top(name)
    if top:  # the group's whole tree, its paths relative to its top folder
        entry = name.rpartition(GROUP_TOP)[2]
        return Path(top).expanduser(), [rel for rel, _, _ in _beside(original, top) if rel.as_posix() != entry]
    return original.parent, [rel for rel, _, _ in _beside(original) if rel.as_posix() != original.name]


def received(name: str) -> None:
    """`name`'s folder was sent from the referee's machine (play/shipping.py) holding exactly the
    files its copy is to hold: they are listed as they are, not judged again (whether the folder
    was the agent's to see was decided where it was sent from, with its surroundings)."""
    original = Path(name).expanduser()
    top = group_top(name)
    home = Path(top).expanduser() if top else original.parent
    listed = []
    for rel, size in tree.files(home):
        with contextlib.suppress(OSError):
            listed.append((rel, size, os.lstat(home / rel).st_mtime_ns))
    _LISTED[_listing_key(original, top)] = listed


def agent_code(spec: str) -> AgentCode:
    """`registry.agent_code(spec)`, its digest covering every file the agent plays with: the files
    its copy holds beside its entry (a group's helpers, packages, data), not the entry alone, so a
    group that changed only a helper is a new version, played again and not taken for the old one.
    An agent that plays its file alone keeps the entry's digest (stores made before keep its games)."""
    code = registry.agent_code(spec)
    if is_exec_spec(spec):
        name = exec_command(spec)[0]
    elif is_file_spec(spec):
        name = spec.strip().rpartition(":")[0]
    else:
        return code  # installed code: named by its package's version or module
    folder, beside = folder_files(name)
    if not beside:
        return code
    digest = hashlib.sha256(code.digest.encode())
    for rel in sorted(beside):
        try:
            with open(folder / rel, "rb") as f:
                data = f.read()
        except OSError:
            continue  # gone since it was listed: the copy goes without it too
        digest.update(f"\0{rel.as_posix()}\0".encode("utf-8", "surrogateescape") + hashlib.sha256(data).digest())
    kind = code.digest.partition(":")[0]
    return dataclasses.replace(code, digest=f"{kind}:{digest.hexdigest()[:16]}")
