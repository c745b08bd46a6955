"""A Python agent's game is sealed: no new pipe or socket (sandbox/seccomp.py's third filter).

Each pipe and socket takes an inode number from the machine's one counter, which the next game
reads with fstat of its own pipes. A Python agent needs neither to start or to play, so its
game (the warm host's jailed game, a sandbox per game, `process`) gets EPERM from pipe, pipe2,
socket and socketpair, and so from subprocess (its error pipe); fork, threads and posix_spawn
(no pipe: the C library's clone with CLONE_VFORK) still work. An exec: program is not sealed
(Node.js and the JVM make pipes and sockets): its game still makes both.
"""

from __future__ import annotations

import re

import pytest
from helpers import ROUTES, probe_on_route

PROBE = '''\
import errno
import os
import socket
import subprocess
import sys
import threading


def probe():
    said = []
    makers = (("pipe", os.pipe), ("socketpair", socket.socketpair),
              ("socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
              ("subprocess", lambda: subprocess.run(["true"], check=True)))
    for name, make in makers:
        try:
            made = make()
        except OSError as exc:
            said.append(f"{name}:{errno.errorcode.get(exc.errno, exc)}")
            continue
        for one in made if isinstance(made, tuple) else (made,):
            if isinstance(one, int):
                os.close(one)
            elif isinstance(one, socket.socket):
                one.close()
        said.append(f"{name}:ok")
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    said.append(f"fork:{os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])}")
    ran = []
    thread = threading.Thread(target=lambda: ran.append(1))
    thread.start()
    thread.join()
    said.append(f"thread:{len(ran)}")
    pid = os.posix_spawn("/bin/true", ["true"], os.environ)
    said.append(f"posix_spawn:{os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])}")
    print("SEALED", " ".join(said), file=sys.stderr, flush=True)
'''

SAID = {
    "python": "pipe:EPERM socketpair:EPERM socket:EPERM subprocess:EPERM fork:7 thread:1 posix_spawn:0",
    "exec": "pipe:ok socketpair:ok socket:ok subprocess:ok fork:7 thread:1 posix_spawn:0",
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("kind", ["python", "exec"])
def test_a_python_agents_game_makes_no_pipe_or_socket(tmp_path, monkeypatch, route, kind):
    for r in probe_on_route(tmp_path, monkeypatch, route, kind, PROBE + "\n\nprobe()\n"):
        said = re.search(r"^SEALED (.*)$", r.output, flags=re.M)
        assert said, (r.output, r.error)
        assert said[1] == SAID[kind], said[1]
        assert r.outcome != "failed", r.error
