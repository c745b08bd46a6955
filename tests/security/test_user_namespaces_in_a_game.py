"""A game cannot make a user namespace of its own (docs/security.md, sixth round).

In a user namespace of its own a game has every capability again: it mounted a tmpfs of 2 GiB,
whose pages no address space and, without a memory group, no count of the referee's sees, and
it reaches the kernel's code for namespaces. A second seccomp filter, set in the game's own
process once its jail is made (the warm host's route) or when its host starts (a sandbox per
game, `process`), refuses `unshare` and `clone` with CLONE_NEWUSER (EPERM) and `clone3` (ENOSYS:
the C library falls back to `clone`); threads, processes and other namespaces' flags still work.
"""

from __future__ import annotations

import errno
import re
import subprocess

import pytest
from helpers import ROUTES, probe_on_route, seccomp_answer

from treasure_cli.sandbox import seccomp

PROBE = '''\
import ctypes
import os
import sys
import threading

libc = ctypes.CDLL(None, use_errno=True)


def called(result):
    return "0" if result == 0 else f"refused {ctypes.get_errno()}"


said = [called(libc.unshare(0x10000000 | 0x00020000))]  # CLONE_NEWUSER | CLONE_NEWNS
said.append(called(libc.syscall(435, None, ctypes.c_size_t(0))))  # clone3 (its arguments: none)
child = os.fork()  # a child's program inherits the filter (started without a pipe: a Python game makes none)
if child == 0:
    os.execv(sys.executable, [sys.executable, "-c",
                              "import ctypes, os; os._exit(0 if ctypes.CDLL(None).unshare(0x10000000) == 0 else 1)"])
said.append("-1" if os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 1 else "0")
pid = os.fork()  # clone without new namespaces still works
if pid == 0:
    os._exit(7)
said.append(str(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])))
ran = []
thread = threading.Thread(target=lambda: ran.append(1))
thread.start()
thread.join()
said.append(str(len(ran)))
print("NAMESPACES", " ".join(said), file=sys.stderr, flush=True)
'''



@pytest.mark.parametrize("arch", sorted(seccomp.DENIED))
def test_the_filter_refuses_new_user_namespaces_and_nothing_else(arch):
    program, allow = seccomp.namespaces_program(), 0x7FFF0000
    refused, gone = 0x50000 | errno.EPERM, 0x50000 | errno.ENOSYS
    unshare, clone = seccomp.UNSHARE[arch], seccomp.CLONE[arch]
    assert seccomp_answer(program, arch, unshare, seccomp.CLONE_NEWUSER | 0x00020000) == refused
    assert seccomp_answer(program, arch, clone, seccomp.CLONE_NEWUSER | 0x11) == refused
    assert seccomp_answer(program, arch, 435, 0) == allow  # clone3: the first filter's (below)
    assert seccomp_answer(seccomp.program(), arch, 435, 0, 0, 0) == gone
    assert seccomp_answer(program, arch, unshare, 0x00020000) == allow  # a mount namespace alone
    assert seccomp_answer(program, arch, clone, 0x003D0F00) == allow  # a thread, as pthread_create asks
    assert seccomp_answer(program, arch, 0, seccomp.CLONE_NEWUSER) == allow  # another call with the same bit
    assert seccomp_answer(program, 0x1234, 272, seccomp.CLONE_NEWUSER) == allow  # an architecture it does not know


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("kind", ["python", "exec"])
def test_no_game_makes_a_user_namespace(tmp_path, monkeypatch, route, kind):
    for r in probe_on_route(tmp_path, monkeypatch, route, kind, PROBE):
        said = re.search(r"^NAMESPACES (.*)$", r.output, flags=re.M)
        assert said, (r.output, r.error)
        # unshare refused, clone3 gone, a child's unshare refused (-1), a fork's child ran (7), a thread ran (1)
        assert said[1] == f"refused {errno.EPERM} refused {errno.ENOSYS} -1 7 1", said[1]
        assert r.outcome != "failed", r.error


def test_a_sandbox_made_without_root_lets_no_game_make_a_user_namespace(monkeypatch):
    """Without root bubblewrap makes the sandbox's user namespace itself, so no filter can be set
    before it: it is given --disable-userns (bubblewrap 0.8), for a program as for Python. (Run
    here as a user would: the sandbox made with a user namespace.)"""
    from treasure_cli.sandbox import levels
    from treasure_cli.sandbox.levels import AgentLimits

    monkeypatch.setattr(levels.os, "geteuid", lambda: 1000)
    levels._launch.cache_clear()
    code = "import ctypes; print(ctypes.CDLL(None, use_errno=True).unshare(0x10000000), ctypes.get_errno())"
    try:
        argv = levels.launch(["/usr/bin/python3", "-I", "-c", code], "sandbox", None, python=False).argv
    finally:
        levels._launch.cache_clear()
    assert "--unshare-user" in argv and "--disable-userns" in argv, argv
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: levels.set_limits(AgentLimits()))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "-1", done.stdout  # refused (ENOSPC: no user namespace left to make)
