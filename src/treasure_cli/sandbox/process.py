"""The referee's side of an agent in another process: start it, talk to it, time it, end it.

An `AgentProcess` is one running agent (sandboxed or not) speaking the agent
protocol (docs/agent-protocol.md). A worker keeps one per agent command and
reuses it for that agent's games while it behaves; any failure kills it and
its whole process tree, and the next game starts a fresh one. The referee
keeps every time limit itself: a reply is waited for until the action's or
the game's deadline, whichever comes first, and never longer.

A `ProcessAgent` is what the game loop sees: an agent with `reset` and `act`,
whose `act` sends the news since the last action and decodes the reply.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from treasure_cli.agents.tracebacks import fatal_error
from treasure_cli.errors import AgentCrashError, AgentError
from treasure_cli.formats import wire
from treasure_cli.sandbox import seccomp
from treasure_cli.sandbox.cgroups import GameGroup, remove_bases
from treasure_cli.sandbox.game_memory import COUNTS, THOROUGH, WATCH_SECONDS, held
from treasure_cli.sandbox.pacing import Pace, hold
from treasure_cli.sandbox.levels import COUNTED, FORKS, AgentLimits, Launch, set_limits, unforked
from treasure_cli.rules.events import EndReason, Event, GameEnded
from treasure_cli.rules.island import Island
from treasure_cli.rules.observation import Note, Observation

MAX_LINE = 1 << 20        # bytes of one message from an agent
HELLO_SECONDS = 30.0      # to start and answer hello (an interpreter and numpy on a busy machine)
READY_SECONDS = 1.0       # to answer `end`: an agent has nothing to do then, and one that stalls
                          # here (it is killed after, with no failure) would add this to every game
REAP_SECONDS = 5.0        # for a warm host to end a game's processes (a SIGKILL and a wait)
RECYCLE_SECONDS = 120.0   # a process that has thought this long is replaced (its CPU limit is cumulative; not a warm host)
HOST_CHECK_GAMES = 64     # a warm host's own CPU time is read every this many games (`acquire`)
SPIN_SECONDS = 0.0005     # how long a wait for an answer polls before it sleeps, the agent on a core of its own


class AgentTimeout(AgentError):
    """The agent did not answer within its action's or its game's time."""

    kind = "game-timeout"


class ActionTimeout(AgentTimeout):
    kind = "action-timeout"


class ProtocolBreach(AgentError):
    """The agent said something the protocol does not allow, or stopped talking."""

    kind = "protocol"


class AgentDied(AgentError):
    """The agent's process ended during its game (a crash, a limit, a signal)."""

    kind = "agent-died"


def _last_words(output: bytes | bytearray) -> str:
    """The end of what a dead agent printed, for its error: a Python host's fatal-error report
    (its frames, the host's and the interpreter's included) said in one line."""
    text = output.decode("utf-8", errors="replace")
    fatal = fatal_error(text)
    if fatal is not None:
        before, summary = fatal
        text = (before.rstrip() + "\n" if before.strip() else "") + summary
    return text.strip()[-600:]


def _exit_cause(code: int | None) -> str:
    if code is None:
        return "it stopped answering"
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        why = {"SIGXCPU": " (its CPU time limit)", "SIGKILL": "", "SIGSEGV": " (a crash)",
               "SIGXFSZ": " (its file size limit)",
               "SIGABRT": " (it aborted: a failed assert, or an uncaught exception such as C++'s "
                          "std::bad_alloc at the memory limit)"}.get(name, "")
        return f"its process was killed by {name}{why}"
    return f"its process exited with status {code}"


class AgentProcess:
    """One agent's running process and its two pipes (and its standard error, kept per game)."""

    def __init__(self, launch: Launch, limits: AgentLimits, label: str):
        self.launch = launch
        self.limits = limits
        self.label = label
        self.thought = 0.0          # seconds spent waiting for its answers, over its games
        self.heard = 0.0            # time.perf_counter() when its last message came (steady replies count from it)
        self.spin = 0.0             # seconds each wait polls before it sleeps (set per game by `Cores`)
        self.pinned: int | None = None  # the core `Cores` gave it for good (a pool worker's), if any
        self.output = bytearray()   # its standard error since the game started (up to limits.output)
        self.dropped = 0            # bytes of standard error beyond that
        self._buffer = bytearray()  # bytes of standard output not yet a whole line
        self._err_done = False      # its standard error is closed (or ours is)
        self.forks = launch.forks   # a warm host: each game is a fresh process it forks (sandbox/warm_host.py)
        self._control: socket.socket | None = None  # the warm host's socket
        self._said = bytearray()    # bytes from it not yet a whole line
        self.in_game = False        # a warm host's game process is there, its pipes in _in and _out
        self._host_island = ""      # the id of the public island the warm host holds, if any
        self._takes_islands = False # the warm host reads islands ahead (a Python agent's host does)
        self.games = 0              # games a warm host has forked a process for
        self.cpus: set[int] | None = None  # the CPUs `Cores` gave its games (None: the referee's own)
        # The game's control groups (sandbox/cgroups.py), where the machine has them: a warm
        # host's are made for each game; any other process plays one game, in its own from its start.
        self.group: GameGroup | None = None
        self._oom = -1  # its group's signal of a process of the game killed at its memory limit (-1: none)
        # Without a memory group: the game's first process, whose tree the referee counts while it
        # waits (sandbox/game_memory.py), and when it counts next.
        self._watched: int | None = None
        self._watch_at = 0.0
        self._counts = 0            # counts made of the watched game (each `THOROUGH`th reads all it can)
        started = time.perf_counter()
        theirs = None
        if self.forks:
            self._control, theirs = socket.socketpair()
        else:
            self.group = self._new_group()
        group = self.group

        # No user namespace for the game's own code (sandbox/seccomp.py): set here where nothing
        # after it makes one (`process`; bubblewrap as root, which makes none); a warm host's game
        # sets it once its jail is made, and bubblewrap without root gets --disable-userns.
        no_namespaces = not launch.forks and (launch.level == "process" or launch.uid is not None)

        def prepare() -> None:  # in the child, before its program: its limits, its group
            set_limits(limits)
            if no_namespaces:
                try:
                    seccomp.refuse_user_namespaces()
                except OSError:
                    pass  # a kernel without seccomp: `treasure doctor` says so
            if group is not None:
                group.enter()

        if COUNTED in launch.argv:  # an exec: program's game: a count drawn before its pipes are made (seccomp.py)
            seccomp.scatter()
        try:
            self.proc = subprocess.Popen(
                launch.argv, stdin=theirs.fileno() if theirs else subprocess.PIPE,
                stdout=subprocess.DEVNULL if theirs else subprocess.PIPE, stderr=subprocess.PIPE,
                env=dict(launch.env), cwd=launch.cwd, close_fds=True, start_new_session=True,
                preexec_fn=prepare)
        except (OSError, subprocess.SubprocessError) as exc:
            if self._control is not None:
                self._control.close()
            self._close_group()
            raise AgentCrashError(0, f"cannot start the agent ({launch.argv[0]}): {exc}") from None
        finally:
            if theirs is not None:
                theirs.close()
        self._err = self.proc.stderr.fileno()  # type: ignore[union-attr]  # PIPE
        self._host_err = self._err  # a warm host's own standard error; `_err` is its game's during a game
        self._in = self._out = -1
        os.set_blocking(self._err, False)
        self._poller = select.poll()
        self._poller.register(self._err, select.POLLIN)
        self._hear_oom()
        if not self.forks:
            self._pipes(self.proc.stdin.fileno(), self.proc.stdout.fileno())  # type: ignore[union-attr]  # PIPE
            self._watch(self.proc.pid)
        try:
            self._host_hello() if self.forks else self._hello()
        except BaseException:
            self.kill()
            raise
        self.start_seconds = time.perf_counter() - started
        self.agent_pid: int | None = None
        self.leftovers()

    def _pipes(self, into: int, out: int) -> None:
        """The game's two pipes: its standard input and output."""
        self._in, self._out = into, out
        for fd in (into, out):
            os.set_blocking(fd, False)
        self._poller.register(out, select.POLLIN)
        self._buffer.clear()

    # ------------------------------------------------------------ a warm host's games
    def _ask(self, message: dict[str, Any], deadline: float) -> tuple[dict[str, Any], list[int]]:
        """One exchange with the warm host over its socket: its answer, and the fds that came with it."""
        control = self._control
        assert control is not None
        fds: list[int] = []
        try:
            control.settimeout(max(deadline - time.monotonic(), 0.001))
            control.sendall(wire.dump_line(message))
            while b"\n" not in self._said:
                data, got, _, _ = socket.recv_fds(control, 4096, 3)
                fds += got
                if not data:
                    raise OSError("its socket closed")
                self._said += data
        except OSError as exc:  # a time out too (socket.timeout is an OSError)
            for fd in fds:
                os.close(fd)
            self._drain_stderr()
            if self._err != self._host_err:  # the host's own last words are on its own standard error
                with contextlib.suppress(OSError):
                    self.output += os.read(self._host_err, 1 << 16)[:max(self.limits.output - len(self.output), 0)]
            said = _last_words(self.output)
            raise AgentDied(0, f"the agent's host stopped answering ({exc or 'time out'})"
                            + (f"; it said: {said}" if said else "")) from None
        end = self._said.index(b"\n")
        line = bytes(self._said[:end])
        del self._said[:end + 1]
        return wire.load_line(line), fds

    def _host_hello(self) -> None:
        from treasure_cli.version import __version__

        hello, _ = self._ask({"type": "hello", "protocol": wire.PROTOCOL, "program": f"treasure-cli {__version__}"},
                             time.monotonic() + HELLO_SECONDS)
        if hello.get("type") != "hello" or hello.get("protocol") != wire.PROTOCOL:
            raise ProtocolBreach(0, f"the agent's host answered hello with {_said(hello)}")
        if hello.get("error"):
            raise NoJail(0, str(hello["error"]))
        self._takes_islands = hello.get("islands") is True

    def begin_game(self, deadline: float, island: Island | None = None) -> None:
        """A warm host's fresh process for the next game, greeted (a no-op for any other process).

        `island`, the game's public island, goes to the host when it is not the one it has
        already: the host reads it once and forks each game's process with it read, where
        every game's host would otherwise read it again from the `start` message."""
        if not self.forks or self.in_game:
            return
        message: dict[str, Any] = {"type": "game"}
        if island is not None and self._takes_islands and island.digest != self._host_island:
            message["island"] = wire.encode_island(island)  # (memoised per island; refuses a treasure)
            self._host_island = island.digest
        self.games += 1
        reply, fds = self._ask(message, deadline)
        if reply.get("type") != "game" or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            raise AgentDied(0, f"the agent's host answered game with {_said(reply)}")
        self._pipes(fds[0], fds[1])
        self._errors_from(fds[2])
        self.in_game = True
        self._place_game()
        self._hello()

    def _new_group(self) -> GameGroup | None:
        try:
            group = GameGroup(self.limits.memory, self.cpus)
        except OSError as exc:
            raise AgentDied(0, f"cannot make the game's control group: {exc}") from None
        return group if group.folders else None

    def _place_game(self) -> None:
        """The game's process, forked by the warm host and waiting for its first message
        (warm_host.py: no code of the agent's runs before it), put in a group of its own."""
        self.group = self._new_group()
        hosts = self.pids()
        game = _children(hosts[0]) if hosts else []
        self._watch(game[0] if len(game) == 1 else None)  # (where no memory group holds it)
        if self.group is None:
            return
        self._hear_oom()
        try:
            if len(game) != 1:
                raise OSError(f"the warm host has {len(game)} processes, not the game's one")
            for pid in [game[0], *_descendants(game[0])]:  # (a jail's outer process and its process 1)
                self.group.add(pid)
        except OSError as exc:
            self.kill_game()
            raise AgentDied(0, f"cannot put the game's process in its control group: {exc}") from None

    def pin(self, cpus: set[int]) -> None:
        """The CPUs its games run on: their control group's, where there is one (its processes
        cannot leave it), as well as their affinity (which they could widen)."""
        self.cpus = set(cpus)
        if self.group is not None:
            with contextlib.suppress(OSError):
                self.group.set_cpus(self.cpus)

    def _hear_oom(self) -> None:
        """Wait on the game's group's memory-limit signal too, where it gives one (v1)."""
        fd = self.group.oom_events() if self.group is not None else None
        if fd is not None:
            self._oom = fd
            self._poller.register(fd, select.POLLIN)

    def _close_group(self) -> None:
        if self._oom >= 0:
            with contextlib.suppress(KeyError, ValueError):
                self._poller.unregister(self._oom)
            self._oom = -1
        if self.group is not None:
            self.group.close()
            self.group = None

    def end_game(self) -> bool:
        """End a warm host's game process and all it started (a no-op for any other process);
        True once they are gone and the host is ready for the next game."""
        if not self.forks or not self.in_game:
            return True
        self._close_game()
        try:
            reply, _ = self._ask({"type": "reap"}, time.monotonic() + REAP_SECONDS)
        except AgentError:
            return False
        finally:
            self._close_group()
        if reply.get("in_flight") != 0:  # what the game's user still has in flight (-1: the host cannot tell)
            collect_in_flight(let_go=True)
        return reply.get("type") == "reaped" and not self.leftovers()

    def _watch(self, root: int | None) -> None:
        """Count the memory of `root`'s tree while waiting for the game, where no memory group
        holds it (a group without `memory`: the machine gives cpuset alone)."""
        if COUNTS and (self.group is None or "memory" not in self.group.folders):
            self._watched = root
            self._watch_at = time.monotonic() + WATCH_SECONDS
            self._counts = 0

    def _count_memory(self, turn: int) -> None:
        """End the game once its processes hold more than its memory limit (sandbox/game_memory.py)."""
        root, now = self._watched, time.monotonic()
        if root is None or now < self._watch_at:
            return
        self._watch_at = now + WATCH_SECONDS
        usage = held([root, *_descendants(root)], self.limits.file_size, self._counts % THOROUGH == 0)
        self._counts += 1
        if usage > self.limits.memory:
            self._watched = None
            self._drain_stderr()
            self.kill_game()
            raise AgentDied(turn, f"the agent's processes held {usage >> 20} MiB, past its game's memory limit "
                                  f"({self.limits.memory >> 20} MiB for all its processes, counted every "
                                  f"{WATCH_SECONDS * 1000:g} ms)")

    def _close_game(self) -> None:
        self.in_game = False
        self._watched = None
        for fd in (self._in, self._out):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        with contextlib.suppress(KeyError, ValueError):
            self._poller.unregister(self._out)
        self._in = self._out = -1
        if self._err != self._host_err:  # the game's own standard error: what is left of it read, then closed
            self._drain_stderr()
            game_err = self._err
            self._errors_from(self._host_err)
            with contextlib.suppress(OSError):
                os.close(game_err)

    def _errors_from(self, fd: int) -> None:
        """Read the agent's standard error from `fd` now: its game's own pipe, or the warm host's."""
        with contextlib.suppress(KeyError, ValueError):
            self._poller.unregister(self._err)
        self._err, self._err_done = fd, False
        with contextlib.suppress(OSError):
            os.set_blocking(fd, False)
            self._poller.register(fd, select.POLLIN)

    def game_status(self) -> int | None:
        """A warm host's game process's exit status, Popen's way, once it ended by itself (None: it runs)."""
        try:
            reply, _ = self._ask({"type": "status", "wait": 0.5}, time.monotonic() + 2)
        except AgentError:
            return None
        status = reply.get("status")
        return status if type(status) is int else None

    def _hello(self) -> None:
        from treasure_cli.version import __version__

        self.send({"type": "hello", "protocol": wire.PROTOCOL, "program": f"treasure-cli {__version__}"},
                  time.monotonic() + HELLO_SECONDS, 0)
        hello = self.receive(time.monotonic() + HELLO_SECONDS, 0, None)
        if hello.get("type") != "hello":
            raise ProtocolBreach(0, f"the agent answered hello with {_said(hello)}")
        said = hello.get("protocol")
        if type(said) is not int or said != wire.PROTOCOL:  # (true and 1.0 equal 1 in Python)
            raise ProtocolBreach(0, f"the agent speaks protocol {wire.as_sent(said, 20)}, this program {wire.PROTOCOL}")
        tiles = hello.get("tiles", True)
        if type(tiles) is not bool:
            raise ProtocolBreach(0, f"the agent's hello has \"tiles\": {wire.as_sent(tiles, 20)}; it is true or false")
        self.tiles = tiles  # whether it wants each hint's tile set

    # ------------------------------------------------------------ the pipes
    def alive(self) -> bool:
        return self.proc.poll() is None

    def host_cpu_seconds(self) -> float | None:
        """The CPU time a warm host has used itself (its forks, reaps and islands, not its games'),
        or None if it cannot be read. Its CPU limit (RLIMIT_CPU) covers its whole life."""
        pids = self.pids()
        if not self.forks or not pids:
            return None
        try:
            with open(f"/proc/{pids[0]}/stat", "rb") as f:
                fields = f.read().rpartition(b")")[2].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
        except (OSError, ValueError, IndexError):
            return None

    def spent(self) -> bool:
        """Whether to replace this process before its next game: dead, or near a limit that
        covers its whole life (then its next game could fail for what its earlier ones used)."""
        if not self.alive():
            return True
        # The time it spent thinking, which the agent chooses, counts only where its games share a
        # process: a warm host's games are processes of their own, each with its own CPU time, and
        # a host replaced when its games had thought 120 s showed its next game a new sandbox (the
        # machine's mount count moved by bubblewrap's mounts too, and the game ran on another CPU).
        if not self.forks and self.thought > RECYCLE_SECONDS:
            return True
        if self.forks and self.games % HOST_CHECK_GAMES == 0 and self.games:
            cpu = self.host_cpu_seconds()
            return cpu is not None and cpu > self.limits.cpu_seconds / 2
        return False

    def send(self, message: dict[str, Any], deadline: float, turn: int) -> None:
        self.write(wire.dump_line(message), deadline, turn)

    def write(self, lines: bytes, deadline: float, turn: int) -> None:
        """Messages already made into lines, written whole."""
        data = memoryview(lines)
        while data:
            try:
                n = os.write(self._in, data)
            except BlockingIOError:
                n = 0
            except OSError:
                raise self._gone(turn, "it closed its input") from None
            data = data[n:]
            if data:  # its input pipe is full: wait for room (a large island), draining its stderr meanwhile
                self._wait(deadline, turn, None, write=True)

    def receive(self, deadline: float, turn: int, action_deadline: float | None) -> dict[str, Any]:
        """The agent's next message; AgentError if it does not come, in time and well formed."""
        spun = False
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                if not line.strip():
                    continue
                try:
                    message = wire.load_line(line)
                except ValueError:
                    text = wire.as_sent(line[:200].decode("utf-8", "replace"))
                    raise ProtocolBreach(turn, f"the agent wrote a line that is not JSON: {text}") from None
                if not isinstance(message, dict):
                    raise ProtocolBreach(turn, f"the agent wrote {wire.as_sent(message)}, not a JSON object")
                if message.get("type") == "error":
                    said = message.get("turn")
                    at = said if type(said) is int and 0 <= said <= turn else turn  # 0: before its first action
                    raise AgentCrashError(at, str(message.get("message"))[:2000],
                                          ) from _AgentTraceback(str(message.get("traceback") or "")[:8000])
                self.heard = time.perf_counter()
                return message
            if len(self._buffer) > MAX_LINE:
                raise ProtocolBreach(turn, f"the agent wrote a line longer than {MAX_LINE} bytes")
            if self._watched is not None:  # (an answer within the spin never reaches _wait)
                self._count_memory(turn)
            if spun or not self._spin(deadline, action_deadline):  # poll a moment first, then sleep
                self._wait(deadline, turn, action_deadline)
            spun = True

    def _spin(self, deadline: float, action_deadline: float | None) -> bool:
        """Read its output for up to `self.spin` seconds before sleeping on it; True if something came.

        Only when the agent has a core of its own (`Cores`): most answers come within that
        time, and a process woken from sleep costs ~50 µs on a virtual machine, most of an
        action's overhead. On a shared core it would only keep the agent from its work.
        """
        if not self.spin:
            return False
        end = min(time.monotonic() + self.spin, deadline,
                  action_deadline if action_deadline is not None else math.inf)
        while True:
            try:
                chunk = os.read(self._out, 1 << 16)
            except BlockingIOError:
                if time.monotonic() >= end:
                    return False
                continue
            if not chunk:
                return False  # its end of the pipe closed: _wait says how
            self._buffer += chunk
            return True

    def _wait(self, deadline: float, turn: int, action_deadline: float | None, write: bool = False) -> None:
        """Wait for its output (or, with `write`, room in its input) until the deadline; keep what
        comes. One poll(2) object for the two pipes: the hot path of every action."""
        until = deadline if action_deadline is None or deadline < action_deadline else action_deadline
        left = until - time.monotonic()
        if left <= 0:
            raise self._late(turn, action_deadline is not None and action_deadline <= deadline)
        timeout = None if left == math.inf else left * 1000.0  # inf: a game being watched, its actions timed
        if self._watched is not None:
            self._count_memory(turn)
            timeout = WATCH_SECONDS * 1000.0 if timeout is None else min(timeout, WATCH_SECONDS * 1000.0)
        poller = self._poller
        if write:
            poller = select.poll()
            poller.register(self._in, select.POLLOUT)
            if not self._err_done:
                poller.register(self._err, select.POLLIN)
        for fd, _ in poller.poll(timeout):
            if fd == self._out:
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise self._gone(turn, "it closed its output")
                self._buffer += chunk
            elif fd == self._err:
                self._drain_stderr()
            elif fd == self._oom:  # a process of the game was killed at its memory limit: the game ends
                raise self._gone(turn, "its game reached its memory limit", oom=True)

    def _drain_stderr(self) -> None:
        if self._err_done:
            return
        try:
            chunk = os.read(self._err, 1 << 16)
        except (BlockingIOError, OSError):
            return
        if not chunk:
            self._err_done = True
            with contextlib.suppress(KeyError, ValueError):
                self._poller.unregister(self._err)
            return
        room = self.limits.output - len(self.output)
        self.output += chunk[:max(room, 0)]
        self.dropped += max(len(chunk) - max(room, 0), 0)

    def _late(self, turn: int, action: bool) -> AgentError:
        self.kill_game()
        if action:
            return ActionTimeout(turn, f"the agent ran past its {self.limits.action_timeout:g} s action limit")
        return AgentTimeout(turn, "the game ran past its time limit")

    def _gone(self, turn: int, what: str, oom: bool = False) -> AgentError:
        """The error for a game whose process is gone or going; `oom`: a process of it was killed
        at its memory limit, and the referee ends the rest now (killed by SIGKILL)."""
        oom = oom or (self.group is not None and self.group.oom_killed())
        if oom:
            self.kill_game()
        if self.forks:
            code = self.game_status()
        else:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=0.5)
            code = self.proc.poll()
        if oom and code is None:
            code = -signal.SIGKILL
        self._drain_stderr()
        limit = f" at its game's memory limit ({self.limits.memory >> 20} MiB for all its processes)" if oom else ""
        if not oom:  # (ended above)
            self.kill_game()
        if code is None:
            return ProtocolBreach(turn, f"the agent stopped talking: {what}")
        said = _last_words(self.output)
        return AgentDied(turn, f"the agent's process ended: {_exit_cause(code)}{limit}"
                         + (f"; it said: {said}" if said else ""))

    def take_output(self) -> str:
        """Its standard error since the last call (what it printed during one game)."""
        self._drain_stderr()
        text = self.output.decode("utf-8", errors="replace")
        if self.dropped:
            text += f"\n[{self.dropped} more bytes not kept]"
        self.output, self.dropped = bytearray(), 0
        return text

    # ------------------------------------------------------------ its processes
    def kill_game(self) -> None:
        """End the game's process and all it started: with a warm host, only those; else all."""
        if not self.forks or not self.end_game():
            self.kill()

    def pids(self) -> list[int]:
        """The agent's own process: the one that answers, or the warm host that forks it (inside
        the sandbox's namespace, or not)."""
        if self.launch.level != "sandbox":
            return [self.proc.pid]
        return [self.agent_pid] if self.agent_pid is not None else []

    def leftovers(self) -> list[int]:
        """Processes the agent started that still run (none may, between games)."""
        if self.launch.level != "sandbox":
            return _descendants(self.proc.pid)
        # bwrap -> the namespace's init (bwrap's reaper, which adopts orphans) -> the agent.
        inits = _children(self.proc.pid)
        below_init = [p for i in inits for p in _children(i)]
        if self.agent_pid is None and len(below_init) == 1:
            self.agent_pid = below_init[0]  # the first look, right after hello: the agent alone
        return [p for p in below_init if p != self.agent_pid] + (
            _descendants(self.agent_pid) if self.agent_pid is not None else [])

    def kill(self) -> None:
        """End the agent and every process it started, now; return once they are gone."""
        if self.proc.returncode is None:
            victims = _descendants(self.proc.pid)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            for pid in victims:  # those that left its process group (the sandbox's die with bwrap)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)
            # A sandbox's processes die with its namespace, a moment after bwrap: wait for them.
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline and any(_running(p) for p in victims):
                time.sleep(0.002)
        self._close()

    def close(self) -> None:
        """Say goodbye, then end it whatever it does."""
        if self.alive():
            with contextlib.suppress(AgentError, OSError):
                if self.forks:
                    self.end_game()
                    self._control.sendall(wire.dump_line({"type": "bye"}))  # type: ignore[union-attr]
                else:
                    self.send({"type": "bye"}, time.monotonic() + 1, 0)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=1)
        self.kill()

    def _close(self) -> None:
        if self.forks:
            self._close_game()
            if self._control is not None:
                self._control.close()
        self._close_group()
        if self.launch.level == "sandbox":
            collect_in_flight()
        self._err_done = True
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


GC_SECONDS = 0.5  # at most this long waiting for the kernel to collect what a game left in flight
LET_GO_SECONDS = 0.01  # and then for the mounts its files held to be let go (two ticks; then two RCU grace periods)


def collect_in_flight(let_go: bool = False) -> bool:
    """Have the kernel collect the Unix sockets that hold only one another in flight, once a game's
    processes are gone, and wait until it has: True, or False after GC_SECONDS. With `let_go` (the
    game's user had some in flight, or its host could not tell), wait too until the files they held
    are let go, their mounts among them.

    A game's processes end with it, but two sockets it sent over themselves (`SCM_RIGHTS`), with other
    files beside them, are garbage that no process holds, and the kernel collects such cycles only
    when some Unix socket somewhere is released, which nothing between two games of a warm host did.
    Until then what they hold outlived the game: its user's count of descriptors in flight (the next
    game of its agent, the same user, read it by sending descriptors until refused: 33 less what the
    game before left), the pipes' buffers charged to that user, and the game's mounts and tmpfs,
    whose numbers the machine hands out lowest first (statx's mount id, st_dev of its /tmp).

    Here a socket of our own is left in flight on itself, sent by its peer, which we keep, and
    another socket released: the kernel schedules a collection, which takes every such cycle, ours
    (made after the game's) too, and frees our message, which the peer's count of bytes sent
    (SIOCOUTQ) shows at once. A collection already running may have started before our cycle was
    made: a socket is released again every 2 ms until ours is taken. The files a collection lets go
    are closed by the kernel's worker a tick later, the write end of a pipe of ours with them (its
    read end then hangs up), and their mounts a tick after that, their numbers once an RCU grace
    period has passed: `let_go` waits for the pipe, then LET_GO_SECONDS."""
    if not sys.platform.startswith("linux"):
        return False
    import array
    import fcntl
    import struct
    import termios

    try:
        mine, theirs = socket.socketpair()
    except OSError:
        return False
    done = held = -1
    try:
        if let_go:
            done, held = os.pipe()
        try:
            theirs.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                     array.array("i", [mine.fileno(), *([held] if held >= 0 else [])]))])
        finally:
            mine.close()  # in flight alone: garbage
            if held >= 0:
                os.close(held)

        def sent() -> int:
            return int(struct.unpack("i", fcntl.ioctl(theirs.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0])

        deadline = time.monotonic() + GC_SECONDS
        while True:
            a, b = socket.socketpair()  # released: the kernel schedules a collection (if none runs)
            a.close()
            b.close()
            again = time.monotonic() + 0.002
            while sent() and time.monotonic() < again:
                time.sleep(0.0001)
            if not sent():
                break
            if time.monotonic() >= deadline:
                return False
        if done >= 0:
            poller = select.poll()
            poller.register(done, select.POLLIN)
            if not poller.poll(max(1, int((deadline - time.monotonic()) * 1000))):
                return False
            time.sleep(LET_GO_SECONDS)  # the mounts' own tick
            _grace_period()
            _grace_period()  # (the mounts' numbers are handed back by callbacks run after one)
        return True
    except OSError:
        return False
    finally:
        theirs.close()
        if done >= 0:
            os.close(done)


_MEMBARRIER = {"x86_64": 324, "aarch64": 283, "i386": 375, "i686": 375}
_MEMBARRIER_CMD_GLOBAL = 1  # returns once every CPU has passed an RCU grace period (synchronize_rcu)


def _grace_period() -> None:
    """Wait for an RCU grace period (membarrier's global command), or LET_GO_SECONDS where it cannot."""
    import platform

    number = _MEMBARRIER.get(platform.machine())
    libc = seccomp._LIBC
    if number is None or libc is None or libc.syscall(number, _MEMBARRIER_CMD_GLOBAL, 0, 0) != 0:
        time.sleep(LET_GO_SECONDS)


class _NotAnAction:
    """What an agent answered that is not an action, shown as the agent's own repr of it."""

    def __init__(self, shown: str):
        self.shown = shown

    def __repr__(self) -> str:
        return self.shown


class _AgentTraceback(Exception):
    """The traceback an agent's host sent with its error, chained to the AgentCrashError."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


def sent_traceback(cause: BaseException) -> str | None:
    """The traceback an agent's host sent with its error, if `cause` is one."""
    return cause.text if isinstance(cause, _AgentTraceback) else None


def _note(reply: dict[str, Any], island: Island, turn: int) -> Note:
    """An action's note (docs/agent-protocol.md): {"text": ..., "tiles": runs, "candidates": bool}."""
    note = reply["note"]
    try:
        runs = note.get("tiles")
        size = island.height * island.width
        if runs is not None and not (isinstance(runs, list) and len(runs) % 2 == 0 and all(
                type(n) is int and n >= 0 for n in runs) and all(
                start + length <= size for start, length in zip(runs[0::2], runs[1::2]))):
            raise ValueError(f"its tiles must be [start, length, ...] runs within the map's {size} tiles")
        tiles = None if runs is None else wire.runs_mask(runs, (island.height, island.width))
        text, candidates = note.get("text", ""), note.get("candidates", True)
        if type(text) is not str or type(candidates) is not bool:  # (a program's bug: never guessed at)
            raise TypeError('its "text" must be a string and its "candidates" true or false')
        return Note(text, tiles, candidates)
    except (AttributeError, TypeError, ValueError, IndexError) as exc:
        raise ProtocolBreach(turn, f"the agent's note is not one the protocol allows: {exc}") from None


def _said(message: dict[str, Any]) -> str:
    return wire.as_sent(message, 120)  # as the agent sent it (JSON), not as Python shows it


def _running(pid: int) -> bool:
    """Whether `pid` is a live process (not gone, not a zombie waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    out: list[int] = []
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
    return out


def _descendants(pid: int) -> list[int]:
    found, todo = [], _children(pid)
    while todo:
        p = todo.pop()
        found.append(p)
        todo += _children(p)
    return found


# ---------------------------------------------------------------- one worker's processes
_POOL: dict[tuple, AgentProcess] = {}
WORKER_NUMBER: int | None = None  # this process's number in a local pool (play/executor.py sets it)


class Cores:
    """For one game: where this thread and the agent's process run; this thread's own CPUs after.

    A referee and its agent take turns and never run at once. Across two cores each side
    wakes an idle core to answer, and on a virtual machine each wake costs ~50 µs (a pipe's
    round trip measured 105 µs across two cores, 14 µs on one). So:

    * a local pool's worker (or any thread but the main one) shares one core with its agent:
      the other cores play other games. Workers take distinct cores by their number.
    * the main thread of a process that plays one game at a time (a run without a pool)
      keeps its core and gives the agent the others: each side's cache stays its own, and
      both poll for a moment before sleeping (`SPIN_SECONDS`; the `start` message's
      `poll` option tells the agent), so neither is woken from sleep (a round trip of ~6 µs).

    Only for the game: a process that plays an agent is not left pinned (its pool workers,
    forked later, would inherit it). A pool's worker is the exception: it forks no pool and
    plays nothing but games, so it is pinned at its first game for good, and each of its
    agent processes once: moving a thread costs the kernel a migration, 0.1-0.3 ms a game
    on a quiet machine and over 1 ms a call under load.
    """

    def __init__(self, process: AgentProcess):
        self.saved: set[int] | None = None
        process.spin = 0.0
        if not hasattr(os, "sched_setaffinity"):
            return
        try:
            main = threading.current_thread() is threading.main_thread()
            if WORKER_NUMBER is not None and main:
                self._worker(process, WORKER_NUMBER)
                return
            saved = os.sched_getaffinity(0)
            cpus = sorted(saved)
            if len(cpus) < 2:
                return
            alone = WORKER_NUMBER is None and main
            cpu = _current_cpu(cpus)
            os.sched_setaffinity(0, {cpu})
            self.saved = saved
            theirs = saved - {cpu} if alone else {cpu}
            process.pin(theirs)
            for pid in process.pids():
                os.sched_setaffinity(pid, theirs)
            process.pinned = None  # set for this game only
            process.spin = SPIN_SECONDS if alone else 0.0
        except OSError:
            pass  # a CPU set the OS will not give: the game runs unpinned, only slower

    @staticmethod
    def _worker(process: AgentProcess, number: int) -> None:
        """A pool's worker: its core, taken once by its number, shared with its agents."""
        global _WORKER_CPU
        if _WORKER_CPU is None:
            cpus = sorted(os.sched_getaffinity(0))
            if len(cpus) < 2:
                return
            cpu = cpus[number % len(cpus)]
            os.sched_setaffinity(0, {cpu})
            _WORKER_CPU = cpu
        process.pin({_WORKER_CPU})
        if process.pinned != _WORKER_CPU:
            for pid in process.pids():  # started after the pin, it has it already; set it anyway, once
                os.sched_setaffinity(pid, {_WORKER_CPU})
            process.pinned = _WORKER_CPU

    def end(self) -> None:
        if self.saved is not None:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, self.saved)
            self.saved = None


_WORKER_CPU: int | None = None  # the core a pool's worker took at its first game (`Cores`)


def _current_cpu(cpus: list[int]) -> int:
    """The CPU this thread runs on now (field 39 of its stat line)."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/stat") as f:
            cpu = int(f.read().rpartition(")")[2].split()[36])
    except (OSError, ValueError, IndexError):
        return cpus[0]
    return cpu if cpu in cpus else cpus[0]


def _forget_in_child() -> None:
    # A forked worker must not talk to (or kill) the agent processes of its parent.
    for process in _POOL.values():
        process._err_done = True
        if process._control is not None:
            process._control.close()
        for stream in (process.proc.stdin, process.proc.stdout, process.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
    _POOL.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


@atexit.register
def close_all() -> None:
    """End every agent process this process started."""
    while _POOL:
        _, process = _POOL.popitem()
        process.close()
    remove_bases()


_NO_JAIL: str | None = None  # why a warm host cannot jail each game here: the plain host then, a process a game


class NoJail(AgentError):
    """The warm host cannot give each game namespaces of its own inside this sandbox."""

    kind = "agent-died"


def acquire(launch: Launch, limits: AgentLimits, label: str) -> AgentProcess:
    """This worker's process for the agent, started if there is none (or it is spent).

    A warm host (`launch.forks`) is kept from game to game: each game is a fresh process
    it forks. Any other agent process plays one game (where a warm host can run, Linux):
    nothing an agent keeps in its process may reach its next game."""
    global _NO_JAIL
    if launch.forks and _NO_JAIL is not None:
        launch = unforked(launch)
    key = (launch, limits)
    process = _POOL.pop(key, None)
    if process is not None and process.spent():
        process.close()
        process = None
    if process is not None:
        return process
    try:
        return AgentProcess(launch, limits, label)
    except NoJail as exc:
        _NO_JAIL = exc.message
        return AgentProcess(unforked(launch), limits, label)


def discard(process: AgentProcess) -> None:
    """After a game that failed or did not end cleanly: end its processes. A warm host, which
    ran none of the agent's code, stays for the next game; any other process is ended."""
    if process.forks and process.alive():
        process.kill_game()
        if process.alive():
            release(process)
            return
    process.kill()


def reusable(process: AgentProcess) -> bool:
    """Whether `process` may play the agent's next game: a warm host, or (where there is none)
    a process without a sandbox, which could keep state in files anyway."""
    return process.forks or (not FORKS and process.launch.level == "process")


def release(process: AgentProcess) -> None:
    """Keep a process that ended its game cleanly for the agent's next game, if it may play one."""
    if not process.end_game() or not reusable(process):
        process.close()
        return
    key = (process.launch, process.limits)
    old = _POOL.pop(key, None)
    if old is not None:
        old.close()
    _POOL[key] = process


class ProcessAgent:
    """An agent in another process, as the game loop sees it: `reset(seed)`, then `act(obs)`."""

    def __init__(self, process: AgentProcess, game_deadline: float, game_seconds: float):
        self.process = process
        self.deadline = game_deadline
        self.game_seconds = game_seconds  # for the message when it runs out
        self.seed = 0
        self.started = False
        self.island: Island | None = None
        self.actions = 0
        self.pace: Pace | None = None  # steady replies (sandbox/pacing.py), set for secret-seeded games
        self.late = 0                  # questions the referee's work made later than the pace
        self.began = 0.0               # time.perf_counter() when the game's making began (its start's pace)
        self._turn = 0                 # the turn of the last question
        self.notes = False             # ask for the agent's notes (its answers may carry one)
        self._note: Note | None = None
        self._printed = 0              # bytes of its output already given by printed()
        self.sent: dict[str, Any] | None = None  # its last answer, as it sent it (a program's actions are quoted so)

    def reset(self, seed: int) -> None:
        self.seed = seed

    def act(self, obs: Observation) -> object:
        process, turn, pace = self.process, obs.turn, self.pace
        paced = pace is not None and turn != self._turn  # a turn ended since its answer (or the game began)
        self._turn = turn
        first = not self.started
        if first:
            process.begin_game(self.deadline)  # play_game has begun it, before the game's own time
            self.started, self.island = True, obs.island
            start = {"type": "start", "seed": self.seed, "island": wire.encode_island(obs.island),
                     "options": {"truth_rate": obs.truth_rate, "max_turns": obs.max_turns, "hint_truths_shown": False,
                                 **({"notes": True} if self.notes else {}),
                                 **({"poll": process.spin} if process.spin else {})}}
        message = {"type": "act", "turn": turn, "actions_left": obs.actions_left, "position": list(obs.position),
                   "teleport_used": obs.teleport_used,
                   "news": [wire.encode_event(e, obs.island, process.tiles) for e in obs.news]}
        lines = wire.dump_line(start) + wire.dump_line(message) if first else wire.dump_line(message)
        if paced:  # held once the lines are made: only their write is left after the pace
            self._hold(self.began, pace.start) if first else self._hold(process.heard, pace.turn)  # type: ignore[union-attr]
        process.write(lines, self.deadline, turn)
        limit = process.limits.action_timeout
        asked = time.monotonic()
        try:
            reply = process.receive(self.deadline, turn, asked + limit if limit is not None else None)
        except ActionTimeout:
            raise
        except AgentTimeout:
            raise AgentTimeout(turn, f"the game ran past its {self.game_seconds:g} s limit") from None
        process.thought += time.monotonic() - asked
        self.actions += 1
        self.sent = reply
        if reply.get("type") != "action":
            raise ProtocolBreach(turn, f"the agent answered act with {_said(reply)}")
        try:
            action = wire.decode_action(reply)
        except wire.ProtocolError as exc:
            raise ProtocolBreach(turn, str(exc)) from None
        self._note = _note(reply, obs.island, turn) if self.notes and "note" in reply else None
        if isinstance(action, str):
            return _NotAnAction(action)  # the game refuses it, in its own words
        return action

    def explain(self) -> Note | None:
        """The note that came with the agent's last action, if notes were asked for."""
        return self._note

    def printed(self) -> str:
        """What it printed (its standard error) since the last call: with an action, what it printed
        while it chose it (written before its answer, so in the pipe by now)."""
        process = self.process
        process._drain_stderr()
        seen = self._printed if self._printed <= len(process.output) else 0
        self._printed = len(process.output)
        return process.output[seen:].decode("utf-8", errors="replace")

    def end(self, result: GameEnded, news: tuple[Event, ...]) -> bool:
        """Tell the agent its game is over (`news`: the public events since its last action);
        True if it is ready for another game and left no process running."""
        process = self.process
        try:
            if self.started:
                message = {"type": "end", "outcome": result.outcome.value, "reason": result.reason.value,
                           "turn": result.turn,
                           "news": [wire.encode_event(e, self.island, process.tiles) for e in news]}  # type: ignore[arg-type]
                line = wire.dump_line(message)
                if self.pace is not None and result.reason is not EndReason.FOUND:  # it came with a turn's work
                    self._hold(process.heard, self.pace.turn)
                process.write(line, time.monotonic() + READY_SECONDS, result.turn)
                reply = process.receive(time.monotonic() + READY_SECONDS, result.turn, None)
                if reply.get("type") != "ready":
                    return False
        except AgentError:
            return False
        if process.forks:
            return process.end_game()  # the game's process reaped, and nothing left: it looked
        return not process.leftovers()

    def _hold(self, since: float, delay: float) -> None:
        if hold(since, delay):
            self.late += 1
