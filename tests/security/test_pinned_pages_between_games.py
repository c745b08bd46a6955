"""Pages a game brought into the page cache are emptied even when a game beside it pinned them.

A game's memory group is emptied of the file pages its game brought in when the game ends
(`memory.force_empty`), so a later game timing its own reads finds nothing. The fourth round of
attacks (docs/security.md) pinned those pages from a game running at the same time (with
`--jobs 2` a group plays in both workers): `mlock` of a mapping, or `splice` of the file into a
pipe, hold a page that reclaim cannot free. The emptying left them cached, charged to a group
that was then removed; once the pinning game ended too, they stayed cached past every later
game: 9 of the 10 pages of a pattern were still cached after both games' groups were gone.

A group that still holds pages after its emptying is now kept (`left-N`) and emptied again
before any later game's group is made, until it holds none. This test plays the three games
as processes placed in their groups, as the referee places a game's processes.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import subprocess
import sys
import textwrap

import pytest

from treasure_cli.sandbox import cgroups

PATTERN = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1]
GAP = 256 << 10  # bytes between two places
MIB = 1 << 20
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


@pytest.fixture
def memory_groups(monkeypatch):
    monkeypatch.delenv("TREASURE_NO_CGROUPS", raising=False)
    cgroups._bases.cache_clear()
    if "memory" not in cgroups.available():
        pytest.skip("this machine gives no memory control group (treasure doctor)")
    yield
    cgroups.remove_bases()


def _resident(path: str) -> list[bool]:
    """Which of the pattern's places are in the page cache (mincore: the test owns the file)."""
    size = os.path.getsize(path)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ) as m:
        vector = ctypes.create_string_buffer(size // mmap.PAGESIZE)
        assert _libc.mincore(_address(m), size, vector) == 0, ctypes.get_errno()
        return [bool(vector.raw[k * GAP // mmap.PAGESIZE] & 1) for k in range(len(PATTERN))]


def _address(m: mmap.mmap) -> int:
    import numpy as np

    return int(np.frombuffer(m, dtype=np.uint8).ctypes.data)


def _in_group(group: cgroups.GameGroup, code: str) -> subprocess.Popen:
    """A process placed in `group` (as a game's, before any of its work) that runs `code`, which
    writes "x" on its standard output once done (a process started, not forked: the test's is
    threaded)."""
    proc = subprocess.Popen([sys.executable, "-c", "import sys\nsys.stdin.read(1)\n" + code],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    group.add(proc.pid)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"g")
    proc.stdin.flush()
    assert proc.stdout.read(1) == b"x"
    return proc


def _leave(path: str) -> str:
    return textwrap.dedent(f"""\
        import os
        with open({path!r}, "rb") as f:
            for k, bit in enumerate({PATTERN!r}):
                if bit:
                    os.pread(f.fileno(), 1, k * {GAP})
        os.write(1, b"x")
    """)


def _pin(path: str, how: str) -> str:
    pin = textwrap.dedent(f"""\
        import ctypes, mmap, os, time
        import numpy as np
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mlock.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        fd = os.open({path!r}, os.O_RDONLY)
        held = []
    """)
    if how == "mlock":
        pin += textwrap.dedent(f"""\
            m = mmap.mmap(fd, os.path.getsize({path!r}), prot=mmap.PROT_READ)
            base = int(np.frombuffer(m, dtype=np.uint8).ctypes.data)
            for k, bit in enumerate({PATTERN!r}):
                if bit and libc.mlock(base + k * {GAP}, mmap.PAGESIZE) != 0:
                    raise OSError(ctypes.get_errno(), "mlock")
            held.append(m)
        """)
    else:  # splice: each page referenced by a pipe's buffer
        pin += textwrap.dedent(f"""\
            for k, bit in enumerate({PATTERN!r}):
                if bit:
                    r, pw = os.pipe()
                    os.splice(fd, pw, 1, offset_src=k * {GAP})
                    held += [r, pw]
        """)
    return pin + 'os.write(1, b"x")\ntime.sleep(120)\n'


@pytest.mark.parametrize("how", ["mlock", "splice"])
def test_pages_pinned_by_a_game_beside_it_are_emptied_before_a_later_game(tmp_path, memory_groups, how):
    if how == "splice" and not hasattr(os, "splice"):
        pytest.skip("os.splice: Python 3.10")
    probe = tmp_path / "probe.bin"
    probe.write_bytes(os.urandom(len(PATTERN) * GAP))
    fd = os.open(probe, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    assert not any(_resident(str(probe))), _resident(str(probe))

    first, beside = cgroups.GameGroup(256 * MIB, None), cgroups.GameGroup(256 * MIB, None)
    _in_group(first, _leave(str(probe))).wait()
    assert _resident(str(probe)) == [bool(b) for b in PATTERN]
    pinner = _in_group(beside, _pin(str(probe), how))
    try:
        first.close()  # the first game ends while the game beside it pins its pages
    finally:
        pinner.kill()
        pinner.wait()
        beside.close()
    later = cgroups.GameGroup(256 * MIB, None)  # a later game's group, made before its code runs
    try:
        assert not any(_resident(str(probe))), _resident(str(probe))
    finally:
        later.close()
