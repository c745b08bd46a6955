"""A game cannot grow its sockets' buffers to hold memory that no limit or count sees.

What the kernel queues on a socket is its memory, not the process's: no address space, no
resident page, no descriptor's file. A socket's buffer may be set (`SO_SNDBUF`) up to twice the
machine's `net.core.wmem_max`; on this 2-core machine (4 MiB) one process of a game queued 217
MiB in 14 socket pairs under its 32-file limit, none of it in the referee's count (the fourth
round of attacks, docs/security.md), and every thread may have a descriptor table of its own.
Setting a buffer's size now succeeds and changes nothing (sandbox/seccomp.py): a socket keeps
the default size, and the same 14 pairs queued a few MiB. (An exec program's game now makes at
most 16 sockets, its budget of the machine's inode numbers: 8 pairs.)
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import textwrap
import uuid

import numpy as np
import pytest
from helpers import ROOT

import treasure_cli
from treasure_cli.play.games import play_game
from treasure_cli.sandbox import process as agent_process
from treasure_cli.sandbox import seccomp
from treasure_cli.sandbox.levels import bwrap_works

HOARDER = textwrap.dedent('''\
    import socket
    import sys

    from treasure_cli import LargeScan


    class Hoarder:
        """Socket pairs with their buffers grown, filled until its open-file limit."""

        def __init__(self):
            sockets, queued, sizes = [], 0, []
            try:
                while True:
                    pair = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
                    sockets += pair
                    for s in pair:
                        before = s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
                        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30)
                        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)
                        sizes.append((before, s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)))
                        s.setblocking(False)
                        try:
                            while True:
                                queued += s.send(b"x" * 65536)
                        except BlockingIOError:
                            pass
            except OSError:  # its open-file limit
                pass
            print(f"sockets {len(sockets)} queued {queued} sizes {sorted(set(sizes))}", file=sys.stderr, flush=True)

        def act(self, obs):
            return LargeScan()
''')


def _sandboxed_game(spec: str):
    """The record of one short game of the agent `spec` in the sandbox."""
    island = treasure_cli.generate_island(12, 10, rng=np.random.default_rng(9))
    agent_process.close_all()
    try:
        record, _ = play_game(island, spec, 1, map_name="m", isolation="sandbox", max_turns=3, game_timeout=60)
    finally:
        agent_process.close_all()
    return record


# The same hoard in an exec: program (the starter agent in plain Python, run by the system's
# python3, the hoard first): its game is not sealed, so it makes its socket pairs.
PROGRAM = ("#!/usr/bin/env python3\n"
           + HOARDER.replace("from treasure_cli import LargeScan\n", "").replace("class Hoarder:", "class _Hoarder:")
           + "\n\n_Hoarder()\n" + (ROOT / "examples" / "plain_agent.py").read_text().split("\n", 1)[1])


@pytest.mark.parametrize("kind", ["python", "exec"])
def test_a_game_cannot_grow_its_socket_buffers(tmp_path, kind):
    """A Python agent's game is sealed (sandbox/seccomp.py): it makes no socket pair at all. An
    exec program's game makes them, and their buffers keep the default size."""
    if not bwrap_works():
        pytest.fail("bubblewrap is needed (make test installs it)")
    file = tmp_path / f"hoarder_{uuid.uuid4().hex[:12]}"
    if kind == "python":
        file = file.with_suffix(".py")
        file.write_text(HOARDER)
        spec = f"{file}:Hoarder"
    else:
        file.write_text(PROGRAM)
        file.chmod(0o755)
        spec = f"exec:{file}"
    record = _sandboxed_game(spec)
    said = re.search(r"sockets (\d+) queued (\d+) sizes (\[.*\])", record.output)
    assert said, (record.output, record.error)
    sockets, queued, sizes = int(said[1]), int(said[2]), eval(said[3])  # noqa: S307  (our agent's own line)
    if kind == "python":
        assert (sockets, queued, sizes) == (0, 0, []), said[0]  # socketpair refused: EPERM
        return
    assert sockets == seccomp.BUDGET, said[0]  # its budget of numbers (test_pipe_budget_between_games.py)
    assert all(before == after for before, after in sizes), said[0]  # set, and unchanged
    assert queued < 24 << 20, said[0]  # (219 MiB before, with 4 MiB of net.core.wmem_max)


# An i386 program reaches setsockopt through the `socketcall` multiplexer (number 102, its first
# argument SYS_SETSOCKOPT 14), whose options a filter cannot read. Built without a C library
# (gcc -m32 needs no 32-bit one with -nostdlib); its exit status says what its socket's size
# became: 0 grown past 1 MiB, 1 unchanged, 10-12 a call failed. It reads the size back with the
# direct getsockopt call (365): getsockopt through socketcall is refused (it could read cookies).
I386_PROGRAM = textwrap.dedent('''\
    static long sys(long n, long a, long b, long c) {
        long r;
        __asm__ volatile ("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c) : "memory");
        return r;
    }
    static long sys5(long n, long a, long b, long c, long d, long e) {
        long r;
        __asm__ volatile ("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e) : "memory");
        return r;
    }
    void _start(void) {
        int sv[2], size = 4 << 20, got = 0, len = 4;
        long args[6] = {1, 1, 0, (long)sv, 0, 0};                   /* AF_UNIX, SOCK_STREAM */
        if (sys(102, 8, (long)args, 0) < 0) sys(1, 10, 0, 0);       /* SYS_SOCKETPAIR */
        args[0] = sv[0]; args[1] = 1; args[2] = 7; args[3] = (long)&size; args[4] = 4;
        if (sys(102, 14, (long)args, 0) < 0) sys(1, 11, 0, 0);      /* SYS_SETSOCKOPT SO_SNDBUF */
        if (sys5(365, sv[0], 1, 7, (long)&got, (long)&len) < 0) sys(1, 12, 0, 0);  /* getsockopt SO_SNDBUF */
        sys(1, got > (1 << 20) ? 0 : 1, 0, 0);
    }
''')

I386_AGENT = textwrap.dedent('''\
    import os
    import pathlib
    import sys

    from treasure_cli import LargeScan


    class Runner:
        """Runs the i386 program it brought (posix_spawn: a Python agent's game makes no pipe, so
        no subprocess) and says its exit status."""

        def __init__(self):
            program = str(pathlib.Path(__file__).with_name("grow32"))
            pid = os.posix_spawn(program, [program], os.environ)
            status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            print(f"i386 status {status}", file=sys.stderr, flush=True)

        def act(self, obs):
            return LargeScan()
''')
# The same, as an exec: program whose game is not sealed: the starter agent in plain Python
# (run by the system's python3), the i386 program, which it carries (an exec program's sandbox
# binds its file alone), written to its /tmp and run first.
I386_PROGRAM_AGENT = ("#!/usr/bin/env python3\nimport base64, os, subprocess, sys\n"
                      "with open('/tmp/grow32', 'wb') as f:\n    f.write(base64.b64decode(GROW32))\n"
                      "os.chmod('/tmp/grow32', 0o700)\n"
                      "status = subprocess.run(['/tmp/grow32']).returncode\n"
                      "print(f'i386 status {status}', file=sys.stderr, flush=True)\n"
                      + (ROOT / "examples" / "plain_agent.py").read_text().split("\n", 1)[1])


@pytest.mark.parametrize("kind", ["python", "exec"])
def test_an_i386_program_cannot_grow_its_socket_buffers_through_socketcall(tmp_path, kind):
    """Run by an exec program's game, the program makes its socket pair and its size stays. Run by
    a Python agent's game, which is sealed (no socket, socketcall's socket calls included), its
    socketpair is refused (status 10)."""
    if not bwrap_works():
        pytest.fail("bubblewrap is needed (make test installs it)")
    if shutil.which("gcc") is None:
        pytest.fail("gcc is needed to build the i386 program (make test installs g++, which brings it)")
    group = tmp_path / f"i386_{uuid.uuid4().hex[:12]}"
    group.mkdir()
    (group / "grow32.c").write_text(I386_PROGRAM)
    subprocess.run(["gcc", "-m32", "-static", "-nostdlib", "-ffreestanding", "-fno-stack-protector", "-O1",
                    "-o", str(group / "grow32"), str(group / "grow32.c")], check=True)
    (group / "grow32.c").unlink()
    outside = subprocess.run([str(group / "grow32")]).returncode
    assert outside == 0, f"the program should grow its buffer outside the sandbox (status {outside})"
    if kind == "python":
        (group / "agent.py").write_text(I386_AGENT)
        record = _sandboxed_game(f"{group / 'agent.py'}:Runner")
    else:
        grow32 = base64.b64encode((group / "grow32").read_bytes()).decode()
        (group / "agent").write_text(I386_PROGRAM_AGENT.replace("GROW32", repr(grow32), 1))
        (group / "agent").chmod(0o755)
        record = _sandboxed_game(f"exec:{group / 'agent'}")
    said = re.search(r"i386 status (\d+)", record.output)
    assert said, (record.output, record.error)
    if kind == "python":
        assert said[1] == "10", said[0]  # SYS_SOCKETPAIR refused: sealed
    else:
        assert said[1] == "1", said[0]  # the socket pair was made, setsockopt succeeded, the size stayed
