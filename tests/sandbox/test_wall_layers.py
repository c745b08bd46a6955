"""Every layer of the wall, tested on its own (docs/security.md, "Each layer and its test").

Layers that stand behind one another hide each other: with bubblewrap's network namespace
gone, the game jail's still closes the network, and the other way round. So each is tried
where it stands alone: bubblewrap's on the path where the warm host cannot jail a game (a
sandbox for each game), the jail's in a bubblewrap sandbox that shares the machine's network,
and the network attempt is made through every way an agent is launched. A write to every
path the sandbox binds must fail with EROFS (a read-write bind would fail with EPERM or
EACCES only for want of ownership, and that is no wall for an agent that owns the files).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
import socket
import subprocess
import sys
import textwrap
import uuid

import numpy as np
import pytest
from helpers import ROOT, Listener, refuse_jail

import treasure_cli
from treasure_cli.play.games import play_game
from treasure_cli.sandbox import levels, process as agent_process
from treasure_cli.sandbox.levels import AgentLimits, bwrap_works

pytestmark = [pytest.mark.skipif(not bwrap_works(), reason="no bubblewrap"),
              pytest.mark.usefixtures("fresh_agent_pool")]
TOKEN = "wall_" + uuid.uuid4().hex[:12]


@pytest.fixture
def listener():
    found = Listener()
    yield found
    found.close()


@pytest.fixture
def island():
    return treasure_cli.generate_island(12, 10, rng=np.random.default_rng(9))


@pytest.fixture(params=["warm host", "a sandbox per game"])
def route(request, monkeypatch):
    """The two ways a sandboxed agent is launched: a warm host that jails each game, or (where
    it cannot) a bubblewrap sandbox of its own for each game, with no jail inside."""
    if request.param == "a sandbox per game":
        refuse_jail(monkeypatch)
    return request.param


def _python_agent(tmp_path, body: str) -> str:
    file = tmp_path / f"{TOKEN}.py"
    head = "import errno, json, os, socket, sys\nfrom treasure_cli import LargeScan\n\n\nclass Agent:\n    def __init__(self):\n"
    tail = "\n    def act(self, obs):\n        return LargeScan()\n"
    file.write_text(head + textwrap.indent(textwrap.dedent(body), " " * 8) + tail)
    return f"{file}:Agent"


def _play(island, spec):
    record, _ = play_game(island, spec, 1, map_name="m", isolation="sandbox", max_turns=2)
    assert not record.failed, record.error
    return record


# ---------------------------------------------------------------- the network, every launch path
def test_a_python_agent_reaches_no_network(tmp_path, island, route, listener):
    """A Python agent's game is sealed (sandbox/seccomp.py): its socket() fails with EPERM before
    any namespace is reached. The namespaces behind the seal are tried where sockets are allowed:
    by an exec program on both routes (test_an_exec_program_reaches_no_network) and alone in
    the sandbox (test_the_game_jail_alone_closes_the_network, test_bubblewrap_alone_closes_the_network)."""
    spec = _python_agent(tmp_path, f'''\
        try:
            socket.create_connection(("127.0.0.1", {listener.port}), timeout=2).close()
            print("network: connected", file=sys.stderr)
        except OSError as exc:
            print("network:", errno.errorcode.get(exc.errno, exc), file=sys.stderr)
        ''')
    record = _play(island, spec)
    assert listener.connections == 0 and "network: connected" not in record.output, record.output
    assert "network: EPERM" in record.output, record.output
    hosts = [p for p in agent_process._POOL.values() if p.forks]
    assert len(hosts) == (1 if route == "warm host" else 0)  # the route taken is the one named


def test_an_exec_program_reaches_no_network(tmp_path, island, route, listener):
    program = tmp_path / f"{TOKEN}.sh"
    program.write_text(textwrap.dedent(f"""\
        #!/bin/bash
        if exec 3<>/dev/tcp/127.0.0.1/{listener.port}; then echo "network: connected" >&2; else echo "network: refused" >&2; fi
        while read line; do
          case "$line" in
            *'"hello"'*) echo '{{"type": "hello", "protocol": 1}}' ;;
            *'"act"'*) echo '{{"type": "action", "action": "scan"}}' ;;
            *'"end"'*) echo '{{"type": "ready"}}' ;;
            *'"bye"'*) exit 0 ;;
          esac
        done
        """))
    program.chmod(0o755)
    record = _play(island, f"exec:{program}")
    assert "network: refused" in record.output and listener.connections == 0, record.output


def _in_sandbox(code: str, without: tuple[str, ...] = (), filtered: bool = True) -> subprocess.CompletedProcess:
    """`code` run by this interpreter in the agents' bubblewrap sandbox, less the options `without`;
    with the agents' limits and seccomp filter, or (not `filtered`) with neither, to try a
    namespace the filter would hide."""
    argv = [a for a in levels.launch([sys.executable, "-I", "-c", code], "sandbox", None, python=True).argv
            if a not in without]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          preexec_fn=(lambda: levels.set_limits(AgentLimits())) if filtered else None)


JAILED = textwrap.dedent('''\
    import json, os, socket, sys
    from treasure_cli.sandbox.warm_host import drop_capabilities, jail

    def connect():
        try:
            socket.create_connection(("127.0.0.1", PORT), timeout=2).close()
            return "connected"
        except OSError as exc:
            return type(exc).__name__
    before = connect()
    jail()
    child = os.fork()
    if child == 0:
        # Its own UTS namespace, owned by its own user namespace: it may name it (before its
        # capabilities are dropped); in the sandbox's, it could not.
        import ctypes
        named = ctypes.CDLL(None, use_errno=True).sethostname(b"jailed", 6)
        drop_capabilities()
        print(json.dumps({"before": before, "after": connect(), "pid": os.getpid(), "named": named,
                          "name": socket.gethostname()}))
        sys.stdout.flush()
        os._exit(0)
    os.waitpid(child, 0)
    ''')


def test_the_game_jail_alone_closes_the_network(listener):
    """In a sandbox that shares the machine's network (bubblewrap's layer taken away here), the
    agent connects before the jail and not after it."""
    done = _in_sandbox(JAILED.replace("PORT", str(listener.port)), without=("--unshare-net",))
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["before"] == "connected" and said["after"] != "connected", said
    assert said["pid"] == 1  # and its own PID namespace
    assert said["named"] == 0 and said["name"] == "jailed" != socket.gethostname(), said  # and UTS namespace
    assert listener.connections == 1


def test_bubblewrap_alone_closes_the_network(listener):
    done = _in_sandbox(f"import socket; socket.create_connection(('127.0.0.1', {listener.port}), timeout=2)")
    assert done.returncode != 0 and "Error" in done.stderr, done.stderr
    assert listener.connections == 0


# ---------------------------------------------------------------- the read-only binds
def _bound() -> list[str]:
    argv = levels.launch([sys.executable, "-I", "-c", "pass"], "sandbox", None, python=True).argv
    return [argv[i + 2] for i, a in enumerate(argv) if a == "--ro-bind"]


def test_every_bound_path_refuses_writes_with_erofs(tmp_path, island, route):
    paths = _bound()
    assert "/usr" in paths and len(paths) >= 3, paths
    spec = _python_agent(tmp_path, f'''\
        seen = {{}}
        own = [f for f in os.listdir("/agent")]
        for path in {paths!r} + ["/agent/" + f for f in own]:
            try:
                os.chmod(path, os.stat(path).st_mode & 0o7777)  # the same mode: harmless if it works
                seen[path] = "changed"
            except OSError as exc:
                seen[path] = errno.errorcode[exc.errno]
            if os.path.isdir(path):
                try:
                    os.close(os.open(os.path.join(path, "{TOKEN}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
                    os.unlink(os.path.join(path, "{TOKEN}"))
                    seen[path + "/new"] = "written"
                except OSError as exc:
                    seen[path + "/new"] = errno.errorcode[exc.errno]
        print("binds " + json.dumps(seen), file=sys.stderr)
        ''')
    record = _play(island, spec)
    line = [x for x in record.output.splitlines() if x.startswith("binds ")]
    assert line, record.output
    seen = json.loads(line[0][6:])
    assert any(p.startswith("/agent/") for p in seen), seen  # the agent's own file is bound too
    assert seen and all(v == "EROFS" for v in seen.values()), {p: v for p, v in seen.items() if v != "EROFS"}


# ---------------------------------------------------------------- the namespaces and limits a game has
def test_each_namespace_and_limit_of_a_jailed_game(tmp_path, island):
    """Seen from inside a game of the warm host: its own PID, IPC, UTS, mount, network and user
    namespaces (each differs from the warm host's, which it cannot see), no capability, and the
    limits the referee set. A Python agent's game is sealed (no socket, sandbox/seccomp.py), so
    the network namespace's interfaces are listed by an exec program's game, jailed alike."""
    spec = _python_agent(tmp_path, '''\
        import resource
        try:
            net = sorted(socket.if_nameindex())  # a socket: refused in a sealed game
        except OSError as exc:
            net = errno.errorcode[exc.errno]
        caps = [line.split()[1] for line in open("/proc/self/status").read().splitlines()
                if line.startswith("CapEff")] if os.path.exists("/proc/self/status") else ["no /proc"]
        libc = __import__("ctypes").CDLL(None, use_errno=True)
        said = {"pid": os.getpid(), "ppid": os.getppid(), "proc": os.listdir("/proc"),
                "sethostname": libc.sethostname(b"x", 1), "tmp": sorted(os.listdir("/tmp")),
                "uid": os.getuid(),
                "limits": {n: resource.getrlimit(getattr(resource, n))[0]
                           for n in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_CORE")},
                "net": net}
        print("ns " + json.dumps(said), file=sys.stderr)
        ''')
    record = _play(island, spec)
    program = tmp_path / f"{TOKEN}-net"
    program.write_text("#!/usr/bin/env python3\nimport json, socket, sys\n"
                       "print('net ' + json.dumps(sorted(socket.if_nameindex())), file=sys.stderr, flush=True)\n"
                       + (ROOT / "examples" / "plain_agent.py").read_text().split("\n", 1)[1])
    program.chmod(0o755)
    listed = _play(island, f"exec:{program}")
    assert len([p for p in agent_process._POOL.values() if p.forks]) == 2  # both games forked by warm hosts
    said = json.loads([x for x in record.output.splitlines() if x.startswith("ns ")][0][3:])
    limits = AgentLimits()
    assert said["pid"] == 1 and said["ppid"] == 0, said  # PID namespace of its own
    assert said["proc"] == [], said  # nothing of /proc (it would show the warm host)
    assert said["sethostname"] != 0, said  # UTS: no capability to change it (dropped in its user namespace)
    # mount namespace: an empty /tmp of its own, but for the mount points of the interpreter and the
    # package when they live under /tmp (a checkout cloned there: their folders are bound read-only)
    import treasure_cli

    bound = {Path(p).resolve().relative_to("/tmp").parts[0]
             for p in (sys.prefix, sys.executable, treasure_cli.__file__)
             if Path(p).resolve().is_relative_to("/tmp")}
    assert set(said["tmp"]) <= bound, (said, bound)
    assert said["net"] == "EPERM", said  # sealed: no socket
    net = [x for x in listed.output.splitlines() if x.startswith("net ")]
    assert net and json.loads(net[0][4:]) == [[1, "lo"]], listed.output  # network namespace: a loopback, nothing else
    assert said["limits"] == {"RLIMIT_AS": limits.memory, "RLIMIT_CPU": limits.cpu_seconds,
                              "RLIMIT_FSIZE": limits.file_size, "RLIMIT_NPROC": limits.processes,
                              "RLIMIT_NOFILE": limits.open_files, "RLIMIT_CORE": 0}, said
    if os.geteuid() == 0:
        assert said["uid"] != 0, said  # the sandbox's unprivileged user


def test_a_sandbox_made_without_root_leaves_its_root_and_dev_read_only(monkeypatch):
    """Without root, bubblewrap's root and /dev (tmpfs it makes) belong to the agent's user, and
    every game of a warm host shares them: they must be read-only. (Run here as a user would:
    the sandbox made with a user namespace, whose root owns those folders.)"""
    monkeypatch.setattr(levels.os, "geteuid", lambda: 1000)
    levels._launch.cache_clear()
    try:
        code = ("import errno, os\nfor d in ('/', '/dev', '/dev/shm'):\n"
                "    try:\n        open(os.path.join(d, 'mark'), 'w').close(); print(d, 'written')\n"
                "    except OSError as e:\n        print(d, errno.errorcode[e.errno])")
        argv = levels.launch([sys.executable, "-I", "-c", code], "sandbox", None, python=True).argv
    finally:
        levels._launch.cache_clear()
    assert "--unshare-user" in argv
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: levels.set_limits(AgentLimits()))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["/ EROFS", "/dev EROFS", "/dev/shm written"], done.stdout


@pytest.fixture
def machine_ipc():
    """A System V segment and a POSIX message queue of the machine's IPC namespace, open to all:
    (the segment's key, the queue's name)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    key = int(uuid.uuid4().hex[:7], 16)
    segment = libc.shmget(key, 4096, 0o1666)  # IPC_CREAT, readable and writable by all
    queue_name = f"/{TOKEN}".encode()
    queue = libc.mq_open(queue_name, os.O_CREAT | os.O_RDWR, 0o666, None)
    assert segment >= 0 and queue >= 0
    yield key, queue_name
    libc.shmctl(segment, 0, None)  # IPC_RMID
    libc.mq_close(queue)
    libc.mq_unlink(queue_name)


def test_no_system_v_object_of_the_machine_is_seen(tmp_path, island, route, machine_ipc):
    """Through each route, a game finds neither object: System V segments, queues and semaphores
    and POSIX message queues are refused to it (sandbox/seccomp.py: ENOSYS for mq_open), which
    hides the IPC namespaces behind them. Those are tried without the filter, each alone, in
    test_each_ipc_namespace_alone_hides_the_machines_objects."""
    key, queue_name = machine_ipc
    spec = _python_agent(tmp_path, f'''\
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        print("segment", libc.shmget({key}, 0, 0), file=sys.stderr)
        found = libc.mq_open({queue_name!r}, os.O_RDONLY, 0, None)
        print("queue", found if found < 0 else "found", errno.errorcode.get(ctypes.get_errno()), file=sys.stderr)
        ''')
    record = _play(island, spec)
    assert "segment -1" in record.output, record.output
    assert "queue -1 ENOSYS" in record.output, record.output


IPC_PROBE = textwrap.dedent('''\
    import ctypes, errno, json, os, sys
    libc = ctypes.CDLL(None, use_errno=True)

    def seen():
        said = {"segment": "found" if libc.shmget(KEY, 0, 0) >= 0 else errno.errorcode[ctypes.get_errno()]}
        queue = libc.mq_open(QUEUE, os.O_RDONLY, 0, None)
        said["queue"] = "found" if queue >= 0 else errno.errorcode[ctypes.get_errno()]
        return said
    before = seen()
    if JAIL:
        from treasure_cli.sandbox.warm_host import jail
        jail()
        child = os.fork()
        if child == 0:
            print(json.dumps({"before": before, "after": seen()}))
            sys.stdout.flush()
            os._exit(0)
        os.waitpid(child, 0)
    else:
        print(json.dumps({"before": before}))
    ''')


def test_each_ipc_namespace_alone_hides_the_machines_objects(machine_ipc):
    """Without the seccomp filter (which refuses the calls to a game, and so hides what stands
    behind it), in the agents' sandbox: bubblewrap's IPC namespace alone, and the game jail's in
    a sandbox that shares the machine's (where the objects are found before the jail)."""
    key, queue_name = machine_ipc
    probe = IPC_PROBE.replace("KEY", str(key)).replace("QUEUE", repr(queue_name))
    gone = {"segment": "ENOENT", "queue": "ENOENT"}
    done = _in_sandbox(probe.replace("JAIL", "False"), filtered=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"before": gone}, done.stdout  # bubblewrap's namespace
    done = _in_sandbox(probe.replace("JAIL", "True"), without=("--unshare-ipc",), filtered=False)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said == {"before": {"segment": "found", "queue": "found"}, "after": gone}, said  # the jail's


# ---------------------------------------------------------------- the PID namespace, each route alone
def test_a_game_sees_and_signals_no_process_outside_its_own(tmp_path, island, route):
    """Bubblewrap's PID namespace alone (a sandbox per game), or the jail's behind it (warm
    host): the agent neither finds the referee (this process) in /proc nor reaches it with
    kill(pid, 0), and the processes it sees are only its own few."""
    referee = os.getpid()
    spec = _python_agent(tmp_path, f'''\
        try:
            os.kill({referee}, 0)
            signalled = "reached"
        except OSError as exc:
            signalled = errno.errorcode[exc.errno]
        listed = sorted(int(p) for p in os.listdir("/proc") if p.isdigit()) if os.path.isdir("/proc") else []
        print("pids " + json.dumps({{"me": os.getpid(), "signal": signalled, "proc": listed,
                                     "referee": os.path.exists("/proc/{referee}")}}), file=sys.stderr)
        ''')
    record = _play(island, spec)
    line = [x for x in record.output.splitlines() if x.startswith("pids ")]
    assert line, record.output
    said = json.loads(line[0][5:])
    # ESRCH: no such process in its namespace (EPERM would mean it is there, only not its to signal).
    assert said["signal"] == "ESRCH" and not said["referee"], said
    assert said["me"] <= 3 and all(p <= 3 for p in said["proc"]), said  # bwrap's init, the agent (and its host)
