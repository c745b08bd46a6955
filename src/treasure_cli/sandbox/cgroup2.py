"""A cgroup v2 group for each game, where the unified hierarchy hands this program its
memory controller (sandbox/cgroups.py chooses it only where cgroup v1's memory hierarchy is
not writable).

cgroup v2 has one tree. A controller works in a group only when its parent lists it in
`cgroup.subtree_control`, and (the "no internal processes" rule) a group other than the
tree's root cannot both hold processes and hand controllers to its children. So:

1. The referee's own group (`0::/path` in /proc/self/cgroup, under the cgroup2 mount)
   must offer `memory` (its `cgroup.controllers`). A tree whose memory controller is bound
   to cgroup v1 (it lists `hugetlb` alone, say) is no memory control at all: not taken.
2. The delegated parent D is the referee's group: the tree's root as is; any other group
   only if it holds the referee's processes and no one else's (a group of its own, as
   `systemd-run --user --scope -p Delegate=yes treasure ...` gives): they move into a leaf,
   `D/treasure-ref-PID`, and D hands `memory` (and `cpuset`, if offered) to its children.
   A referee process started in such a leaf (a pool's worker) takes its parent as D.
   A group shared with other processes (a login shell's) is left as it is: the referee then
   counts a game's memory itself (sandbox/game_memory.py), and `treasure doctor` says why.
3. Each referee process has a folder `D/treasure-PID` handing the same controllers on, and
   each game a group in it, `game-N`: `memory.max` is --agent-memory, `memory.swap.max` 0
   (no swap to spill into), `memory.oom.group` 1 (past its limit the kernel ends the whole
   game, not one process of it), `cpuset.cpus` the referee's CPUs. The game's process is
   written into its `cgroup.procs` before any of the agent's code runs.
4. When the game ends: `cgroup.kill` (Linux 5.14) ends every process in it at once, forks
   in flight included; the referee waits for `cgroup.events` to say `populated 0`, asks the
   kernel to reclaim the pages charged to it (`memory.reclaim`, Linux 5.19: the file pages
   its game cached, which a later game could time), and removes it. A game ended at its
   limit is read from `memory.events` (`oom_kill`, `oom_group_kill`).

Every file operation goes through a `Files` (a fake tree in tests); nothing here creates a
file in the cgroup tree: a missing interface file is an error, or skipped where optional.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

LEAF = "treasure-ref-"      # the leaf a referee's processes move into (its pid follows)
BASE = "treasure-"          # a referee process's folder of game groups (its pid follows)
GAME = "game-"              # a game's group in it (a number follows)
WANTED = ("memory", "cpuset")
CLOSE_SECONDS = 2.0         # how long a game's group is waited for to empty and go


def ended(pids: Callable[[], Iterable[int]], alive: Callable[[], bool], deadline: float) -> bool:
    """Kill every process `pids` gives, again, until `alive` says none is left (True) or the
    `deadline` passes (False). The kill takes a fraction of a millisecond: waited for briefly
    at first (0.1 ms), then longer (up to 2 ms)."""
    pause = 0.0001
    while alive():
        for pid in pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.002)
    return True


class Files:
    """The few operations made on the cgroup file system."""

    def read(self, path: str) -> str:
        with open(path) as f:
            return f.read()

    def write(self, path: str, value: str) -> None:
        fd = os.open(path, os.O_WRONLY)  # never O_CREAT: an interface file exists, or this fails
        try:
            os.write(fd, value.encode())
        finally:
            os.close(fd)

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def mkdir(self, path: str) -> None:
        os.mkdir(path)

    def rmdir(self, path: str) -> None:
        os.rmdir(path)

    def listdir(self, path: str) -> list[str]:
        return os.listdir(path)


FILES = Files()


def own_folder(mountinfo: str = "/proc/self/mountinfo", cgroup: str = "/proc/self/cgroup") -> tuple[str | None, str]:
    """The folder of this process's cgroup v2 group, or None and why there is none."""
    mount = root = None
    try:
        with open(mountinfo) as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if tail and tail[0] == "cgroup2" and len(fields) >= 5:
                    root, mount = fields[3], fields[4]
                    break
        path = None
        with open(cgroup) as f:
            for line in f:
                number, _, rest = line.rstrip("\n").partition(":")
                names, _, where = rest.partition(":")
                if number == "0" and names == "":
                    path = where
    except OSError as exc:
        return None, f"cannot read this process's control groups: {exc}"
    if mount is None or root is None:
        return None, "no cgroup v2 tree is mounted"
    if path is None:
        return None, "this process is in no cgroup v2 group"
    if not (path == root or path.startswith(root.rstrip("/") + "/")):
        return None, f"this process's cgroup v2 group ({path}) is outside the mounted tree"
    return os.path.normpath(mount.rstrip("/") + "/" + path[len(root.rstrip("/")):].lstrip("/")), ""


def _words(files: Files, path: str) -> list[str]:
    return files.read(path).split()


def _is_root(files: Files, folder: str) -> bool:
    """The tree's root has no `cgroup.type` (and no "no internal processes" rule)."""
    return not files.exists(os.path.join(folder, "cgroup.type"))


def _descendants(pid: int) -> set[int]:
    """The processes started by `pid`, and theirs."""
    parents: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rpartition(")")[2].split()[1])
                    parents.setdefault(ppid, []).append(int(entry))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def delegated_parent(own: str, pid: int, files: Files = FILES) -> tuple[str | None, str]:
    """D, the group whose children this referee's games are (step 2 of the module's
    docstring), made ready, or None and why not. May move this referee's processes into a leaf."""
    try:
        offered = _words(files, os.path.join(own, "cgroup.controllers"))
    except OSError as exc:
        return None, f"cannot read {own}/cgroup.controllers: {exc}"
    if "memory" not in offered:
        return None, (f"the cgroup v2 tree offers no memory controller to this process's group ({own}: "
                      f"{' '.join(offered) or 'none'}: it is bound to cgroup v1, or not delegated)")
    parent = os.path.dirname(own)
    with contextlib.suppress(OSError):
        if os.path.basename(own).startswith(LEAF) and "memory" in _words(files, f"{parent}/cgroup.subtree_control"):
            return parent, ""  # a referee process started in another's leaf (a pool's worker)
    wanted = tuple(name for name in WANTED if name in offered)
    try:
        if "memory" in _words(files, os.path.join(own, "cgroup.subtree_control")):
            return own, ""
        if _is_root(files, own):
            _hand_on(files, own, wanted)
            return own, ""
    except OSError as exc:
        return None, f"cannot hand the memory controller on in {own}: {exc}"
    return _move_into_leaf(own, pid, wanted, files)


def _hand_on(files: Files, folder: str, names: tuple[str, ...]) -> None:
    """Hand `names` on to `folder`'s children. The kernel takes such a write whole or not at
    all: where it refuses one of them (a cpuset it cannot give), memory alone is asked for."""
    path = os.path.join(folder, "cgroup.subtree_control")
    try:
        files.write(path, " ".join("+" + name for name in names))
    except OSError:
        if names == ("memory",) or "memory" not in names:
            raise
        files.write(path, "+memory")


def _move_into_leaf(own: str, pid: int, wanted: tuple[str, ...], files: Files) -> tuple[str | None, str]:
    """Move this referee's processes (`pid` and all it started) out of `own` into a leaf of
    theirs, then hand `wanted` on in `own`; where `own` holds anyone else's, touch nothing."""
    procs = os.path.join(own, "cgroup.procs")
    try:
        held = {int(x) for x in _words(files, procs)}
    except (OSError, ValueError) as exc:
        return None, f"cannot read {procs}: {exc}"
    ours = {pid} | _descendants(pid)
    if held - ours:
        return None, (f"this process's cgroup v2 group ({own}) holds {len(held - ours)} other processes: "
                      "run the referee in a delegated group of its own "
                      "(systemd-run --user --scope -p Delegate=yes treasure ...)")
    leaf = os.path.join(own, f"{LEAF}{pid}")
    try:
        with contextlib.suppress(FileExistsError):
            files.mkdir(leaf)
        for _ in range(3):  # (a process started meanwhile is moved at the next pass)
            for moved in sorted(held):
                with contextlib.suppress(ProcessLookupError):
                    files.write(os.path.join(leaf, "cgroup.procs"), str(moved))
            held = {int(x) for x in _words(files, procs)}
            if not held:
                break
            held &= {pid} | _descendants(pid)  # (only its own: anyone else's stays, and the hand-on fails)
        _hand_on(files, own, wanted)
        return own, ""
    except (OSError, ValueError) as exc:
        with contextlib.suppress(OSError, ValueError):  # back as they were
            for back in _words(files, os.path.join(leaf, "cgroup.procs")):
                files.write(procs, back)
            files.rmdir(leaf)
        return None, f"cannot hand the memory controller on in {own}: {exc}"


@dataclass(frozen=True)
class Base:
    """A referee process's folder of game groups, and the controllers its games get."""

    folder: str
    controllers: tuple[str, ...]
    files: Files


def make_base(parent: str, pid: int, files: Files = FILES) -> Base:
    """`parent/treasure-PID`, handing on what `parent` hands it (raises OSError)."""
    sweep(parent, files, pid)
    offered = _words(files, os.path.join(parent, "cgroup.subtree_control"))
    folder = os.path.join(parent, f"{BASE}{pid}")
    with contextlib.suppress(FileExistsError):
        files.mkdir(folder)
    if "memory" in offered:
        _hand_on(files, folder, tuple(name for name in WANTED if name in offered))
    given = _words(files, os.path.join(folder, "cgroup.subtree_control"))
    return Base(folder, tuple(name for name in WANTED if name in given), files)


def sweep(parent: str, files: Files = FILES, mine: int | None = None) -> None:
    """Remove the folders (and leaves) of referee processes that are gone and left them (not
    `mine`'s): only empty groups can be removed, so nothing that still runs is touched."""
    with contextlib.suppress(OSError):
        for entry in files.listdir(parent):
            prefix = LEAF if entry.startswith(LEAF) else BASE
            number = entry.removeprefix(prefix)
            if (not entry.startswith(prefix) or not number.isdigit() or number == str(mine)
                    or os.path.exists(f"/proc/{number}")):
                continue
            folder = os.path.join(parent, entry)
            with contextlib.suppress(OSError):
                for game in files.listdir(folder):
                    if game.startswith(GAME):
                        with contextlib.suppress(OSError):
                            files.rmdir(os.path.join(folder, game))
            with contextlib.suppress(OSError):
                files.rmdir(folder)


def remove_base(base: Base) -> None:
    """A referee process's folder, once its games' groups are gone (at exit)."""
    with contextlib.suppress(OSError):
        for entry in base.files.listdir(base.folder):
            if entry.startswith(GAME):
                with contextlib.suppress(OSError):
                    base.files.rmdir(os.path.join(base.folder, entry))
        base.files.rmdir(base.folder)


class Group:
    """One game's group: made with its limits, filled, then killed and removed."""

    def __init__(self, base: Base, number: int, memory: int, cpus: set[int] | None):
        self.base, self.files = base, base.files
        self.folder = os.path.join(base.folder, f"{GAME}{number}")
        with contextlib.suppress(FileExistsError):
            self.files.mkdir(self.folder)
        try:
            if "memory" in base.controllers:
                self._set("memory.max", str(memory))
                self._set("memory.swap.max", "0", optional=True)   # (no swap accounting: no swap to limit)
                self._set("memory.oom.group", "1", optional=True)  # (Linux 4.19)
            if cpus and "cpuset" in base.controllers:
                self._set("cpuset.cpus", cpu_list(cpus))
        except OSError:
            self.close()
            raise

    def _set(self, name: str, value: str, optional: bool = False) -> None:
        path = os.path.join(self.folder, name)
        if optional and not self.files.exists(path):
            return
        self.files.write(path, value)

    def set_cpus(self, cpus: set[int]) -> None:
        if cpus and "cpuset" in self.base.controllers:
            self._set("cpuset.cpus", cpu_list(cpus))

    def add(self, pid: int) -> None:
        """Put process `pid` (0: the calling process) and what it starts from now on in the group."""
        self.files.write(os.path.join(self.folder, "cgroup.procs"), str(pid))

    def pids(self) -> list[int]:
        with contextlib.suppress(OSError, ValueError):
            return sorted(int(x) for x in _words(self.files, os.path.join(self.folder, "cgroup.procs")))
        return []

    def populated(self) -> bool:
        with contextlib.suppress(OSError):
            for line in self.files.read(os.path.join(self.folder, "cgroup.events")).splitlines():
                key, _, value = line.partition(" ")
                if key == "populated":
                    return value.strip() != "0"
        return bool(self.pids())

    def oom_killed(self) -> bool:
        """Whether the kernel ended a process of the game (or all of it) at its memory limit."""
        with contextlib.suppress(OSError):
            for line in self.files.read(os.path.join(self.folder, "memory.events")).splitlines():
                key, _, value = line.partition(" ")
                if key in ("oom_kill", "oom_group_kill") and value.strip() not in ("", "0"):
                    return True
        return False

    def close(self) -> bool:
        """End every process in the group, give back its pages, remove it; True once removed
        (else it stays, empty or not, for `remove_base` or a later `sweep`)."""
        deadline = time.monotonic() + CLOSE_SECONDS
        killer = os.path.join(self.folder, "cgroup.kill")
        with contextlib.suppress(OSError):  # (no cgroup.kill before Linux 5.14: each process below)
            self.files.write(killer, "1")
        if ended(self.pids, self.populated, deadline):
            # The file pages (and names) its game brought into the kernel's caches stay
            # charged to a removed group, still cached: a later game timing its own reads
            # would find them. Reclaimed, they are gone.
            with contextlib.suppress(OSError, ValueError):
                current = int(self.files.read(os.path.join(self.folder, "memory.current")))
                if current > 0:
                    self.files.write(os.path.join(self.folder, "memory.reclaim"), str(current))
        while True:
            try:
                self.files.rmdir(self.folder)
                return True
            except FileNotFoundError:
                return True
            except OSError:
                if time.monotonic() > deadline:
                    return False
                for pid in self.pids():
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
                time.sleep(0.002)


def cpu_list(cpus: set[int]) -> str:
    return ",".join(str(c) for c in sorted(cpus))
