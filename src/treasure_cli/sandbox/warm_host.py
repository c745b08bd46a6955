"""A warm agent host that forks one fresh process for each game (Linux).

`python -I -m treasure_cli.sandbox.warm_host [--jail] SPEC` starts once per agent in
a worker (inside the agent's sandbox where there is one). It imports what
every Python agent needs (numpy, the rules, the host) and compiles a file
agent's source, but runs none of the agent's code: a game's process is a
fork of it, so it starts in milliseconds with a clean slate.
`... warm_host [--jail] --exec PROGRAM [ARGS...]` does the same for an `exec:`
agent: each game's process, once jailed, becomes the program (execv), which
saves a new sandbox for every game.

Nothing an agent did in one game (a module global, a file, a process, a
shared-memory segment) exists in its next game: each game's process is new,
and with `--jail` (the sandbox level) it also has namespaces of its own, made
here for each game:

* a user namespace, in which it holds no capability (they are dropped before
  the agent's code runs), so it cannot undo the rest;
* a PID namespace: it is process 1 of its own, and when it ends, the kernel
  ends every process it started; it cannot see or signal this host, and the
  PID numbers it sees say nothing about earlier games;
* a mount namespace with an empty private `/tmp` (its working folder) and
  `/dev/shm` (tmpfs of `TMP_BYTES`) and nothing in `/proc` (the sandbox's `/proc` would show this
  host, and bubblewrap's guards on it keep a fresh one from being mounted);
* IPC, network and UTS namespaces: no System V object, socket or host name
  carries over.

The referee talks to this host on a Unix socket (standard input): `hello`
(a Python agent's host answers `"islands": true`); `game`, answered with the
game's three pipe ends (SCM_RIGHTS: its standard input, output and error, made for it), and carrying the public island when it is
not the one the host holds (the `start` message's own copy, read here once for
the games on it, not in every game's process); `reap`, which
kills the game's process and all it started and answers once they are gone.
The game's process then speaks the ordinary agent protocol on its pipes
(sandbox/agent_host.py), for one game. docs/security.md states what this stops.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import re
import select
import signal
import socket
import sys
import time
from typing import Any

from treasure_cli.formats import json_lines  # not wire: a host of exec: agents needs neither the rules nor numpy

from treasure_cli.sandbox import counted, seccomp  # the game's own filters, once its jail is made
from treasure_cli.sandbox.levels import TMP_BYTES  # a game's private /tmp and /dev/shm, at most

# Linux's constants (linux/sched.h, linux/mount.h, linux/capability.h, linux/prctl.h)
_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
_CLONE_NEWUSER, _CLONE_NEWPID, _CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC = 1, 2, 4, 8, 0x1000, 0x4000
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER = 1, 4, 36
_CAP_VERSION_3 = 0x20080522
_KEYCTL = {"x86_64": 250, "aarch64": 219, "riscv64": 219, "ppc64le": 283, "s390x": 280}  # asm/unistd.h
_KEYCTL_JOIN_SESSION_KEYRING = 1


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


_libc: Any = None


def _lib() -> Any:
    """libc, loaded once."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def _sys(name: str, *args: Any) -> None:
    """Call libc's `name`; OSError with errno if it fails (returns anything but 0)."""
    if getattr(_lib(), name)(*args) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}{args[:1] if name == 'syscall' else ''}: {os.strerror(err)}")


def jail() -> None:
    """Namespaces of its own for this (single-threaded, just forked) process; see the module's text.
    The caller forks once more: its child is process 1 of the new PID namespace."""
    uid, gid = os.getuid(), os.getgid()
    _sys("prctl", _PR_SET_DUMPABLE, 1, 0, 0, 0)  # else its /proc files are root's, and it cannot write its maps
    _sys("unshare", _CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWPID | _CLONE_NEWIPC | _CLONE_NEWNET | _CLONE_NEWUTS)
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    size = f"size={TMP_BYTES},mode=1777".encode()
    # What the sandbox shows under /tmp (the interpreter or this package, when they live there)
    # is bound again on the game's own /tmp, from handles taken before it is covered.
    shown = [(path, os.open(path, os.O_PATH)) for path in _shown_under_tmp()]
    _sys("mount", b"tmpfs", b"/tmp", b"tmpfs", _MS_NOSUID | _MS_NODEV, size)
    for path, fd in shown:
        source = f"/proc/self/fd/{fd}"
        if os.path.isdir(source):
            os.makedirs(path, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "a").close()
        _sys("mount", source.encode(), path.encode(), None, _MS_BIND | _MS_REC, None)
        os.close(fd)
    if os.path.isdir("/dev/shm"):
        _sys("mount", b"tmpfs", b"/dev/shm", b"tmpfs", _MS_NOSUID | _MS_NODEV, size)
    _sys("mount", b"tmpfs", b"/proc", b"tmpfs", _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, b"size=4096,mode=555")
    # The working folder was the sandbox's /tmp, now covered but still this process's: shared by
    # every game of this host, it would carry a file written by a relative path to the next game.
    os.chdir("/tmp")
    # A session keyring of its own: the one it was born with is the host's (and the referee's
    # login session's, if it has one), writable by it and seen by the next game.
    keyctl = _KEYCTL.get(platform.machine())
    if keyctl is None:
        raise OSError(f"no keyctl system call known for {platform.machine()}: the game cannot have a keyring of its own")
    if _lib().syscall(keyctl, _KEYCTL_JOIN_SESSION_KEYRING, None) < 0:  # the new key's id
        err = ctypes.get_errno()
        raise OSError(err, f"keyctl(JOIN_SESSION_KEYRING): {os.strerror(err)}")


@functools.cache
def _shown_under_tmp() -> tuple[str, ...]:
    """The sandbox's mounts below /tmp, read once per process: a warm host reads them before it
    forks (`Zygote.prepare`), since its mount table does not change; reading them took ~0.9 ms of
    every jailed game's start."""
    return tuple(_mounts_under("/tmp"))


def _mounts_under(folder: str) -> list[str]:
    """The outermost mount points below `folder` (/proc/self/mountinfo's fifth field, octal escapes undone)."""
    points = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), line.split()[4])
            if point.startswith(folder.rstrip("/") + "/"):
                points.append(point)
    return [p for p in sorted(set(points)) if not any(p.startswith(q + "/") for q in points)]


def drop_capabilities() -> None:
    """No capability left, in any set: the namespaces' creator had them all in its user namespace."""
    header = _CapHeader(_CAP_VERSION_3, 0)
    data = (_CapData * 2)()
    _sys("capset", ctypes.byref(header), ctypes.byref(data))


PRECOMPUTED_TILES = 512 * 512  # up to this many tiles, an island's terrain masks are made here (a few MB)


class Zygote:
    """The host's side: one game's process at a time."""

    def __init__(self, spec: str, jailed: bool, control: socket.socket, program: list[str] | None = None):
        self.spec = spec
        self.program = program         # an exec: agent's command line (then `spec` is unused)
        self.jailed = jailed
        self.control = control
        self.code: Any = None          # a file agent's compiled source (compiled, never run, here)
        self.compile_error: str | None = None
        self.jail_error: str | None = None  # why a game's process cannot be jailed here, if it cannot
        self.game: int | None = None   # the game's process: the jail's outer process, or the game itself
        self.inner: int | None = None  # with a jail, its process 1 (as this namespace numbers it)
        self.exited: int | None = None # the game's exit status, once it ended by itself
        self.island: tuple[str, Any] | None = None  # (id, Island): the public island of the games to come

    def prepare(self) -> None:
        """Import what every game needs, and compile a file agent (its syntax errors are the game's to report)."""
        import gc

        if self.program is None:  # an exec: agent's games run a program: nothing of Python to warm
            self._prepare_python()
        if self.jailed:
            _shown_under_tmp()  # read here, before any fork: every game's jail has it then
            self.jail_error = _probe_jail()
        gc.collect()
        gc.freeze()  # what is here now stays shared with every game's process (no copy on write)

    def _prepare_python(self) -> None:
        from treasure_cli.agents import logic  # noqa: F401  # the agent API's modules, and what agents use most
        from treasure_cli.agents import registry
        from treasure_cli.sandbox import agent_host  # noqa: F401
        from treasure_cli.rules import hints

        _warm_up()
        hints.compile_patterns()  # every kind's, not only those the warm-up games met
        if registry.is_file_spec(self.spec):
            where = self.spec.strip().rpartition(":")[0]
            try:
                with open(where, "rb") as f:
                    self.code = compile(f.read(), where, "exec", dont_inherit=True)
            except (OSError, SyntaxError, ValueError, MemoryError, RecursionError) as exc:
                self.compile_error = f"agent {self.spec!r}: loading {where!r} raised {type(exc).__name__}: {exc}"

    def serve(self) -> int:
        reader = self.control.makefile("rb")
        for line in reader:
            try:
                message = json_lines.load_line(line)
                kind = message.get("type") if isinstance(message, dict) else None
            except ValueError:
                kind = None
            if kind == "hello":
                self._say({"type": "hello", "protocol": json_lines.PROTOCOL, "forks": True,
                           **({"islands": True} if self.program is None else {}),
                           **({"error": self.jail_error} if self.jail_error else {})})
            elif kind == "game":
                self._reap()
                if "island" in message and self.program is None:
                    self._read_island(message["island"])
                self._fork()
            elif kind == "reap":
                self._reap()
                # A game may leave sockets in flight that no process holds (an exec: program's; a
                # Python agent's is sealed, where the kernel can): how many descriptors its user still
                # has there, which the referee then waits to see collected and let go
                # (process.py, collect_in_flight).
                self._say({"type": "reaped", "in_flight": _in_flight()})
            elif kind == "status":
                wait = message.get("wait")
                self._say({"type": "status", "status": self._status(float(wait) if type(wait) is float else 0.0)})
            else:  # "bye", or anything the referee would not send
                break
        self._reap()
        return 0

    def _read_island(self, data: Any) -> None:
        """The next games' public island, read here once (the referee sends it when it changes):
        each game's process, forked from here, has it read, and its `start` message names it."""
        from treasure_cli.formats import wire

        self.island = None
        try:
            island = wire.decode_island(data)
            if island.width * island.height <= PRECOMPUTED_TILES:
                # Its terrain masks too: each game would compute them again, and write them into
                # this shared island's pages, copying them. (Not on a big map: they would take
                # much of every game's memory limit, used or not.)
                island.precompute()
            self.island = (str(data["id"]), island)
        except Exception:  # a game's host reads it from `start` then, and says what is wrong with it
            pass

    def _say(self, message: dict[str, Any], fds: list[int] | None = None) -> None:
        data = json_lines.dump_line(message)
        if fds:
            socket.send_fds(self.control, [data], fds)
        else:
            self.control.sendall(data)

    def _fork(self) -> None:
        # Three pipes made for this game and closed with it: its standard input, output and
        # error. Nothing of this host's own descriptors reaches the game (this host's standard
        # error, shared by every game, kept its flags, signal and size from one game to the next).
        if self.program is not None and self.jailed:
            seccomp.scatter()
        from_referee, to_game = os.pipe()
        from_game, to_referee = os.pipe()
        errors_from_game, errors_to_referee = os.pipe()
        inner_r, inner_w = os.pipe()  # a jail's process 1, as this namespace numbers it
        pid = os.fork()
        if pid == 0:
            try:
                self._game_process(from_referee, to_referee, errors_to_referee, inner_w)
            except BaseException:  # the host's own failure: said on the game's standard error
                import traceback

                traceback.print_exc()
            finally:
                os._exit(70)
        self.game = pid
        for fd in (inner_w, from_referee, to_referee, errors_to_referee):
            os.close(fd)
        try:
            said = os.read(inner_r, 32) if self.jailed else b""
        finally:
            os.close(inner_r)
        self.inner = int(said) if said.isdigit() else None
        self._say({"type": "game"}, [to_game, from_game, errors_from_game])
        for fd in (to_game, from_game, errors_from_game):
            os.close(fd)

    def _game_process(self, stdin: int, stdout: int, stderr: int, inner_w: int) -> None:
        """The fork's side, before any of the agent's code: its fds, its jail, then one game."""
        os.dup2(stdin, 0)
        os.dup2(stdout, 1)
        os.dup2(stderr, 2)
        os.dup2(inner_w, 3)
        os.closerange(4, os.sysconf("SC_OPEN_MAX"))  # the control socket, the referee's pipe ends
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        if not self.jailed:
            _wait_for_referee()
            os.close(3)
            os.setsid()
            _sys("prctl", _PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            _no_user_namespaces()
            if self.program is None:
                _seal()
            os._exit(self._play())
        jail()
        _no_user_namespaces()  # its own made, no more for the game (sandbox/seccomp.py)
        told_r, told_w = os.pipe()  # how a program under the jail's process 1 ended (see _init)
        child = os.fork()
        if child == 0:  # process 1 of its own PID namespace
            _wait_for_referee()
            os.close(3)
            os.close(told_r)
            os.setsid()  # a group of its own: kill(0) must not reach this host's group
            drop_capabilities()
            if self.program is not None:
                os._exit(_init(self.program, told_w))
            os.close(told_w)  # a Python agent's host ends as its game does: nothing to tell
            _seal()
            os._exit(self._play())
        os.close(told_w)
        os.write(3, str(child).encode())
        for fd in (0, 1, 2, 3):  # the game's pipes are the game's alone: they close when it ends
            os.close(fd)
        while True:  # waits for its game and ends with it; the host kills the game through `inner`
            try:
                _, status = os.waitpid(child, 0)
            except ChildProcessError:
                os._exit(0)
            code = os.waitstatus_to_exitcode(status)
            os.set_blocking(told_r, False)  # (its writers are gone with the namespace)
            try:
                told = os.read(told_r, 16)
            except BlockingIOError:
                told = b""
            if told.lstrip(b"-").isdigit():
                code = int(told)
            if code < 0:  # end the same way, so that the host can say how the game's process ended
                if -code not in (signal.SIGKILL, signal.SIGSTOP):  # (their handlers cannot be set)
                    signal.signal(-code, signal.SIG_DFL)
                os.kill(os.getpid(), -code)
            os._exit(code & 0xFF)

    def _play(self) -> int:
        if self.program is not None:
            return self._exec(self.program)
        from treasure_cli.sandbox import agent_host

        return agent_host.main([self.spec], code=self.code, compile_error=self.compile_error, island=self.island)

    @staticmethod
    def _exec(program: list[str]) -> int:
        """Become an exec: agent's program (standard input and output: the game's pipes). As
        subprocess starts a program: the signals Python ignores are the program's defaults again."""
        if hasattr(signal, "SIGXFSZ"):  # (SIGPIPE is set back for every game's process)
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        try:
            os.chdir(os.path.dirname(program[0]) or ".")  # its own folder, beside its files (sandbox/launch.py)
            os.execv(program[0], program)
        except OSError as exc:
            os.write(2, f"cannot start the agent ({program[0]}): {exc.strerror}\n".encode(errors="replace"))
        return 127

    def _status(self, wait: float) -> int | None:
        """The game's exit status, Popen's way, if it ends within `wait` seconds by itself; else None."""
        if self.game is None or self.exited is not None:
            return self.exited
        until = time.monotonic() + min(wait, 2.0)
        while True:
            pid, status = os.waitpid(self.game, os.WNOHANG)
            if pid:
                self.exited = os.waitstatus_to_exitcode(status)
                return self.exited
            if time.monotonic() >= until:
                return None
            time.sleep(0.005)

    def _reap(self) -> None:
        """End the game's process and everything it started; return once they are gone."""
        if self.game is None:
            return
        # A jail's process 1: its namespace dies with it, and the jail's outer process, which
        # waits for it, ends only once all of it is gone (killed first, the outer process
        # would leave the jail to finish dying on its own).
        try:
            os.kill(self.inner if self.inner is not None else self.game, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if not self.jailed:
            try:
                os.killpg(self.game, signal.SIGKILL)  # its session's group
            except (ProcessLookupError, PermissionError):
                pass
        if self.exited is None:
            try:
                os.waitpid(self.game, 0)
            except ChildProcessError:
                pass
        if not self.jailed:  # a process that left the game's group came to this subreaper: end it too
            _reap_orphans()
        self.game = self.inner = self.exited = None


def _in_flight() -> int:
    """How many descriptors this user has in flight on Unix sockets (those the kernel counts against
    its open-file limit): sent here one at a time until refused, then let go. -1 if it cannot tell.

    A socket's send buffer holds a few hundred such messages: past that a blocking send would wait
    for ever (a host with 1,024 open files stalled its reap until the referee's 5 s ran out), so the
    sockets do not block, and a full one is followed by a new pair."""
    import array
    import errno
    import resource

    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if limit == resource.RLIM_INFINITY or limit > 4096:
        return -1
    pairs: list[tuple[socket.socket, socket.socket]] = []
    sending: socket.socket | None = None
    sent, null = 0, -1
    try:
        null = os.open(os.devnull, os.O_RDONLY)  # (not a socket: nothing for the kernel's collector)
        while sent <= limit:
            if sending is None:
                if len(pairs) == 64:
                    return -1
                pairs.append(socket.socketpair())
                sending = pairs[-1][0]
                sending.setblocking(False)
            try:
                sending.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [null]))])
            except BlockingIOError:
                sending = None  # its buffer is full: the next send goes to a new pair
                continue
            sent += 1
    except OSError as exc:
        if exc.errno != errno.ETOOMANYREFS:
            return -1
    finally:
        if null >= 0:
            os.close(null)
        for mine, theirs in pairs:
            theirs.close()  # its queue, and the descriptors in it, let go
            mine.close()
    return limit + 1 - sent


def _wait_for_referee() -> None:
    """Nothing of the agent's runs before the referee's first message on standard input: the
    referee puts the game's processes in the game's control groups first (its memory, its
    CPUs; sandbox/cgroups.py), where there are some."""
    waiting = select.poll()
    waiting.register(0, select.POLLIN)
    while not waiting.poll():
        pass


def _no_user_namespaces() -> None:
    try:
        seccomp.refuse_user_namespaces()
    except OSError:
        pass  # a kernel without seccomp: `treasure doctor` says so


def _seal() -> None:
    """A Python agent's game makes no pipe or socket (sandbox/seccomp.py): each would take a
    number from the machine's one counter, which the next game reads from its own pipes."""
    try:
        seccomp.seal()
    except OSError:
        pass  # a kernel without seccomp: `treasure doctor` says so


def _init(program: list[str], told: int) -> int:
    """Process 1 of a jail whose game is an exec: program: the program runs as its child.

    Process 1 of a PID namespace cannot be ended by a signal sent from inside it, its own
    included, unless it handles that signal; so a program that is process 1 and calls abort()
    (a failed assert, an uncaught C++ exception such as std::bad_alloc at the memory limit)
    would survive its SIGABRT and die of the SIGSEGV glibc's last resort raises, reported as
    a crash. Here the program dies of its own signal; this process reaps whatever it leaves,
    writes how it ended to `told` for the jail's outer process (which ends the same way for
    the host to see: this one could not) and ends, and the namespace with it."""
    code = counted.run(program)
    if code is not None:
        os.write(told, str(code).encode())
    return 0 if code is None else code & 0xFF


def _warm_up(games: int = 3) -> None:
    """Play a few games of the built-in `logic` on made-up islands through the host's own
    decoding, here, so that what every game's process runs (the host, the rules' decoding,
    the agent API's modules, numpy) is warm when it is forked: Python specialises bytecode as
    it runs it, and a process forked from a host that never ran it would start cold every game
    (each action ~3-6 times slower at first). Our own code on invented games: no agent's code,
    nothing of any real game."""
    import io

    import numpy as np

    from treasure_cli.formats import wire
    from treasure_cli.islands.generator import generate_island
    from treasure_cli.sandbox.agent_host import _Host
    from treasure_cli.rules.game import Game

    out = io.BytesIO()
    host = _Host("logic", out)
    host.load()
    for seed in range(games):
        island = generate_island(24, 24, rng=np.random.default_rng(seed))
        public = island.public()
        game = Game(island, seed + 1, agent_name="warm-up")
        game.start()
        host.handle({"type": "start", "seed": seed, "island": wire.encode_island(public),
                     "options": {"truth_rate": game.truth_rate, "max_turns": game.max_turns}})
        while game.result is None:
            obs = game.observe()
            out.seek(0)
            out.truncate()
            host.handle({"type": "act", "turn": obs.turn, "actions_left": obs.actions_left,
                         "position": list(obs.position), "teleport_used": obs.teleport_used,
                         "news": [wire.encode_event(e, public, False) for e in obs.news]})
            game.step(wire.decode_action(wire.load_line(out.getvalue())))
        host.handle({"type": "end"})


def _probe_jail() -> str | None:
    """Why `jail` fails here (no user namespaces inside this sandbox, say), or None if it works."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            jail()
            drop_capabilities()
            os._exit(0)
        except BaseException as exc:
            os.write(w, str(exc).encode()[:500])
            os._exit(1)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        said = f.read().decode(errors="replace")
    _, status = os.waitpid(pid, 0)
    return None if os.waitstatus_to_exitcode(status) == 0 else (said or "the jail's process failed")


def _reap_orphans() -> None:
    from treasure_cli.sandbox.process import _children  # the referee's reading of /proc

    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            for child in _children(os.getpid()):
                try:
                    os.kill(child, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if not _children(os.getpid()):
                return


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    jailed = bool(args) and args[0] == "--jail"
    args = args[1:] if jailed else args
    program = args[1:] if args[:1] == ["--exec"] else None
    if (len(args) != 1 and program is None) or program == []:
        print("usage: python -m treasure_cli.sandbox.warm_host [--jail] (SPEC | --exec PROGRAM [ARGS...])", file=sys.stderr)
        return 2
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # only the referee ends it (SIGKILL, or its socket closing)
    _sys("prctl", _PR_SET_DUMPABLE, 0, 0, 0, 0)  # no game's process may read or trace this one
    _sys("prctl", _PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if not jailed:
        _sys("prctl", _PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    control = socket.socket(fileno=os.dup(0))
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    zygote = Zygote(args[0] if program is None else "", jailed, control, program)
    zygote.prepare()
    return zygote.serve()


if __name__ == "__main__":
    sys.exit(main())
