"""What a game's control groups cost the referee: made, a process placed, killed, removed.

    .venv/bin/python benchmarks/cgroup_cost.py [--games 200]

For each game a process (`sleep 60`) is started outside the timed part, then the timed part
is what the referee does for a game: make its groups with their limits, write the process
into them, and at the end kill what they hold and remove them.

* `v1`: `cgroups.GameGroup` as the referee uses it, where this machine's cgroup v1 memory
  (and cpuset) hierarchies are writable (root); skipped otherwise.
* `v2`: `cgroup2.Group` under a parent made for this run in this process's cgroup v2 group
  (removed after). On a machine whose v2 tree offers no memory controller (memory bound to
  v1), no memory file is written: that row is the tree's mechanics alone (mkdir, cgroup.procs,
  cgroup.kill, the wait for `populated 0`, rmdir), and says so.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import time
import uuid
from collections.abc import Callable

from treasure_cli.sandbox import cgroup2, cgroups


def _timed(games: int, one: Callable[[int], None]) -> list[float]:
    took = []
    for _ in range(games):
        game = subprocess.Popen(["sleep", "60"])
        started = time.perf_counter()
        one(game.pid)
        took.append(time.perf_counter() - started)
        game.wait()
    return took


def _v1(pid: int) -> None:
    group = cgroups.GameGroup(64 << 20, set(os.sched_getaffinity(0)))
    group.add(pid)
    group.close()


def _report(name: str, took: list[float], note: str = "") -> None:
    took.sort()
    print(f"{name}: median {statistics.median(took) * 1000:.2f} ms, p90 {took[len(took) * 9 // 10] * 1000:.2f} ms, "
          f"{len(took)} games{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    if cgroups.choice().kind == "v1":
        _report("v1 (memory and cpuset groups)", _timed(args.games, _v1))
    else:
        print(f"v1: not here ({cgroups.choice().why})")
    cgroups.remove_bases()
    own, why = cgroup2.own_folder()
    if own is None:
        print(f"v2: not here ({why})")
        return
    parent = os.path.join(own, f"treasure-bench-{uuid.uuid4().hex[:8]}")
    try:
        os.mkdir(parent)
    except OSError as exc:
        print(f"v2: cannot make a group in {own} ({exc})")
        return
    try:
        with contextlib.suppress(OSError):  # (where this process's group hands memory on: a real v2 tree)
            handed = cgroup2.FILES.read(os.path.join(own, "cgroup.subtree_control")).split()
            cgroup2.FILES.write(os.path.join(parent, "cgroup.subtree_control"),
                                " ".join(f"+{name}" for name in cgroup2.WANTED if name in handed))
        base = cgroup2.make_base(parent, os.getpid())
        numbers = iter(range(1, 1 << 30))

        def v2(pid: int) -> None:
            group = cgroup2.Group(base, next(numbers), 64 << 20, None)
            group.add(pid)
            group.close()

        note = "" if "memory" in base.controllers else " (no memory controller in this tree: its mechanics alone)"
        _report("v2", _timed(args.games, v2), note)
        cgroup2.remove_base(base)
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(parent)


if __name__ == "__main__":
    main()
