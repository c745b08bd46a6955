"""Without a memory group, the referee counts a game's memory and ends it past `--agent-memory`.

Where the machine gives no memory control group, each process of a game is held to its address
space, but the game is not: five children of 150 MiB each held 750 MiB under a 512 MiB limit
(and memfd files, no address space at all, until the seccomp filter refused `memfd_create`). The
referee now counts, while it waits for the game's answer, the resident pages of every process of
the game and the memfd files they hold (sandbox/game_memory.py), through both ways a sandboxed
game is launched and at `process` level.
"""

from __future__ import annotations

import errno
import textwrap
import uuid

import numpy as np
import pytest
from helpers import without_control_groups

import treasure_cli
from treasure_cli.play.games import play_game
from treasure_cli.sandbox.game_memory import held
from treasure_cli.sandbox.levels import AgentLimits

TOKEN = "spread_" + uuid.uuid4().hex[:12]
MIB = 1 << 20
LIMITS = AgentLimits(memory=512 * MIB)

SPREADER = textwrap.dedent('''\
    import os
    import signal
    import sys
    import time

    from treasure_cli import LargeScan

    MIB = 1 << 20


    class Spreader:
        """Five children of 150 MiB each (under each one's address space); memfd files first, refused."""

        def __init__(self):
            try:
                os.close(os.memfd_create("hoard"))
                print("memfd made", file=sys.stderr, flush=True)
            except OSError as exc:
                print(f"memfd refused {exc.errno}", file=sys.stderr, flush=True)
            for _ in range(5):
                child = os.fork()
                if child == 0:
                    block = bytearray(150 * MIB)  # zeroed, so every page is touched: resident
                    os.kill(os.getpid(), signal.SIGSTOP)  # filled: its parent sees it stop (no pipe in a Python game)
                    time.sleep(120)
                    os._exit(0)
                os.waitpid(child, os.WUNTRACED)  # held: a loaded machine does not let the game end before its children fill
                os.kill(child, signal.SIGCONT)
            print("spread", file=sys.stderr, flush=True)

        def act(self, obs):
            time.sleep(0.1)
            return LargeScan()
''')


@pytest.fixture(params=["warm host", "a sandbox per game", "process"])
def route(request, monkeypatch):
    """The machine without control groups, each way a game is launched."""
    yield from without_control_groups(monkeypatch, request.param)


def test_a_game_spread_over_processes_is_ended_at_its_memory_limit(tmp_path, route):
    file = tmp_path / f"{TOKEN}.py"
    file.write_text(SPREADER)
    island = treasure_cli.generate_island(12, 10, rng=np.random.default_rng(9))
    record, _ = play_game(island, f"{file}:Spreader", 1, map_name="m",
                          isolation="process" if route == "process" else "sandbox",
                          max_turns=60, limits=LIMITS, game_timeout=60)
    assert record.failed and record.reason == "agent-died", (record.reason, record.error)
    assert "past its game's memory limit (512 MiB for all its processes" in record.error, record.error
    assert f"memfd refused {errno.ENOSYS}" in record.output, record.output
    said = int(record.error.split("processes held ")[1].split(" MiB")[0])
    assert 512 <= said < 1024, record.error  # (MiB rounded down) counted every 20 ms: ended soon after the limit


def test_held_counts_a_memfd_file_once_whatever_its_descriptors():
    import os

    chunk = b"y" * MIB
    before = held([os.getpid()])
    fd = os.memfd_create("counted")
    twice = os.dup(fd)
    try:
        for _ in range(8):
            os.write(fd, chunk)
        grown = held([os.getpid()]) - before
    finally:
        os.close(twice)
        os.close(fd)
    assert 8 * MIB <= grown < 12 * MIB, grown
