"""No state survives a game (docs/security.md, "What a game shares with the next").

An agent that wants to remember something between its games (the tile where its winning
scan was, say) writes it into every channel it can reach in its first game and reads them
all back in its second. Played through the warm host, in the sandbox and at process level,
its second game must see exactly what its first saw before it wrote anything.
"""

from __future__ import annotations

import ctypes
import errno
import json
import platform
import textwrap
import uuid

import numpy as np
import pytest
from helpers import ROOT

import treasure_cli
from treasure_cli.play.games import play_game
from treasure_cli.sandbox import process as agent_process
from treasure_cli.sandbox.levels import bwrap_works

TOKEN = "nostate_" + uuid.uuid4().hex[:12]
pytestmark = pytest.mark.usefixtures("fresh_agent_pool")

PROBER = textwrap.dedent('''\
    import ctypes
    import fcntl
    import json
    import os
    import platform
    import resource
    import socket
    import sys

    from treasure_cli import LargeScan

    F_SETSIG, F_GETSIG, F_SETPIPE_SZ, F_GETPIPE_SZ = 10, 11, 1031, 1032
    O_DIRECT = 0o40000
    MARK = "treasure-mark-MARKTOKEN"
    SANDBOX = os.path.isdir("/agent")  # the sandbox shows the agent its file there
    DIRS = ["/", "/tmp", "/dev", "/dev/shm", "/dev/mqueue", "/agent", "/var/tmp", "/run", "/home", "/etc",
            "/usr", os.getcwd(), os.path.expanduser("~")]
    LIMITS = [n for n in dir(resource) if n.startswith("RLIMIT_")]
    libc = ctypes.CDLL(None, use_errno=True)
    KEYCTL = {"x86_64": 250, "aarch64": 219}.get(platform.machine())
    ADD_KEY = {"x86_64": 248, "aarch64": 217}.get(platform.machine())
    KEYRINGS = {"user": -4, "session": -3, "user session": -5}
    SHM_KEY = 0x7EA5


    def look():
        seen = {}
        for fd in (0, 1, 2):
            seen[f"fd {fd}"] = [fcntl.fcntl(fd, fcntl.F_GETFL), fcntl.fcntl(fd, F_GETSIG), fcntl.fcntl(fd, F_GETPIPE_SZ),
                                fcntl.fcntl(fd, fcntl.F_GETFD), fcntl.fcntl(fd, fcntl.F_GETOWN)]
        open_fds = []
        for fd in range(1024):
            try:
                fcntl.fcntl(fd, fcntl.F_GETFD)
                open_fds.append(fd)
            except OSError:
                pass
        seen["open fds"] = open_fds
        seen["cpus"] = sorted(os.sched_getaffinity(0))
        seen["environment"] = sorted(os.environ.items())
        seen["rlimits"] = {n: resource.getrlimit(getattr(resource, n)) for n in LIMITS}
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, 0)
        mask = os.umask(0o22)
        os.umask(mask)
        seen["umask"] = mask
        seen["cwd"] = os.getcwd()
        if SANDBOX:
            seen["files"] = [d for d in DIRS if os.path.lexists(os.path.join(d, MARK))]
            try:
                s = socket.socket(socket.AF_UNIX)
            except OSError as exc:  # a Python agent's game is sealed: no socket
                seen["abstract socket"] = f"no socket {exc.errno}"
            else:
                seen["abstract socket"] = s.connect_ex("\\0" + MARK)
                s.close()
            seen["keys"] = [name for name, ring in KEYRINGS.items()
                            if libc.syscall(KEYCTL, 10, ring, b"user", MARK.encode(), 0) >= 0]  # KEYCTL_SEARCH
            seen["shared memory"] = libc.shmget(SHM_KEY, 0, 0) >= 0
            seen["message queue"] = libc.mq_open(("/" + MARK).encode(), os.O_RDONLY, 0, None) >= 0
            seen["host name"] = socket.gethostname()
        return seen


    def mark():
        """Write what it can; the channels it could write, said."""
        wrote = []
        def attempt(name, fn):
            try:
                if fn() is not False:
                    wrote.append(name)
            except (OSError, ValueError):
                pass
        for fd in (0, 1, 2):
            attempt(f"fd {fd} flags", lambda: fcntl.fcntl(fd, fcntl.F_SETFL,
                                                          fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND | fcntl.FASYNC | O_DIRECT))
            attempt(f"fd {fd} signal", lambda: fcntl.fcntl(fd, F_SETSIG, 28))  # SIGWINCH: ignored if it comes
            attempt(f"fd {fd} size", lambda: fcntl.fcntl(fd, F_SETPIPE_SZ, 4096 << fd))
            attempt(f"fd {fd} owner", lambda: fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid()))
            attempt(f"fd {fd} close-on-exec", lambda: fcntl.fcntl(fd, fcntl.F_SETFD, fcntl.FD_CLOEXEC))
        cpus = os.sched_getaffinity(0)
        def widen():
            os.sched_setaffinity(0, range(256))  # (os.cpu_count() may not know, in the sandbox)
            return os.sched_getaffinity(0) != cpus
        attempt("cpus", widen)
        attempt("environment", lambda: os.environ.__setitem__("TREASURE_MARK", "1"))
        for n in LIMITS:
            which = getattr(resource, n)
            soft, hard = resource.getrlimit(which)
            if soft > 1:
                attempt(n, lambda: resource.setrlimit(which, (soft - 1, soft - 1)))
        attempt("nice", lambda: os.nice(3))
        attempt("umask", lambda: os.umask(0o077))
        if SANDBOX:
            attempt("priority of the user's processes", lambda: os.setpriority(os.PRIO_USER, os.getuid(), 7))
            for d in DIRS:
                attempt("file in " + d, lambda: open(os.path.join(d, MARK), "w").close())
                attempt("folder in " + d, lambda: os.mkdir(os.path.join(d, MARK)))
            def bind():
                global KEEP
                KEEP = socket.socket(socket.AF_UNIX)  # refused in a sealed game
                KEEP.bind("\\0" + MARK)
            attempt("abstract socket", bind)
            for name, ring in KEYRINGS.items():
                attempt("key in " + name, lambda: libc.syscall(ADD_KEY, b"user", MARK.encode(), b"7", 1, ring) >= 0)
            attempt("shared memory", lambda: libc.shmget(SHM_KEY, 4096, 0o1666) >= 0)  # refused: seccomp.py
            attempt("message queue", lambda: libc.mq_open(("/" + MARK).encode(), os.O_CREAT | os.O_RDWR, 0o600, None) >= 0)
            attempt("host name", lambda: libc.sethostname(b"mark", 4) == 0)
        return wrote


    class Prober:
        def __init__(self):
            print("seen " + json.dumps(look(), sort_keys=True), file=sys.stderr, flush=True)
            print("wrote " + json.dumps(mark()), file=sys.stderr, flush=True)

        def act(self, obs):
            return LargeScan()
''').replace("MARKTOKEN", TOKEN)


def _said(output: str) -> tuple[dict, list[str]]:
    seen = wrote = None
    for line in output.splitlines():
        if line.startswith("seen "):
            seen = json.loads(line[5:])
        elif line.startswith("wrote "):
            wrote = json.loads(line[6:])
    assert seen is not None and wrote is not None, output
    return seen, wrote


LEVELS = ["process", pytest.param("sandbox", marks=pytest.mark.skipif(not bwrap_works(), reason="no bubblewrap"))]


@pytest.mark.parametrize("level", LEVELS)
def test_a_second_game_sees_nothing_the_first_wrote(tmp_path, level):
    file = tmp_path / f"{TOKEN}.py"
    file.write_text(PROBER)
    # As a login session has one: a session keyring, which every process started from here inherits.
    keyctl = {"x86_64": 250, "aarch64": 219}.get(platform.machine())
    if keyctl is not None:
        assert ctypes.CDLL(None, use_errno=True).syscall(keyctl, 1, f"test-{TOKEN}".encode()) >= 0
    island = treasure_cli.generate_island(12, 10, rng=np.random.default_rng(3))
    spec = f"{file}:Prober"
    games = []
    for seed in (1, 2, 3):
        record, _ = play_game(island, spec, seed, map_name="m", isolation=level, max_turns=2)
        assert not record.failed, record.error
        games.append(_said(record.output))
    hosts = [p for p in agent_process._POOL.values() if p.launch.argv[-1] == spec or p.launch.argv[-1].endswith(f"{TOKEN}.py:Prober")]
    assert len(hosts) == 1 and hosts[0].forks and hosts[0].games == 3  # one warm host forked all three
    (first, wrote), (second, _), (third, _) = games
    # The channels the attack of issue 41 used were written...
    assert {"fd 2 flags", "fd 2 signal", "fd 2 size", "environment", "umask", "nice"} <= set(wrote), wrote
    if level == "sandbox":
        assert {"file in /tmp", "file in /dev/shm"} <= set(wrote), wrote
        # A Python agent's game is sealed (no socket: the abstract socket is tried by an exec
        # program below) and mq_open is refused (ENOSYS, sandbox/seccomp.py).
        assert first["abstract socket"] == "no socket 1", first
        assert "abstract socket" not in wrote and "message queue" not in wrote, wrote
        # keys cannot be added at all (sandbox/seccomp.py: tests/security/test_keys_between_games.py)
        assert not any(w.startswith("key in") for w in wrote), wrote
    # ... and the next games see what the first saw before it wrote.
    for later in (second, third):
        differ = {k: (first[k], later.get(k)) for k in first if first[k] != later.get(k) and k != "cpus"}
        assert not differ, differ
        # Which CPUs a game gets is the referee's choice each game (the ones its own thread is not
        # on, sandbox/process.py Cores): the set may move, but a widened set must not carry over.
        assert len(later["cpus"]) == len(first["cpus"]), (first["cpus"], later["cpus"])
    if level == "sandbox":
        assert first["files"] == [] and first["keys"] == [] and not first["shared memory"], first
        assert not first["message queue"], first
        # its pipes (the host keeps the protocol's output on 3 and points 1 at standard error), nothing else
        assert first["open fds"] == [0, 1, 2, 3], first["open fds"]


ABSTRACT = textwrap.dedent('''\
    #!/usr/bin/env python3
    import os, socket, sys, time
    NAME = "\\0treasure-mark-MARKTOKEN"
    s = socket.socket(socket.AF_UNIX)
    seen = s.connect_ex(NAME)
    s.close()
    keep = socket.socket(socket.AF_UNIX)
    try:
        keep.bind(NAME)
        keep.listen(1)  # a name left bound: the next game connects to it, and cannot bind it
        bound = "bound"
    except OSError as exc:
        bound = f"not bound {exc.errno}"
    if os.fork() == 0:  # holds the name past its game, unless it is killed with it
        os.close(0)
        os.close(1)
        time.sleep(60)
        os._exit(0)
    print(f"abstract {seen} {bound}", file=sys.stderr, flush=True)
    ''').replace("MARKTOKEN", TOKEN)


@pytest.mark.skipif(not bwrap_works(), reason="no bubblewrap")
def test_an_exec_programs_abstract_socket_is_not_seen_by_its_next_game(tmp_path):
    """A Python agent's game makes no socket (sealed); an exec program's may, and binds an
    abstract Unix socket's name, held by a child meant to outlive its game: the next game (its
    own network namespace, the child killed with the last game) finds no such name and binds it."""
    program = tmp_path / TOKEN
    program.write_text(ABSTRACT + (ROOT / "examples" / "plain_agent.py").read_text().split("\n", 1)[1])
    program.chmod(0o755)
    island = treasure_cli.generate_island(12, 10, rng=np.random.default_rng(3))
    said = []
    for seed in (1, 2):
        record, _ = play_game(island, f"exec:{program}", seed, map_name="m", isolation="sandbox", max_turns=2)
        assert not record.failed, record.error
        said += [line for line in record.output.splitlines() if line.startswith("abstract ")]
    refused = errno.ECONNREFUSED  # connect_ex: no socket bound to the name
    assert said == [f"abstract {refused} bound"] * 2, said
