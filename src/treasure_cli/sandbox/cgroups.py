"""A control group for each game's processes (Linux), where this machine lets the referee make one.

A game's processes (a warm host's fork for the game and all it starts, or a process
started for the one game) are placed in a group of their own before any of the agent's
code runs, under the group the referee itself runs in (so every limit above it still
holds), and the group is removed when the game ends:

* `memory` (cgroup v1's memory controller): the whole game, its children, its
  `memfd_create` and tmpfs pages and its pipes' buffers included, is held to
  `--agent-memory` (`memory.limit_in_bytes`); past it the kernel kills a process of the
  game, never one outside it. The per-process address-space limit does not count pages
  that are not mapped (a memfd's), nor add up across processes. When the game ends, the
  group is emptied (`memory.force_empty`) of the file pages and the names (dentries) its
  game brought into the kernel's caches: a later game timing its own reads would find them.
* `cpuset`: the game's CPUs are the referee's choice (`cpuset.cpus`); a process inside
  may call sched_setaffinity, but only within them.

Where there is no such group (no cgroup v1 hierarchy writable by this program: not
root, or a container that hides it), nothing is placed, and `treasure doctor` says so;
docs/security.md gives what bounds a game's memory then (sandbox/levels.py's limits).
cgroup v2 is not used yet: its groups need a delegated subtree whose own processes live
in a leaf, which a referee started from a shell does not have.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time

CONTROLLERS = ("memory", "cpuset")
_COUNT = itertools.count(1)


def _own_groups() -> dict[str, str]:
    """Controller -> the folder of this process's own group in its cgroup v1 hierarchy."""
    mounts: dict[str, str] = {}
    with contextlib.suppress(OSError), open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(tail) >= 3 and tail[0] == "cgroup":
                for option in tail[2].split(","):
                    if option in CONTROLLERS:
                        mounts.setdefault(option, fields[4])
    found: dict[str, str] = {}
    with contextlib.suppress(OSError), open("/proc/self/cgroup") as f:
        for line in f:
            _, names, path = line.rstrip("\n").split(":", 2)
            for name in names.split(","):
                if name in mounts:
                    found[name] = mounts[name].rstrip("/") + path
    return found


@functools.cache
def _bases(pid: int) -> dict[str, str]:
    """Controller -> a folder of this process's own (`treasure-<pid>`) under its group, made
    once per process (a pool's forked worker makes its own); only where it could be made."""
    bases: dict[str, str] = {}
    if os.environ.get("TREASURE_NO_CGROUPS"):  # (tests and doctor: the machine without them)
        return bases
    for name, own in _own_groups().items():
        _sweep(own)
        base = os.path.join(own, f"treasure-{pid}")
        try:
            os.makedirs(base, exist_ok=True)
            if name == "cpuset":
                _inherit_cpuset(own, base)
            bases[name] = base
        except OSError:
            continue
    return bases


def _sweep(own: str) -> None:
    """Remove the folders of referees' processes that are gone (a pool's worker ends without its
    exit hooks): only empty groups can be removed, so nothing that still runs is touched."""
    with contextlib.suppress(OSError):
        for entry in os.listdir(own):
            number = entry.removeprefix("treasure-")
            if not entry.startswith("treasure-") or not number.isdigit() or os.path.exists(f"/proc/{number}"):
                continue
            folder = os.path.join(own, entry)
            with contextlib.suppress(OSError):
                for game in os.listdir(folder):
                    if game.startswith("left-"):  # (its pages first: see GameGroup.close)
                        _release(os.path.join(folder, game))
                    elif game.startswith("game-"):
                        with contextlib.suppress(OSError):
                            os.rmdir(os.path.join(folder, game))
                os.rmdir(folder)


def _inherit_cpuset(parent: str, child: str) -> None:
    """A v1 cpuset group takes no process until its CPUs and memory nodes are set."""
    for what in ("cpuset.cpus", "cpuset.mems"):
        with open(os.path.join(child, what)) as f:
            if f.read().strip():
                continue
        with open(os.path.join(parent, what)) as f:
            value = f.read().strip()
        _write(os.path.join(child, what), value)


def _write(path: str, value: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def available() -> dict[str, str]:
    """The controllers this process can give a game a group of (name -> where), made lazily."""
    return dict(_bases(os.getpid()))


class GameGroup:
    """One game's group in each controller there is: made with its limits, filled, then removed."""

    def __init__(self, memory: int, cpus: set[int] | None):
        self.folders: dict[str, str] = {}
        number = next(_COUNT)
        bases = available()
        if "memory" in bases:
            empty_left(os.path.dirname(bases["memory"]))
        for name, base in bases.items():
            folder = os.path.join(base, f"game-{number}")
            try:
                os.mkdir(folder)
            except FileExistsError:
                pass
            except OSError:
                self.close()
                raise  # (not a game without its limits where the machine gives them)
            self.folders[name] = folder
            try:
                if name == "memory":
                    _write(os.path.join(folder, "memory.limit_in_bytes"), str(memory))
                    with contextlib.suppress(OSError):  # with swap accounting: swap counts too
                        _write(os.path.join(folder, "memory.memsw.limit_in_bytes"), str(memory))
                else:
                    _inherit_cpuset(base, folder)
                    if cpus:
                        _write(os.path.join(folder, "cpuset.cpus"), _cpu_list(cpus))
            except OSError:
                self.close()
                raise

    def set_cpus(self, cpus: set[int]) -> None:
        folder = self.folders.get("cpuset")
        if folder is not None and cpus:
            _write(os.path.join(folder, "cpuset.cpus"), _cpu_list(cpus))

    def add(self, pid: int) -> None:
        """Put process `pid` (and the children it starts from now on) in the group."""
        for folder in self.folders.values():
            _write(os.path.join(folder, "cgroup.procs"), str(pid))

    def enter(self) -> None:
        """Put the calling process in the group (a child between fork and exec)."""
        self.add(0)

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the game at its memory limit."""
        folder = self.folders.get("memory")
        if folder is None:
            return False
        with contextlib.suppress(OSError), open(os.path.join(folder, "memory.oom_control")) as f:
            for line in f:
                key, _, value = line.partition(" ")
                if key == "oom_kill" and value.strip() != "0":
                    return True
        with contextlib.suppress(OSError, ValueError), open(os.path.join(folder, "memory.failcnt")) as f:
            return int(f.read()) > 0 and self._peak_at_limit(folder)
        return False

    @staticmethod
    def _peak_at_limit(folder: str) -> bool:
        with open(os.path.join(folder, "memory.max_usage_in_bytes")) as f:
            peak = int(f.read())
        with open(os.path.join(folder, "memory.limit_in_bytes")) as f:
            return peak >= int(f.read()) - (1 << 20)

    def pids(self) -> list[int]:
        out: set[int] = set()
        for folder in self.folders.values():
            with contextlib.suppress(OSError), open(os.path.join(folder, "cgroup.procs")) as f:
                out |= {int(x) for x in f.read().split()}
        return sorted(out)

    def close(self) -> None:
        """Kill whatever is left in the group, empty it of the file pages and names its game
        brought into the kernel's caches, then remove it."""
        deadline = time.monotonic() + 2
        memory = self.folders.get("memory")
        if memory is not None:
            while left := self.pids():
                for pid in left:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
                if time.monotonic() > deadline:
                    break
                time.sleep(0.002)
            else:
                # A page (or a looked-up name) the game brought into a cache is charged to its
                # group. Left cached, it would tell a later game, which times its own read of it,
                # that this game read it: a bit for each place, enough to pass on the treasure's
                # tile. Emptied, the caches hold what they held before the game (a game cannot
                # drop what it did not bring: `posix_fadvise` is refused, and its group's limit
                # reclaims its own).
                with contextlib.suppress(OSError):
                    _write(os.path.join(memory, "memory.force_empty"), "0")
                # Pages that another process pins (a game running at the same time: `mlock`, or
                # `splice` and `vmsplice` into a pipe, which hold a reference) stay, charged here:
                # removed, this group would keep them cached past every later game, a pattern
                # read back by a game that comes after both. It is kept, renamed `left-N`, and
                # emptied again before every later game's group is made, by any worker
                # (`empty_left`), until it holds none.
                if _cached(memory):
                    with contextlib.suppress(OSError):
                        kept = os.path.join(os.path.dirname(memory), "left-" + os.path.basename(memory))
                        os.rename(memory, kept)
                        del self.folders["memory"]
        for folder in list(self.folders.values()):
            while True:
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    for pid in self.pids():
                        with contextlib.suppress(OSError):
                            os.kill(pid, signal.SIGKILL)
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.002)
        self.folders.clear()


def _cached(folder: str) -> bool:
    """Whether a memory group still holds pages: its usage past its kernel memory (which its
    emptying leaves, and which the next game cannot time). Read from the page counters, which
    are exact: memory.stat's figures are flushed lazily (they read 0 with 512 KiB of a game's
    pages still charged)."""
    try:
        with open(os.path.join(folder, "memory.usage_in_bytes")) as f:
            usage = int(f.read())
        with open(os.path.join(folder, "memory.kmem.usage_in_bytes")) as f:
            kernel = int(f.read())
    except (OSError, ValueError):
        return False
    return usage > kernel


def empty_left(own: str) -> None:
    """Empty the memory groups that ended still holding pages (`left-N`, kept by `GameGroup.close`)
    under every referee process's folder in `own`, and remove those now empty: a page pinned
    while its game ended is released once the pinning game ends, and emptied here before the
    next game anywhere under `own` is placed (a worker's games run one after another)."""
    with contextlib.suppress(OSError):
        for entry in os.listdir(own):
            if not entry.startswith("treasure-"):
                continue
            base = os.path.join(own, entry)
            with contextlib.suppress(OSError):
                for left in os.listdir(base):
                    if left.startswith("left-"):
                        _release(os.path.join(base, left))


def _release(folder: str) -> None:
    """Empty a kept memory group (`left-N`) again, and remove it once it holds no page."""
    with contextlib.suppress(OSError):
        _write(os.path.join(folder, "memory.force_empty"), "0")
        if not _cached(folder):
            os.rmdir(folder)


def _cpu_list(cpus: set[int]) -> str:
    return ",".join(str(c) for c in sorted(cpus))


def remove_bases() -> None:
    """This process's own folders, once its games' groups are gone (at exit)."""
    for base in _bases(os.getpid()).values():
        with contextlib.suppress(OSError):
            for entry in os.listdir(base):
                if entry.startswith("left-"):  # removed once emptied; else a later run's `_sweep` does
                    _release(os.path.join(base, entry))
                elif entry.startswith("game-"):
                    with contextlib.suppress(OSError):
                        os.rmdir(os.path.join(base, entry))
            os.rmdir(base)
    _bases.cache_clear()  # made again at the next game
