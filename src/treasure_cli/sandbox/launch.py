"""Where an agent plays: in the referee's process (built-ins), or in a process of its own.

The one place an agent spec becomes a command line (`agent_launch`): the
Python agent host for Python agents (files, modules, plugins), the program
itself for `exec:` agents, inside the sandbox or not (sandbox/levels.py). Where
a warm host can fork each game's process (Linux), it starts them all: for
an `exec:` agent each forked process becomes the program.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from treasure_cli.agents.registry import (
    exec_command,
    is_builtin,
    is_exec_spec,
    is_file_spec,
)
from treasure_cli.errors import TreasureError
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
        program = _shipped(command[0], data, executable=True)
        if FORKS:  # a warm host forks each game's process, which becomes the program
            return launch(zygote_exec_command([program, *command[1:]], jail=level == "sandbox"), level, program,
                          python=True, forks=True)
        return launch([program, *command[1:]], level, program, python=False)
    if is_file_spec(spec):
        where, _, attr = spec.strip().rpartition(":")
        data = source if source is not None else Path(where).expanduser().read_bytes()
        file = _shipped(where, data, executable=False)
        return launch(python_command(f"{file}:{attr}", level), level, file, python=True, forks=FORKS)
    return launch(python_command(spec.strip(), level), level, None, python=True, forks=FORKS)  # installed code


def python_command(spec: str, level: str) -> list[str]:
    """A Python agent's host: where it can, a warm one that forks each game's process (sandbox/warm_host.py)."""
    return zygote_command(spec, jail=level == "sandbox") if FORKS else host_command(spec)


def _shipped(name: str, data: bytes, executable: bool) -> str:
    """`data` as a file named like `name` in a folder of its own (by its digest), readable by
    the sandbox's user; written atomically, and written again if the copy there is not `data`
    (an agent without a sandbox runs as this user and could have changed it)."""
    digest = hashlib.sha256(data).hexdigest()[:16]
    root = Path(tempfile.gettempdir()) / f"treasure-cli-agents-{os.getuid()}"
    folder = root / digest
    target = folder / Path(name).name
    seen = _VERIFIED.get(target)
    if seen is not None and seen == _identity(target):
        return str(target)  # the copy this process checked or wrote, untouched since
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest()[:16] == digest:
        _VERIFIED[target] = _identity(target)
        return str(target)
    folder.mkdir(parents=True, exist_ok=True)
    if root.lstat().st_uid != os.getuid() or root.is_symlink():
        raise TreasureError(f"{root} belongs to another user: agents' copies cannot go there")
    os.chmod(root, 0o755)
    os.chmod(folder, 0o755)
    fd, tmp = tempfile.mkstemp(dir=folder)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(tmp, 0o755 if executable else 0o644)
    os.replace(tmp, target)
    _VERIFIED[target] = _identity(target)
    return str(target)


# The copies this process has checked, by what stat says of them then: reading and hashing a
# copy again before every game of a tournament cost ~0.2 ms a game.
_VERIFIED: dict[Path, tuple[int, int, int, int] | None] = {}


def _identity(path: Path) -> tuple[int, int, int, int] | None:
    """What changes when a file is written or replaced (its inode, size, times)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
