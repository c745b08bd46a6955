"""A game cannot leave bits in the kernel's caches of files for a later game to time.

Every game sees the same read-only files (`/usr`, the interpreter's packages). A game can bring
the pages of a file nobody reads into the kernel's page cache (by reading them), and a later game
can time its own reads of the same places: a few microseconds where the first game read, a disk
read where it did not. Measured in the third round of attacks, 16 bits of 16 went from one
group's game to another group's in another run, enough for the treasure's tile.

Where the referee gives each game a memory control group, a page a game brought in is charged to
that group, and the group is emptied of its pages when the game ends (sandbox/cgroups.py): the
cache holds what it held before the game. This agent leaves a 16-bit pattern in a file of the
installed package, placed there by the test with its pages dropped, and times the same places
in every game, and does the same with names no file has (the cache of names a lookup did not
find); no game may read the pattern back, and after the run the pages are not cached.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import textwrap
import uuid
from pathlib import Path

import pytest
from helpers import cheat_beside_logic, hidden_maps

import treasure_cli
from treasure_cli.sandbox import cgroups

NAME = "pages_" + uuid.uuid4().hex[:10]  # no other test's agent has this name
PATTERN = [int(c) for c in format(0xA5C3, "016b")]
GAMES = 8  # places that count the games before this one, and a region of PATTERN's places for each
GAP = 64 << 10  # bytes between two places (a one-byte read brings its own page only)
PLACES = GAMES + GAMES * len(PATTERN) + 1  # the last one: a byte this game reads twice, to time a cached read

CHEAT = textwrap.dedent(f'''\
    import os
    import statistics
    import sys
    import time

    import treasure_cli
    from treasure_cli.agents.planner import PlanningAgent

    PATTERN, GAMES, GAP, PLACES = {PATTERN!r}, {GAMES}, {GAP}, {PLACES}
    HERE = os.path.dirname(treasure_cli.__file__)
    PROBE = os.path.join(HERE, "{NAME}.bin")


    def took(fd, place):
        began = time.perf_counter_ns()
        os.pread(fd, 1, place * GAP)
        return time.perf_counter_ns() - began


    def looked_up(name):
        began = time.perf_counter_ns()
        try:
            os.stat(name)
        except FileNotFoundError:
            pass
        return time.perf_counter_ns() - began


    def names(what):  # names that no file has, in a folder every game sees
        return [f"{{HERE}}/{NAME}-{{what}}-{{j}}" for j in range(25)]


    class Agent:
        """Counts the games before it (the first counting place not cached is its number), reads
        the pattern the game before it left in that game's region, and leaves its own."""

        def __init__(self):
            fd = os.open(PROBE, os.O_RDONLY)
            took(fd, PLACES - 1)
            hot = statistics.median(took(fd, PLACES - 1) for _ in range(5))  # a cached byte, here and now
            cached = lambda place: int(took(fd, place) < max(10_000, 4 * hot))
            number = next((k for k in range(GAMES) if not cached(k)), GAMES - 1)
            before = GAMES + (number - 1) * len(PATTERN)
            seen = [cached(before + i) for i in range(len(PATTERN))] if number else []
            self.saw = seen == PATTERN
            mine = GAMES + number * len(PATTERN)
            for i, bit in enumerate(PATTERN):
                if bit:
                    os.pread(fd, 1, (mine + i) * GAP)
            print(f"page-attack: game number {{number}}, read", "the pattern" if self.saw else "nothing",
                  seen, file=sys.stderr, flush=True)
            # The same through the kernel's cache of names a lookup did not find (a negative
            # dentry): a name looked up before answers in about half the time. A name's first
            # lookup is the only cold one, so "cold" is the quickest of three fresh sets: one
            # measured while the machine was busy would take every name for a known one.
            fresh = [names(f"fresh{{r}}-{{os.getpid()}}{{time.time_ns()}}") for r in range(3)]
            cold = min(statistics.median(looked_up(n) for n in one) for one in fresh)
            warm = statistics.median(looked_up(n) for n in fresh[-1])
            known = lambda what: int(statistics.median(looked_up(n) for n in names(what)) < (cold + warm) / 2)
            number = next((k for k in range(GAMES) if not known(f"count{{k}}")), GAMES - 1)
            seen = [known(f"game{{number - 1}}bit{{i}}") for i in range(len(PATTERN))] if number else []
            self.saw = self.saw or seen == PATTERN
            for i, bit in enumerate(PATTERN):
                if bit:
                    for n in names(f"game{{number}}bit{{i}}"):
                        looked_up(n)
            print(f"name-attack: game number {{number}}, read", "the pattern" if seen == PATTERN else "nothing",
                  seen, file=sys.stderr, flush=True)
            self.fair = PlanningAgent()

        def act(self, obs):
            if self.saw:
                raise RuntimeError("page-attack: an earlier game left its pattern")
            return self.fair.act(obs)
''')


def resident(path: Path) -> list[bool]:
    """Which pages of `path` are in the page cache (mincore on a mapping of it), without reading them."""
    size = path.stat().st_size
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    vec = ctypes.create_string_buffer((size + mmap.PAGESIZE - 1) // mmap.PAGESIZE)
    fd = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        try:
            if libc.mincore(address, size, vec) != 0:
                raise OSError(ctypes.get_errno(), "mincore")
        finally:
            libc.munmap(address, size)
    finally:
        os.close(fd)
    return [bool(b & 1) for b in vec.raw]


@pytest.fixture
def probe():
    """A file of the installed package (shown read-only to every game) with none of its pages cached."""
    path = Path(os.path.dirname(treasure_cli.__file__)) / f"{NAME}.bin"
    with open(path, "wb") as f:
        f.write(os.urandom(PLACES * GAP))
        f.flush()
        os.fsync(f.fileno())
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
        assert not any(resident(path)), "the probe's pages could not be dropped before the games"
        yield path
    finally:
        path.unlink()


def test_no_game_times_the_pages_an_earlier_one_read(tmp_path, probe):
    assert "memory" in cgroups.available(), "this test needs the per-game memory groups (root, cgroup v1)"
    maps, group = hidden_maps(tmp_path, 90), tmp_path / "students" / NAME
    group.mkdir(parents=True)
    (group / "agent.py").write_text(CHEAT)
    cheat, fair = cheat_beside_logic(group.parent, maps, tmp_path / "results.sqlite", NAME)
    for r in cheat:
        assert "page-attack: game number 0, read nothing" in r.output, (r.outcome, r.error, r.output)
        assert "name-attack: game number" in r.output and "read nothing" in r.output.split("name-attack")[1], (
            r.outcome, r.error, r.output)
    # A quick lookup on a busy machine can pass for a known name, so one game may count itself
    # later than first (and then read nothing: noise cannot make the pattern). With the names'
    # cache kept between games, the games would count 0, 1, 2, ...: only one would say 0.
    firsts = sum("name-attack: game number 0," in r.output for r in cheat)
    assert firsts >= len(cheat) - 2, [r.output for r in cheat]
    assert {(r.map_digest, r.seed): (r.outcome, r.turns) for r in cheat} == fair
    places = resident(probe)[:: GAP // mmap.PAGESIZE][:-1]
    assert not any(places), f"pages the games read are still cached: {[i for i, p in enumerate(places) if p]}"
