"""An exec: program cannot trace the process that counts its pipes (docs/security.md, eighth round).

In a sandbox per game an exec: program runs as the child of `python -m treasure_cli.sandbox.counted`,
which holds the listener of its budget of pipe and socket numbers (sandbox/seccomp.py, `Budget`).
Both are the same user, and a process may trace another of its user's unless that one says it is
not dumpable: a program that attached to its parent (`ptrace`, or `/proc/PPID/mem`) could rewrite
the count and take as many numbers as it liked. `counted` is not dumpable before it starts the
program, nor is the warm host's jail's process 1 (sandbox/warm_host.py), which had to be to
write its user namespace's maps. Without these, the program attached on both routes. (In a sandbox
per game it tries bubblewrap's init, its namespace's process 1, too: refused.)
"""

from __future__ import annotations

import pytest
from helpers import ROUTES, probe_on_route

PROBE = '''\
import ctypes
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
parent = os.getppid()
attached = libc.ptrace(16, parent, None, None)  # PTRACE_ATTACH
said = ["attached" if attached == 0 else f"refused {ctypes.get_errno()}"]
if attached == 0:
    os.waitpid(parent, 0x40000000)  # __WALL: stopped
    libc.ptrace(17, parent, None, None)  # PTRACE_DETACH
try:
    with open(f"/proc/{parent}/mem", "rb") as memory:
        said.append("read")
except OSError as e:
    said.append(f"refused {e.errno}")
if parent != 1:  # a sandbox per game: bubblewrap's init, the namespace's process 1, holds no filter of ours
    said.append("refused 1" if libc.ptrace(16, 1, None, None) != 0 else "attached")
print("TRACED", parent, " ".join(said), file=sys.stderr, flush=True)
'''


@pytest.mark.parametrize("route", ROUTES[:2])  # the sandbox's ways (`process` is no wall: docs/security.md)
def test_an_exec_program_cannot_trace_or_read_its_counting_parent(tmp_path, monkeypatch, route):
    for r in probe_on_route(tmp_path, monkeypatch, route, "exec", PROBE):
        said = [line for line in r.output.splitlines() if line.startswith("TRACED ")]
        assert said, r.output[:2000]
        # ptrace refused (EPERM; it attached before); /proc/PPID/mem cannot be opened either
        assert said[0].split()[2:4] == ["refused", "1"] and said[0].split()[4] == "refused", said
        assert "attached" not in said[0], said  # nor the sandbox's process 1
        assert r.outcome == "WIN", (r.outcome, r.error)
