"""A game cannot read the machine-wide counters behind socket and network namespace cookies.

The kernel numbers sockets (`SO_COOKIE`) and network namespaces (`SO_NETNS_COOKIE`) from counters
it keeps for the whole machine, handed out in per-CPU batches, and a socket's number is drawn only
when someone asks for it. Nothing on a quiet machine asks, so a game could ask k times to leave k
for the next game of its agent, which asks once and reads it back: through `treasure tournament`
with one worker the cookies of consecutive games on one CPU ran on (1, 2 then 3, 4), a channel of
twelve bits a game that costs a game microseconds. A sock_diag netlink socket reports the cookies
too. The seccomp filter refuses both getsockopt options (ENOPROTOOPT) and sock_diag sockets
(EPROTONOSUPPORT), as a kernel without them would (sandbox/seccomp.py). An `exec:` program asks every
game; a Python agent's game makes no socket at all (the third filter) and plays `logic`'s game.
"""

from __future__ import annotations

import errno
import re
import uuid

import pytest
from helpers import cheat_beside_logic, hidden_maps, probe_group

NAME = "cookies_" + uuid.uuid4().hex[:10]  # no other test's agent has this name

PROBE = '''\
import socket
import struct
import sys


def cookie(option):
    mine, theirs = socket.socketpair()
    try:
        return str(struct.unpack("Q", mine.getsockopt(socket.SOL_SOCKET, option, 8))[0])
    except OSError as e:
        return f"refused {e.errno}"
    finally:
        mine.close()
        theirs.close()


def diag():
    try:
        socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 4).close()  # NETLINK_SOCK_DIAG
    except OSError as e:
        return f"refused {e.errno}"
    return "made"


try:
    mine, theirs = socket.socketpair()  # other options and sockets still work
    size = mine.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    mine.close()
    theirs.close()
    socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 0).close()  # NETLINK_ROUTE
    said = f"cookie {cookie(57)}; netns cookie {cookie(71)}; sock_diag {diag()}; buffer {size}"
except OSError as e:  # a Python agent's game makes no socket (sandbox/seccomp.py)
    said = f"no socket {e.errno}"
print(f"counters: {said}", file=sys.stderr, flush=True)
'''



@pytest.mark.parametrize("kind", ["python", "exec"])
def test_no_game_reads_a_socket_or_namespace_cookie(tmp_path, kind):
    maps, students = hidden_maps(tmp_path, 80), tmp_path / "students"
    probe_group(students, NAME, PROBE, kind)  # an exec program makes sockets: their cookies are refused
    cheat, fair = cheat_beside_logic(students, maps, tmp_path / "results.sqlite", NAME)
    for r in cheat:
        assert r.outcome != "failed", r.error
        if kind == "python":
            assert re.search(rf"^counters: no socket {errno.EPERM}$", r.output, flags=re.M), r.output[:2000]
            continue
        said = re.search(r"^counters: cookie (.*); netns cookie (.*); sock_diag (.*); buffer (\d+)$", r.output,
                         flags=re.M)
        assert said, r.output[:2000]
        assert said.groups()[:3] == (f"refused {errno.ENOPROTOOPT}", f"refused {errno.ENOPROTOOPT}",
                                     f"refused {errno.EPROTONOSUPPORT}"), said.groups()
        assert int(said.group(4)) > 0
    if kind == "python":
        assert {(r.map_digest, r.seed): (r.outcome, r.turns) for r in cheat} == fair
