"""What takes a number from the machine's one counter of pipes' and sockets' inodes.

The kernel numbers the inodes of pipes, sockets and a few other objects from one counter for the
whole machine (`get_next_ino`, handed to each CPU 1,024 at a time). A game that takes k numbers
moves the number the next game's own pipes get, which `fstat` shows (docs/security.md, "What a
game shares with the next"). Besides pipes and sockets, these took a number each, none of them
anything an agent needs: a `userfaultfd`, a `memfd_secret` file, a kernel AIO context
(`io_setup`), a POSIX message queue (`mq_open`) and a `MAP_HUGETLB` mapping, even a failed one.
The seccomp filter refuses them; this agent tries each in every game, between two pipes of its
own whose numbers say whether anything was taken, and plays its fair twin's game. It is an exec
program (the starter agent in plain Python, the probe first): a Python agent's game is sealed and
makes no pipe at all (tests/security/test_sealed_python_game.py), so it could not measure.
"""

from __future__ import annotations

import errno
import re
import uuid

import pytest
from helpers import PIPE_NUMBER, cheat_beside_logic, exec_cheat, hidden_maps, seccomp_answer

from treasure_cli.sandbox import seccomp

NAME = "numbers_" + uuid.uuid4().hex[:10]  # no other test's agent has this name
X86_64, I386, AARCH64 = 0xC000003E, 0x40000003, 0xC00000B7
TAKERS = {"userfaultfd": {X86_64: 323, I386: 374, AARCH64: 282}, "memfd_secret": {X86_64: 447, I386: 447, AARCH64: 447},
          "io_setup": {X86_64: 206, I386: 245, AARCH64: 0}, "mq_open": {X86_64: 240, I386: 277, AARCH64: 180}}

CHEAT = '''\
import ctypes
import mmap
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)


''' + PIPE_NUMBER + '''

def hugetlb():
    try:
        mmap.mmap(-1, 2 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x40000).close()
        return 0
    except OSError as e:
        ctypes.set_errno(e.errno)
        return -1


TRIES = {
    "userfaultfd": lambda: libc.syscall(323, 1 | 0x80000),  # UFFD_USER_MODE_ONLY | O_CLOEXEC
    "memfd_secret": lambda: libc.syscall(447, 0),
    "io_setup": lambda: libc.syscall(206, 1, ctypes.byref(ctypes.c_ulong(0))),
    "mq_open": lambda: libc.syscall(240, b"probe", 0o100 | 2, 0o600, None),
    "hugetlb": hugetlb,
}


def tried(rounds=2):
    """Each call between two pipes (the one after a call is the one before the next): the fewest
    numbers it took over `rounds` (another process on this CPU may take some). 12 pipes in all,
    within the game's budget of 16 (test_pipe_budget_between_games.py)."""
    taken, said = {name: [] for name in TRIES}, {}
    for _ in range(rounds):
        before = pipe_number()
        for name, call in TRIES.items():
            ctypes.set_errno(0)
            result = call()
            said[name] = f"refused {ctypes.get_errno()}" if result < 0 else "made"
            after = pipe_number()
            taken[name].append(after - before - 1)
            before = after
    return [f"{name} {said[name]} took {min(taken[name])}" for name in TRIES]


said = tried()
print("numbers: " + "; ".join(said), file=sys.stderr, flush=True)
'''


@pytest.mark.parametrize("arch", sorted(seccomp.DENIED))
def test_the_filter_refuses_what_takes_a_number_but_pipes_and_sockets(arch):
    program = seccomp.program()
    for name, numbers in TAKERS.items():
        assert seccomp_answer(program, arch, numbers[arch], 0, 0, 0, 0) == 0x50000 | errno.ENOSYS, name
    mmap = seccomp.MMAP[arch][0]
    assert seccomp_answer(program, arch, mmap, 0, 2 << 20, 3, 0x40022) == 0x50000 | errno.ENOMEM  # MAP_HUGETLB
    assert seccomp_answer(program, arch, mmap, 0, 2 << 20, 3, 0x22) == 0x7FFF0000  # private, anonymous


def test_no_game_takes_a_number_but_by_pipes_and_sockets(tmp_path):
    maps, students = hidden_maps(tmp_path, 120), tmp_path / "students"
    students.mkdir()
    twin = exec_cheat(students, NAME, CHEAT)
    cheat, fair = cheat_beside_logic(students, maps, tmp_path / "results.sqlite", NAME, fair=twin)
    refused = {"userfaultfd": errno.ENOSYS, "memfd_secret": errno.ENOSYS, "io_setup": errno.ENOSYS,
               "mq_open": errno.ENOSYS, "hugetlb": errno.ENOMEM}
    for r in cheat:
        said = re.search(r"^numbers: (.*)$", r.output, flags=re.M)
        assert said, r.output[:2000]
        assert said[1] == "; ".join(f"{name} refused {e} took 0" for name, e in refused.items()), said[1]
    assert {(r.map_digest, r.seed): (r.outcome, r.turns) for r in cheat} == fair
