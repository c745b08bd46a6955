"""What a game's processes hold in memory, counted from outside (Linux's /proc), for where the
machine gives no memory control group (sandbox/cgroups.py).

There, a game is held by the limits of each of its processes, and those do not add up to a
limit of the game: 64 processes may each hold `--agent-memory` of address space, and each
32 memfd files that no address space counts. The referee counts, while it waits for the
game's answer, every `WATCH_SECONDS`, what the game's processes hold: their resident pages
and the memfd files they hold open; past `--agent-memory` the game is ended, as a memory
group would end it. What a game can take between two counts, and what no process holds
(memfd files in flight on a socket, its /tmp and /dev/shm), is docs/security.md's bound.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

COUNTS = sys.platform.startswith("linux")  # /proc, where a game's memory can be counted from outside
WATCH_SECONDS = 0.02  # between two counts while the referee waits for the game
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def held(pids: Iterable[int]) -> int:
    """Bytes held by the processes `pids`: their resident pages, plus the pages of each memfd
    file they hold open, counted once (a process that is gone counts nothing)."""
    total = 0
    files: set[tuple[int, int]] = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * _PAGE
            fds = os.listdir(f"/proc/{pid}/fd")
        except (OSError, ValueError, IndexError):
            continue
        for fd in fds:
            path = f"/proc/{pid}/fd/{fd}"
            try:
                if not os.readlink(path).startswith("/memfd:"):
                    continue
                st = os.stat(path)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) not in files:
                files.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total
