"""What a game leaves in flight on Unix sockets is collected before the next game of its agent.

Two sockets a game sends over themselves (`SCM_RIGHTS`), with other files beside them, are garbage
that no process holds once the game's processes end, and the kernel collects such cycles only when
some Unix socket somewhere is released, which nothing between two games of a warm host did. Until
then the kernel kept, past the game, the user's count of descriptors in flight, which the next game of
the agent (the same user) reads by sending descriptors until it is refused: 33 less what the game
before left, five bits a game. Before the fix, on the warm host's jail (the default), every second
game of this probe read 24 (the first game's 9 descriptors still in flight), and a probe that left a
number from 2 to 30 passed 9 of 9 hand-overs exactly; a sandbox per game held by chance (bubblewrap
releases sockets of its own as it ends). The referee now has the kernel collect them when a game ends
and waits for it before the worker's next game (sandbox/process.py, `collect_in_flight`). An exec
program's game: a Python agent's is sealed and makes no socket (tests/security/test_sealed_python_game.py).
"""

from __future__ import annotations

import re

import pytest

from helpers import probe_on_route

PROBE = '''
import array, errno, fcntl, os, socket, sys

SHARED = sorted(os.listdir("/agent"))[0]  # a file every game of the agent sees (read-only)


def room():
    """How many descriptors this user may still put in flight: 33 where it has none there."""
    mine, theirs = socket.socketpair()
    null, sent = os.open("/dev/null", os.O_RDONLY), 0
    try:
        while sent < 64:
            mine.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [null]))])
            sent += 1
    except OSError as exc:
        if exc.errno != errno.ETOOMANYREFS:
            raise
    finally:
        os.close(null)
        mine.close()
        theirs.close()
    return sent


def lock():
    """Whether a lock is held on the shared file (by a game before: this one holds none yet)."""
    fd = os.open("/agent/" + SHARED, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return "free"
    except OSError:
        return "held"
    finally:
        os.close(fd)


def leave():
    """Two sockets that hold each other in flight, with a file of each of the game's mounts and the
    shared file, locked, then closed: no socket is released, so nothing asks the kernel to collect
    them, and a lock (flock's) lasts as long as its open file."""
    mine, theirs = socket.socketpair()
    fds = [os.open(p, os.O_RDONLY) for p in ("/tmp", "/dev/shm", "/proc", "/agent", "/", "/usr", "/dev")
           if os.path.exists(p)]
    fds.append(os.open("/agent/" + SHARED, os.O_RDONLY))
    fcntl.flock(fds[-1], fcntl.LOCK_SH)
    try:
        theirs.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                 array.array("i", [mine.fileno(), theirs.fileno(), *fds]))])
    except OSError as exc:
        return f"refused {exc.errno}"
    finally:
        for fd in fds:
            os.close(fd)
    mine.close()
    theirs.close()
    return f"left {len(fds) + 2}"


print(f"in flight: room {room()}; lock {lock()}; {leave()}", file=sys.stderr, flush=True)
'''


@pytest.mark.parametrize("route", ["the warm host's jail", "a sandbox per game"])
def test_what_a_game_left_in_flight_is_gone_by_the_next_game(tmp_path, monkeypatch, route):
    rows = probe_on_route(tmp_path, monkeypatch, route, "exec", PROBE)
    said = [re.search(r"^in flight: room (\d+); lock (free|held); (left \d+|refused \d+)$", r.output, flags=re.M)
            for r in rows]
    assert all(said), [r.output[-2000:] for r in rows]
    assert all(s.group(3).startswith("left ") for s in said), [s.group(0) for s in said]  # each game left some
    assert [(int(s.group(1)), s.group(2)) for s in said] == [(33, "free")] * 2, [s.group(0) for s in said]  # none left
