"""A game cannot read the machine's count of processes made, through a pidfd's inode number.

Since Linux 6.9 every process and thread made anywhere on the machine takes the next inode number
of `pidfs`, and a pidfd shows its process's (`fstat().st_ino`). A game that made k threads before
it ended left k in that count, and the next game of its agent read it from its own pidfd: through
`treasure tournament` with one worker, the next game's number came k + 2 or k + 3 after the last
game's in 5 of 5 hand-overs (about 440 threads in 20 ms: a dozen bits a game). The seccomp filter
refuses whatever hands a program a pidfd (sandbox/seccomp.py); this agent tries each way in every
game, still makes threads and a child, and plays `logic`'s game. A Python agent's game is sealed
(no socket: tests/security/test_sealed_python_game.py), so the socket options are tried by an
exec program too (the starter agent in plain Python, the probe first), beside its fair twin.
"""

from __future__ import annotations

import errno
import re
import uuid

import pytest
from helpers import cheat_beside_logic, exec_cheat, hidden_maps, probe_group, seccomp_answer

from treasure_cli.sandbox import seccomp

NAME = "pids_" + uuid.uuid4().hex[:10]  # no other test's agent has this name

CHEAT = '''\
import ctypes
import os
import socket
import sys
import threading

libc = ctypes.CDLL(None, use_errno=True)


def number(fd):
    try:
        return str(os.fstat(fd).st_ino)
    finally:
        os.close(fd)


def own():
    try:
        return number(os.pidfd_open(os.getpid()))
    except OSError as e:
        return f"refused {e.errno}"


def on_a_pair(use):
    try:
        mine, theirs = socket.socketpair()
    except OSError as e:
        return f"no socket {e.errno}"  # a sealed game
    try:
        return use(mine)
    except OSError as e:
        return f"refused {e.errno}"
    finally:
        mine.close()
        theirs.close()


def peer():  # SO_PEERPIDFD: the pidfd of the socket's peer
    return on_a_pair(lambda s: number(int.from_bytes(s.getsockopt(socket.SOL_SOCKET, 77, 4), "little")))


def passed():  # SO_PASSPIDFD: a pidfd with each message
    return on_a_pair(lambda s: s.setsockopt(socket.SOL_SOCKET, 76, 1) or "set")


def cloned():
    fd = ctypes.c_int(-1)  # clone(CLONE_PIDFD | SIGCHLD): the child's pidfd written to fd
    pid = libc.syscall(56, 0x1000 | 17, None, ctypes.byref(fd), None, None)
    if pid == 0:
        os._exit(0)
    if pid < 0:
        return f"refused {ctypes.get_errno()}"
    os.waitpid(pid, 0)
    return number(fd.value)


def probe():
    said = [own(), peer(), passed(), cloned()]
    threads = [threading.Thread(target=lambda: None) for _ in range(50)]  # the count still moves
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    child = os.fork()
    if child == 0:
        os._exit(3)
    said.append(str(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])))
    print("pids: " + "; ".join(said), file=sys.stderr, flush=True)
'''

@pytest.mark.parametrize("arch", sorted(seccomp.DENIED))
def test_the_filter_refuses_every_way_to_a_pidfd_and_allows_threads_and_forks(arch):
    program, allow = seccomp.program(), 0x7FFF0000
    gone, invalid, no_option = (0x50000 | e for e in (errno.ENOSYS, errno.EINVAL, errno.ENOPROTOOPT))
    clone = seccomp.CLONE[arch]
    assert seccomp_answer(program, arch, 434, 1, 0, 0) == gone  # pidfd_open
    assert seccomp_answer(program, arch, 435, 0, 88, 0) == gone  # clone3: its flags in memory
    assert seccomp_answer(program, arch, clone, seccomp.CLONE_PIDFD | 17, 0, 0) == invalid
    assert seccomp_answer(program, arch, clone, 0x003D0F00, 0, 0) == allow  # a thread, as pthread_create asks
    assert seccomp_answer(program, arch, clone, 0x01200011, 0, 0) == allow  # fork()
    get, put = seccomp.GETSOCKOPT[arch][0], seccomp.SETSOCKOPT[arch][0]
    assert seccomp_answer(program, arch, get, 3, 1, 77) == no_option  # SO_PEERPIDFD
    assert seccomp_answer(program, arch, put, 3, 1, 76) == no_option  # SO_PASSPIDFD
    assert seccomp_answer(program, arch, get, 3, 1, 8) == allow  # SO_RCVBUF
    assert seccomp_answer(program, arch, put, 3, 1, 16) == allow  # SO_PASSCRED
    assert seccomp_answer(program, arch, put, 3, 6, 76) == allow  # another level's option 76


@pytest.mark.parametrize("kind", ["python", "exec"])
def test_no_game_reads_the_count_of_processes_made(tmp_path, kind):
    maps, students = hidden_maps(tmp_path, 90), tmp_path / "students"
    students.mkdir()
    if kind == "python":
        probe_group(students, NAME, CHEAT + "\n\nprobe()\n")
        twin = "logic"
        sockets = f"no socket {errno.EPERM}; no socket {errno.EPERM}"  # sealed: no socket pair made
    else:
        twin = exec_cheat(students, NAME, CHEAT + "\n\nprobe()\n")
        sockets = f"refused {errno.ENOPROTOOPT}; refused {errno.ENOPROTOOPT}"
    cheat, fair = cheat_beside_logic(students, maps, tmp_path / "results.sqlite", NAME, fair=twin)
    refused = f"refused {errno.ENOSYS}; {sockets}; refused {errno.EINVAL}; 3"
    for r in cheat:
        said = re.search(r"^pids: (.*)$", r.output, flags=re.M)
        assert said, r.output[:2000]
        assert said[1] == refused, said[1]
    assert {(r.map_digest, r.seed): (r.outcome, r.turns) for r in cheat} == fair
