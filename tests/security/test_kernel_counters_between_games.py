"""A game cannot read the machine-wide counters behind socket and network namespace cookies.

The kernel numbers sockets (`SO_COOKIE`) and network namespaces (`SO_NETNS_COOKIE`) from counters
it keeps for the whole machine, handed out in per-CPU batches, and a socket's number is drawn only
when someone asks for it. Nothing on a quiet machine asks, so a game could ask k times to leave k
for the next game of its agent, which asks once and reads it back: through `treasure tournament`
with one worker the cookies of consecutive games on one CPU ran on (1, 2 then 3, 4), a channel of
twelve bits a game that costs a game microseconds. A sock_diag netlink socket reports the cookies
too. The seccomp filter refuses both getsockopt options (ENOPROTOOPT) and sock_diag sockets
(EPROTONOSUPPORT), as a kernel without them would (sandbox/seccomp.py); this agent asks every game
and plays its fair twin's game. It is an exec program (the starter agent in plain Python, the probe
first): a Python agent's game is sealed and makes no socket at all
(tests/security/test_sealed_python_game.py).
"""

from __future__ import annotations

import errno
import re
import uuid

from helpers import cheat_beside_logic, exec_cheat, hidden_maps

NAME = "cookies_" + uuid.uuid4().hex[:10]  # no other test's agent has this name

CHEAT = '''\
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


mine, theirs = socket.socketpair()  # other options and sockets still work
size = mine.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
mine.close()
theirs.close()
socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 0).close()  # NETLINK_ROUTE
print(f"counters: cookie {cookie(57)}; netns cookie {cookie(71)}; sock_diag {diag()}; buffer {size}",
      file=sys.stderr, flush=True)
'''


def test_no_game_reads_a_socket_or_namespace_cookie(tmp_path):
    maps, students = hidden_maps(tmp_path, 80), tmp_path / "students"
    students.mkdir()
    twin = exec_cheat(students, NAME, CHEAT)
    cheat, fair = cheat_beside_logic(students, maps, tmp_path / "results.sqlite", NAME, fair=twin)
    for r in cheat:
        said = re.search(r"^counters: cookie (.*); netns cookie (.*); sock_diag (.*); buffer (\d+)$", r.output,
                         flags=re.M)
        assert said, r.output[:2000]
        assert said.groups()[:3] == (f"refused {errno.ENOPROTOOPT}", f"refused {errno.ENOPROTOOPT}",
                                     f"refused {errno.EPROTONOSUPPORT}"), said.groups()
        assert int(said.group(4)) > 0
    assert {(r.map_digest, r.seed): (r.outcome, r.turns) for r in cheat} == fair
