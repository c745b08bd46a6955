"""The one door between a game and its agent: `with seat(spec, level, limits) as agent_seat:`.

An agent plays either in this process (the built-ins, and any agent with isolation "none")
or in a process of its own. Whichever it is, a game takes its seat once; how the agent's
process is started, reused within the game, ended, reaped and unpinned stays here, for
every way out of the block:

* the game reached its end (`game_over(game)` was said): the process is ended cleanly and,
  where it may play again (a warm host), kept for the agent's next game;
* no game was played (no `game_over`, or the map turned out unplayable): the process is kept
  as it started, for the next game;
* anything else (the agent failed, the game ran out of time, Ctrl-C): the game's process and
  everything it started are killed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import json
import math
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from treasure_cli.agents.registry import AgentSpec, at_home, is_builtin, is_exec_spec, is_file_spec, load_source, resolve
from treasure_cli.errors import AgentCrashError, AgentError, AgentLoadError, UnplayableMapError
from treasure_cli.sandbox.launch import DEFAULT_GAME_TIMEOUT, agent_launch, in_process, left_out
from treasure_cli.sandbox.levels import AgentLimits, effective_level
from treasure_cli.sandbox.process import AgentProcess, Cores, ProcessAgent, acquire, discard, release

if TYPE_CHECKING:
    from treasure_cli.rules.game import Game
    from treasure_cli.rules.island import Island
    from treasure_cli.rules.actions import Action
    from treasure_cli.rules.observation import Agent, Observation
    from treasure_cli.sandbox.pacing import Pace

IN_PROCESS = "in-process"

UNTIMED = math.inf
"""A `game_timeout` for a game being watched (`run --step`): the game has no deadline, a watcher
may pause as long as they like, and each action of an agent in a process of its own is timed
instead (the action timeout, else the default game timeout; one in this process, trusted code,
is not timed). Seat is the one place that turns it into deadlines, for every level."""


class Seat:
    """One game's agent, wherever it plays. `agent` is what the game loop asks for actions;
    `output`, once the block is left, what the agent printed during the game."""

    def __init__(self, spec: str | AgentSpec, level: str, limits: AgentLimits, source: bytes | None = None,
                 game_timeout: float | None = None):
        self.name = spec.spec if isinstance(spec, AgentSpec) else spec
        level = resolve_level(level)
        self.untimed = game_timeout == UNTIMED
        if self.untimed:
            game_timeout = None
            if limits.action_timeout is None:
                limits = dataclasses.replace(limits, action_timeout=DEFAULT_GAME_TIMEOUT)
        self.process: AgentProcess | None = None
        self._core: Cores | None = None
        self._ended: Game | None = None
        self.output = ""
        self._printed: io.StringIO | None = None
        self._limits = limits
        self.agent: Agent
        if isinstance(spec, AgentSpec) or in_process(spec, level):
            built = spec if isinstance(spec, AgentSpec) else (
                load_source(spec, source) if source is not None else resolve(spec))
            where = self.name.strip().rpartition(":")[0] if is_file_spec(self.name) else ""
            with at_home(where) if where and os.path.isfile(where) else contextlib.nullcontext():
                self.agent = build_agent(built)  # in its file's folder, as its own process would be
            self.hint_truths = built.sees_hint_truths
            self.where = "" if is_builtin(self.name) else IN_PROCESS
            # SIGALRM needs the main thread: on a Dask worker's thread a built-in plays untimed
            # (it is our code, and bounded); anything else is refused there by time_limit.
            main = threading.current_thread() is threading.main_thread()
            self.timeout = game_timeout if main or not is_builtin(self.name) else None
            if not is_builtin(self.name):
                self._printed = io.StringIO()  # a user's print() must not reach the program's output
                self.agent = PrintingAgent(self.agent, self._printed)
            return
        self.hint_truths = False
        self.where = "process" if level == "none" else level  # a program (exec:) never plays in ours
        self.timeout = None  # the ProcessAgent keeps it, waiting for no answer past the deadline
        self.process = acquire(agent_launch(self.name, level, source), limits, self.name)
        self._core = Cores(self.process)
        seconds = math.inf if self.untimed else game_timeout or DEFAULT_GAME_TIMEOUT
        self.agent = ProcessAgent(self.process, time.monotonic() + seconds, seconds)  # type: ignore[assignment]
        if is_exec_spec(self.name):  # a program's illegal action is quoted as the JSON it sent, not as ours
            self.agent.quoted = self._quoted  # type: ignore[attr-defined]

    def _quoted(self) -> str | None:
        sent = self.agent.sent if isinstance(self.agent, ProcessAgent) else None
        return json.dumps(sent, ensure_ascii=True) if sent is not None else None

    @property
    def in_own_process(self) -> bool:
        return self.process is not None

    def begin(self, island: Island | None = None, pace: Pace | None = None, notes: bool = False) -> None:
        """Before the game's time starts: the game's fresh process (forked by a warm host, the
        agent loaded and greeted), told the public `island` when given."""
        if isinstance(self.agent, ProcessAgent):
            self.agent.pace, self.agent.notes = pace, notes
            self.agent.process.begin_game(self.start_deadline(), island)

    def start_deadline(self) -> float:
        """When the agent's process must be ready for its game: the game's deadline, or for an
        untimed game the time of one action (a host that never answers is not waited for)."""
        assert isinstance(self.agent, ProcessAgent)
        if not self.untimed:
            return self.agent.deadline
        return time.monotonic() + (self._limits.action_timeout or DEFAULT_GAME_TIMEOUT)

    def started(self) -> None:
        """The game's own work starts now: an agent process's start-up is not its game's time."""
        if isinstance(self.agent, ProcessAgent):
            self.agent.began = time.perf_counter()

    def game_over(self, game: Game) -> None:
        """The game reached its end: on leaving the block, the agent is told so and its process
        ends cleanly (kept for the next game where it may play one)."""
        self._ended = game

    @contextlib.contextmanager
    def printing(self) -> Iterator[None]:
        """What an agent in this process prints during the game goes to `output`, not to ours."""
        if self._printed is None:
            yield
            return
        try:
            with contextlib.redirect_stdout(self._printed), contextlib.redirect_stderr(self._printed):
                yield
        finally:
            self.output = capped(self._printed.getvalue(), self._limits.output)

    def users_paths(self, text: str) -> str:
        """`text` (an agent's error) with the agent's file named as the user gave it: its host knows
        it by its copy's path (/agent/<name> in the sandbox)."""
        if self.process is None or not is_file_spec(self.name):
            return text
        copy = self.process.launch.argv[-1].rpartition(":")[0]
        return text.replace(copy, self.name.strip().rpartition(":")[0])

    # -- the ways out, chosen by `seat` only ----------------------------------------------
    def _finish(self, game: Game) -> None:
        if self.process is None or not isinstance(self.agent, ProcessAgent):
            return
        assert game.result is not None
        clean = self.agent.end(game.result, game.observe().news)
        self.output = self.process.take_output()
        self._unpin()
        if clean:
            release(self.process)
        else:
            discard(self.process)

    def _put_back(self) -> None:
        """No game was played: keep the agent's process, as it started, for the next one."""
        self._unpin()
        if self.process is not None:
            release(self.process)

    def _abandon(self) -> None:
        self._unpin()
        if self.process is not None:
            self.output = self.process.take_output()
            discard(self.process)

    def _unpin(self) -> None:
        if self._core is not None:
            self._core.end()
            self._core = None


@contextlib.contextmanager
def seat(spec: str | AgentSpec, level: str, limits: AgentLimits, source: bytes | None = None,
         game_timeout: float | None = None) -> Iterator[Seat]:
    """A game's seat for the agent `spec` at isolation `level` within `limits`; see the module's
    docstring for what leaving the block does. `source`: the bytes of a file agent or program
    that this machine may not have (a Dask worker). Loading the agent may raise (AgentCrashError
    for a class that cannot be built): then nothing was started."""
    taken = Seat(spec, level, limits, source, game_timeout)
    try:
        yield taken
    except UnplayableMapError:
        taken._put_back()  # the map's fault, found before the agent heard of the game
        raise
    except AgentError as exc:
        taken._abandon()
        _say_left_out(exc, taken)
        raise
    except BaseException:
        taken._abandon()
        raise
    if taken._ended is None:
        taken._put_back()
        return
    try:
        taken._finish(taken._ended)
    except BaseException:
        taken._abandon()
        raise


def _say_left_out(exc: AgentError, taken: Seat) -> None:
    """A file agent's failed import of a helper beside it that its copy left out: the error says
    why (sandbox/launch.py, left_out), in place."""
    if taken.process is None or isinstance(taken.name, AgentSpec):
        return
    why = left_out(taken.name, exc.message)
    if why is not None:
        exc.message = f"{exc.message} ({why})"
        exc.args = (f"turn {exc.turn}: {exc.message}",)


class PrintingAgent:
    """An agent in this process whose print() (and writes to sys.stderr) during each action are
    kept apart, for `printed()`, and added to the game's `output` (whatever else is redirected:
    a game being watched must not print into the watcher's terminal)."""

    def __init__(self, agent: Agent, output: io.StringIO):
        self.agent = agent
        self._output = output
        self._pending: list[str] = []
        if hasattr(agent, "explain"):
            self.explain = agent.explain
        if hasattr(agent, "reset"):
            self.reset = agent.reset

    def act(self, obs: Observation) -> Action:
        said = io.StringIO()
        try:
            with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
                return self.agent.act(obs)
        finally:
            text = said.getvalue()
            if text:
                self._output.write(text)
                self._pending.append(text)

    def printed(self) -> str:
        """What it printed since the last call."""
        text = "".join(self._pending)
        self._pending.clear()
        return text


def capped(text: str, limit: int) -> str:
    """What an agent printed, cut as an agent process's output is: `limit` bytes, and a note."""
    data = text.encode("utf-8", errors="replace")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="replace") + f"\n[{len(data) - limit} more bytes not kept]"


def build_agent(spec: AgentSpec) -> Agent:
    """The agent `spec` names, built in this process; its failure is the agent's, before its first action."""
    try:
        return spec.build()
    except AgentLoadError as exc:  # a class without act(obs)
        raise AgentCrashError(0, str(exc)) from None
    except Exception as exc:
        raise AgentCrashError(0, f"building the agent raised {type(exc).__name__}: {exc}") from exc


def resolve_level(isolation: str) -> str:
    """"auto" made concrete (silently: the command line says the warning once)."""
    return effective_level(isolation)[0]
