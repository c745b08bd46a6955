"""Without a memory group, memory a game hides from the referee's count is counted anyway.

The fourth round of attacks (docs/security.md) read the count's sources, /proc/PID/statm and
/proc/PID/fd, and held memory that neither shows, each way under its process's limits:

* a child whose first thread exits alone (`SYS_exit`, not `exit_group`) while another of its
  threads lives on: the process's statm then reads 0 and its fd folder is empty, though its
  memory and files are all there;
* memfd files mapped by one page each, their descriptors closed: no descriptor is left to see,
  one page of address space holds a whole file, and the open-file limit does not bound them
  (10 files of 16 MiB held with 40 KiB mapped; the kernel's map count, 65,530, would);
* a thread with a descriptor table of its own (`unshare(CLONE_FILES)`), holding memfd files
  that /proc/PID/fd (the first thread's table) does not list.

Before the fix, the count saw none of it (0 MiB of a 200 MiB child, a process's 23 MiB of its
183 MiB) and a game hiding 528 MiB under a 512 MiB limit played on to its end.

Since the seccomp filter refuses `memfd_create` in a game, the two memfd tricks are refused
there (the game here checks that they are); the count still reads through them (the first test,
outside a game: `--agent-isolation none` has no filter), and the game hides its memory in
children whose first thread is gone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import platform
import subprocess
import sys
import textwrap
import time
import uuid

import numpy as np
import pytest
from helpers import without_control_groups

import treasure_cli
from treasure_cli.play.games import play_game
from treasure_cli.sandbox import process as agent_process
from treasure_cli.sandbox.game_memory import held
from treasure_cli.sandbox.levels import AgentLimits

MIB = 1 << 20
SYS_EXIT = {"x86_64": 60, "aarch64": 93}.get(platform.machine())
pytestmark = pytest.mark.skipif(SYS_EXIT is None or not hasattr(os, "memfd_create"), reason="Linux x86_64 or aarch64")

TRICKS = textwrap.dedent('''\
    import ctypes
    import os
    import signal
    import threading
    import time

    MIB = 1 << 20
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]


    def memfd(name):
        fd = os.memfd_create(name)
        os.write(fd, b"x" * (16 * MIB))
        return fd


    def first_thread_gone(sys_exit, mib):
        """A child holding `mib` MiB and a memfd file whose first thread exits alone."""
        child = os.fork()
        if child == 0:
            block = bytearray(mib * MIB)  # zeroed: every page resident
            try:
                held = memfd("gone")
            except OSError:
                pass  # refused in a game (the seccomp filter): the block alone is hidden
            threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
            os.kill(os.getpid(), signal.SIGSTOP)  # held: its parent sees it stop (no pipe in a Python game)
            libc.syscall(sys_exit, 0)  # this thread only: the others keep the process, its memory
            os._exit(0)
        os.waitpid(child, os.WUNTRACED)  # its memory held: a loaded machine does not let a game end before it
        os.kill(child, signal.SIGCONT)


    def mapped_and_closed(files):
        """`files` memfd files of 16 MiB, each mapped by one page, their descriptors closed."""
        for _ in range(files):
            fd = memfd("mapped")
            if libc.mmap(None, 4096, 1, 1, fd, 0) in (None, ctypes.c_void_p(-1).value):  # PROT_READ, MAP_SHARED
                raise OSError(ctypes.get_errno(), "mmap")
            os.close(fd)


    def private_table(files):
        """A thread with a descriptor table of its own holding `files` memfd files of 16 MiB."""
        ready, failed = threading.Event(), []

        def hold():
            try:
                if libc.unshare(0x400) != 0:  # CLONE_FILES
                    raise OSError(ctypes.get_errno(), "unshare")
                fds = [memfd("private") for _ in range(files)]
            except OSError as exc:
                failed.append(exc)
            ready.set()
            time.sleep(120)

        threading.Thread(target=hold, daemon=True).start()
        ready.wait(30)
        if failed:
            raise failed[0]
''')


def _child(trick: str, *args: int) -> subprocess.Popen:
    """A process that has played `trick` (returned once it has) and waits (started, not forked:
    the test's process is threaded)."""
    code = TRICKS + f"\nimport sys\n{trick}(*{args!r})\nsys.stdout.write('done')\nsys.stdout.flush()\ntime.sleep(120)\n"
    # The attack's own process forks as it likes, in the spawn-only session too (the rule that
    # session sets is the referee's, not an agent's: tests/spawn_only/sitecustomize.py).
    env = {k: v for k, v in os.environ.items() if k != "TREASURE_TEST_SPAWN_ONLY"}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stdout.read(4) == b"done", trick
    return proc


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0]
    except OSError:
        return "gone"


@pytest.mark.parametrize(("trick", "args", "hidden"), [
    ("first_thread_gone", (SYS_EXIT, 160), 160 * MIB),
    ("mapped_and_closed", (10,), 160 * MIB),
    ("private_table", (10,), 160 * MIB),
])
def test_held_counts_what_a_process_hides_from_its_proc_files(trick, args, hidden):
    proc = _child(trick, *args)
    pid = proc.pid
    try:
        pids = [pid, *agent_process._descendants(pid)]  # (the first trick's holder is a child of its own)
        deadline = time.monotonic() + 20
        while trick == "first_thread_gone" and _state(pids[-1]) != "Z" and time.monotonic() < deadline:
            time.sleep(0.01)  # its first thread gone: what the count must see through
        counted = held(pids)
        assert counted >= hidden, (trick, counted >> 20)  # (and the process itself)
    finally:
        for p in [*agent_process._descendants(pid), pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, 9)
        proc.wait()


AGENT = TRICKS + textwrap.dedent('''\


    import sys

    from treasure_cli import LargeScan


    class Hider:
        """528 MiB held where the count did not look, under a 512 MiB limit; memfd files first."""

        def __init__(self):
            for trick in (mapped_and_closed, private_table):
                try:
                    trick(1)
                    print(f"{trick.__name__} made", file=sys.stderr, flush=True)
                except OSError as exc:
                    print(f"{trick.__name__} refused {exc.errno}", file=sys.stderr, flush=True)
            for _ in range(3):
                first_thread_gone(SYS_EXIT, 176)

        def act(self, obs):
            time.sleep(0.1)
            return LargeScan()
''')


@pytest.fixture(params=["warm host", "a sandbox per game"])
def route(request, monkeypatch):
    """The machine without control groups, each way a sandboxed game is launched."""
    yield from without_control_groups(monkeypatch, request.param)


def test_a_game_that_hides_its_memory_from_proc_is_ended_at_its_limit(tmp_path, route):
    file = tmp_path / f"hider_{uuid.uuid4().hex[:12]}.py"
    file.write_text(AGENT.replace("SYS_EXIT", str(SYS_EXIT)))
    island = treasure_cli.generate_island(12, 10, rng=np.random.default_rng(9))
    record, _ = play_game(island, f"{file}:Hider", 1, map_name="m", isolation="sandbox", max_turns=60,
                          limits=AgentLimits(memory=512 * MIB), game_timeout=60)
    assert record.failed and record.reason == "agent-died", (record.reason, record.error)
    assert "past its game's memory limit (512 MiB for all its processes" in record.error, record.error
    for trick in ("mapped_and_closed", "private_table"):
        assert f"{trick} refused {errno.ENOSYS}" in record.output, record.output
