"""A control group for each game's processes (Linux), where this machine lets the referee make one.

A game's processes (a warm host's fork for the game and all it starts, or a process
started for the one game) are placed in a group of their own before any of the agent's
code runs, under the group the referee itself runs in (so every limit above it still
holds), and the group is removed when the game ends:

* `memory`: the whole game, its children, its `memfd_create` and tmpfs pages and its
  pipes' buffers included, is held to `--agent-memory` (v1's `memory.limit_in_bytes`,
  v2's `memory.max`); past it the kernel kills a process of the game (v2: all of it),
  never one outside it. The per-process address-space limit does not count pages
  that are not mapped (a memfd's), nor add up across processes. When the game ends, the
  group is emptied (v1's `memory.force_empty`, v2's `memory.reclaim`) of the file pages and the names (dentries) its
  game brought into the kernel's caches: a later game timing its own reads would find them.
* `cpuset`: the game's CPUs are the referee's choice (`cpuset.cpus`); a process inside
  may call sched_setaffinity, but only within them.

Which groups, chosen once per referee process (`choice`):

* `v1`: cgroup v1's `memory` hierarchy is writable by this program (root, on many CI
  machines and containers): a group in each of its two hierarchies, as above;
* `v2`: it is not, but the cgroup v2 tree hands this program its memory controller (the
  tree's root, or a delegated group of the referee's own: sandbox/cgroup2.py says how):
  one group holding both controllers (cpuset where the tree offers it), the same limits;
* `count`: neither (not root, a container that hides them, or a referee sharing its v2
  group with other processes): nothing is placed, the referee counts a game's memory
  itself (sandbox/game_memory.py), and `treasure doctor` says why.
`TREASURE_NO_CGROUPS=1` gives the count whatever the machine has.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass, field
from typing import Literal

from treasure_cli.sandbox import cgroup2

CONTROLLERS = ("memory", "cpuset")
_COUNT = itertools.count(1)
PROC = "/proc/self"  # where this process's mountinfo and cgroup files are read (a fake tree's in tests)


def _own_groups(proc: str = PROC) -> dict[str, str]:
    """Controller -> the folder of this process's own group in its cgroup v1 hierarchy."""
    mounts: dict[str, str] = {}
    with contextlib.suppress(OSError), open(f"{proc}/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(tail) >= 3 and tail[0] == "cgroup":
                for option in tail[2].split(","):
                    if option in CONTROLLERS:
                        mounts.setdefault(option, fields[4])
    found: dict[str, str] = {}
    with contextlib.suppress(OSError), open(f"{proc}/cgroup") as f:
        for line in f:
            _, names, path = line.rstrip("\n").split(":", 2)
            for name in names.split(","):
                if name in mounts:
                    found[name] = mounts[name].rstrip("/") + path
    return found


@dataclass
class Choice:
    """The groups this referee process gives its games: `kind` is "v1", "v2" or "count"."""

    kind: Literal["v1", "v2", "count"] = "count"
    v1: dict[str, str] = field(default_factory=dict)  # controller -> its v1 folder `treasure-<pid>`
    v2: cgroup2.Base | None = None                    # the v2 folder, where v1 has no memory
    why: str = ""                                     # where it is, or why neither v1 nor v2


@functools.cache
def _bases(pid: int) -> Choice:
    """This process's groups (`choose`), made once per process (a pool's worker makes its own)."""
    if os.environ.get("TREASURE_NO_CGROUPS"):  # (tests and doctor: the machine without them)
        return Choice(why="TREASURE_NO_CGROUPS is set")
    return choose(pid)


def choose(pid: int, proc: str = PROC, files: cgroup2.Files = cgroup2.FILES) -> Choice:
    """cgroup v1 where its memory hierarchy is writable, else cgroup v2 where the tree hands
    this process a memory controller, else the count (with why neither)."""
    choice = Choice()
    whys: list[str] = []
    own_groups = _own_groups(proc)
    for name, own in own_groups.items():
        _sweep(own)
        base = os.path.join(own, f"treasure-{pid}")
        try:
            os.makedirs(base, exist_ok=True)
            if name == "cpuset":
                _inherit_cpuset(own, base)
            choice.v1[name] = base
        except OSError as exc:
            if name == "memory":
                whys.append(f"cgroup v1: {own} is not writable ({exc.strerror or exc})")
            continue
    if "memory" in choice.v1:
        choice.kind, choice.why = "v1", f"cgroup v1, under {os.path.dirname(choice.v1['memory'])}"
        return choice
    if "memory" not in own_groups:
        whys.append("cgroup v1: no memory hierarchy is mounted")
    own_v2, why = cgroup2.own_folder(f"{proc}/mountinfo", f"{proc}/cgroup")
    parent = None
    if own_v2 is not None:
        parent, why = cgroup2.delegated_parent(own_v2, pid, files)
    if parent is not None:
        try:
            made = cgroup2.make_base(parent, pid, files)
        except OSError as exc:
            why = f"cannot make {parent}/{cgroup2.BASE}{pid}: {exc.strerror or exc}"
        else:
            if "memory" in made.controllers:
                choice.kind, choice.v2 = "v2", made
                choice.why = f"cgroup v2, under {parent}"
                return choice
            cgroup2.remove_base(made)
            why = f"{parent} hands on no memory controller"
    whys.append(f"cgroup v2: {why}")
    choice.why = "; ".join(whys)
    return choice


def settle() -> None:
    """Choose this process's groups now: before a pool's workers start, so that where the
    referee's processes must move into a cgroup v2 leaf of their own, the workers start there.
    Where cgroup v1's memory hierarchy is writable (each worker takes it), nothing is made here."""
    if os.environ.get("TREASURE_NO_CGROUPS"):
        return
    memory = _own_groups().get("memory")
    if memory is None or not os.access(memory, os.W_OK):
        available()


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
    bases = _bases(os.getpid())
    found = dict(bases.v1)
    if bases.v2 is not None:
        for name in bases.v2.controllers:  # (a writable v1 cpuset stays the games' cpuset)
            found.setdefault(name, bases.v2.folder)
    return found


def choice() -> Choice:
    """Which groups this process gives its games, and why (`treasure doctor`)."""
    return _bases(os.getpid())


class GameGroup:
    """One game's group in each controller there is: made with its limits, filled, then removed."""

    def __init__(self, memory: int, cpus: set[int] | None):
        self._v1: dict[str, str] = {}        # controller -> the game's cgroup v1 folder
        self._v2: cgroup2.Group | None = None  # or its one cgroup v2 group
        self._oom: tuple[int, int] | None = None  # v1: (eventfd, memory.oom_control) of `oom_events`
        number = next(_COUNT)
        chosen = _bases(os.getpid())
        bases = chosen.v1
        if "memory" in bases:
            empty_left(os.path.dirname(bases["memory"]))
        if chosen.v2 is not None:
            try:
                self._v2 = cgroup2.Group(chosen.v2, number, memory, None if "cpuset" in bases else cpus)
            except OSError:
                self.close()
                raise  # (not a game without its limits where the machine gives them)
        for name, base in bases.items():
            folder = os.path.join(base, f"game-{number}")
            try:
                os.mkdir(folder)
            except FileExistsError:
                pass
            except OSError:
                self.close()
                raise  # (not a game without its limits where the machine gives them)
            self._v1[name] = folder
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

    @property
    def folders(self) -> dict[str, str]:
        """Controller -> the game's folder of it (cgroup v2: one folder for both)."""
        found = dict(self._v1)
        if self._v2 is not None:
            for name in self._v2.base.controllers:
                found.setdefault(name, self._v2.folder)
        return found

    def set_cpus(self, cpus: set[int]) -> None:
        folder = self._v1.get("cpuset")
        if folder is not None and cpus:
            _write(os.path.join(folder, "cpuset.cpus"), _cpu_list(cpus))
        elif self._v2 is not None:
            self._v2.set_cpus(cpus)

    def add(self, pid: int) -> None:
        """Put process `pid` (and the children it starts from now on) in the group."""
        if self._v2 is not None:
            self._v2.add(pid)
        for folder in self._v1.values():
            _write(os.path.join(folder, "cgroup.procs"), str(pid))

    def enter(self) -> None:
        """Put the calling process in the group (a child between fork and exec)."""
        self.add(0)

    def oom_events(self) -> int | None:
        """A descriptor that turns readable when the kernel kills a process of the game at its
        memory limit (cgroup v1's notification on `memory.oom_control`; None where there is none).

        v2 ends the whole game then (`memory.oom.group`); v1 ends only the process it picks, often
        a child holding the most, and the agent's own process would play on, or wait for that child
        until the game's time limit. Told here, the referee ends the whole game with the memory
        verdict, as v2 does. The descriptor is the referee's own (close-on-exec, made after the
        game's processes started or before any of its code ran: `process.AgentProcess`)."""
        folder = self._v1.get("memory")
        if folder is None or self._v2 is not None:
            return None
        if self._oom is None:
            events = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
            try:
                control = os.open(os.path.join(folder, "memory.oom_control"), os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                os.close(events)
                return None
            try:
                _write(os.path.join(folder, "cgroup.event_control"), f"{events} {control}")
            except OSError:
                os.close(events)
                os.close(control)
                return None
            self._oom = (events, control)
        return self._oom[0]

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the game at its memory limit."""
        if self._v2 is not None and "memory" in self._v2.base.controllers:
            return self._v2.oom_killed()
        folder = self._v1.get("memory")
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
        out: set[int] = set(self._v2.pids() if self._v2 is not None else ())
        for folder in self._v1.values():
            with contextlib.suppress(OSError), open(os.path.join(folder, "cgroup.procs")) as f:
                out |= {int(x) for x in f.read().split()}
        return sorted(out)

    def close(self) -> None:
        """Kill whatever is left in the group, empty it of the file pages and names its game
        brought into the kernel's caches, then remove it."""
        deadline = time.monotonic() + 2
        if self._oom is not None:
            for fd in self._oom:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._oom = None
        if self._v2 is not None:  # (its own way: sandbox/cgroup2.py)
            self._v2.close()
            self._v2 = None
        memory = self._v1.get("memory")
        if memory is not None:
            if cgroup2.ended(self.pids, lambda: bool(self.pids()), deadline):
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
                        del self._v1["memory"]
        for folder in list(self._v1.values()):
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
        self._v1.clear()


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
    chosen = _bases(os.getpid())
    if chosen.v2 is not None:
        cgroup2.remove_base(chosen.v2)
    for base in chosen.v1.values():
        with contextlib.suppress(OSError):
            for entry in os.listdir(base):
                if entry.startswith("left-"):  # removed once emptied; else a later run's `_sweep` does
                    _release(os.path.join(base, entry))
                elif entry.startswith("game-"):
                    with contextlib.suppress(OSError):
                        os.rmdir(os.path.join(base, entry))
            os.rmdir(base)
    _bases.cache_clear()  # made again at the next game
