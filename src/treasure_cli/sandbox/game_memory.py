"""What a game's processes hold in memory, counted from outside (Linux's /proc), for where the
machine gives no memory control group (sandbox/cgroups.py).

There, a game is held by the limits of each of its processes, and those do not add up to a
limit of the game: 64 processes may each hold `--agent-memory` of address space. The referee
counts, while it waits for the game's answer, every `WATCH_SECONDS`, what the game's processes
hold: their resident pages and the memfd files they hold open or map (memfd pages are no address
space; a game's seccomp filter refuses `memfd_create`, but a kernel may refuse the filter, and the
count does not rest on one layer); past `--agent-memory` the game is ended, as a memory group
would end it. What a game can take between two counts, and what no process holds
(descriptors in flight on a socket, its /tmp and /dev/shm), is docs/security.md's bound.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable

COUNTS = sys.platform.startswith("linux")  # /proc, where a game's memory can be counted from outside
WATCH_SECONDS = 0.02  # between two counts while the referee waits for the game
THOROUGH = 10         # every this many counts, each thread's descriptors and the memfd files mapped too
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def held(pids: Iterable[int], file_size: int = 16 << 20, thorough: bool = True) -> int:
    """Bytes held by the processes `pids`: their resident pages, plus the pages of each memfd
    file they hold open or mapped, counted once (a process that is gone counts nothing).

    Read so that a process cannot hide what it holds from its /proc files (the fourth round of
    attacks, docs/security.md): its resident pages from a live thread when its first thread
    has exited alone (its own files then read as nothing, its memory held by the others); the
    descriptors of every thread (a thread may have a table of its own: `unshare(CLONE_FILES)`);
    and the memfd files it maps with no descriptor left, each counted as `file_size` (the
    most a file of the game can hold, its RLIMIT_FSIZE) where its own size cannot be read
    (/proc/PID/map_files is the administrator's): mapped by one page, each held its whole file.
    Those two cost most (a process's map has hundreds of lines, a JVM has 20 threads): without
    `thorough`, only the first thread's descriptors are read, and no map (the referee reads all
    every `THOROUGH`th count: what they find is held, not taken for a moment)."""
    total = 0
    files: set[tuple[int, int]] = set()
    mapped: list[tuple[str, str, tuple[int, int]]] = []
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        resident = _resident(f"/proc/{pid}")
        live = f"/proc/{pid}"
        if not resident:  # its first thread gone alone: its memory and files are its live threads'
            for tid in tasks:
                if (got := _resident(f"/proc/{pid}/task/{tid}")) > resident:
                    resident, live = got, f"/proc/{pid}/task/{tid}"
        total += resident
        if thorough:
            mapped += [(live, where, key) for where, key in _memfd_maps(live)]
        for table in [f"/proc/{pid}/task/{tid}/fd" for tid in tasks] if thorough else [f"{live}/fd"]:
            total += _open_memfds(table, files)
    for live, where, key in mapped:
        if key in files:
            continue
        files.add(key)
        try:
            total += os.stat(f"{live}/map_files/{where}").st_blocks * 512
        except OSError:
            total += file_size
    return total


def _resident(folder: str) -> int:
    try:
        with open(f"{folder}/statm") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


_MEMFD_MAP = re.compile(r"^([0-9a-f]+-[0-9a-f]+) \S+ \S+ ([0-9a-f]+):([0-9a-f]+) (\d+) +/memfd:", re.M)


def _memfd_maps(folder: str) -> list[tuple[str, tuple[int, int]]]:
    """The memfd files mapped in a process: (its address range, (device, inode)) of each mapping."""
    try:
        with open(f"{folder}/maps", "rb") as f:
            data = f.read()
    except OSError:
        return []
    if b"/memfd:" not in data:
        return []
    text = data.decode(errors="replace")
    return [(m[1], (os.makedev(int(m[2], 16), int(m[3], 16)), int(m[4]))) for m in _MEMFD_MAP.finditer(text)]


def _open_memfds(folder: str, files: set[tuple[int, int]]) -> int:
    """The bytes of the memfd files open in one descriptor table not yet in `files` (then added)."""
    total = 0
    try:
        fds = os.listdir(folder)
    except OSError:
        return 0
    for fd in fds:
        path = f"{folder}/{fd}"
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
