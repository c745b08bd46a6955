"""One game from an agent spec to a record: the single place `run`, `bench` and
`check-agent` set a game up, play it under its time limit and catch an agent's failure.

A user's agent is untrusted code. Whatever it does (raise, ask for an illegal
action, never return, print, die) ends only its own game, as a record whose
outcome is "failed" with a message naming the agent, the map, the turn and
the cause. An agent that is not built in plays in a process of its own
(sandbox/launch.py): a `Seat` is one game's agent, wherever it plays.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType
from typing import Any

from treasure_cli.agents.registry import AgentSpec, is_builtin, resolve
from treasure_cli.agents.tracebacks import agent_traceback
from treasure_cli.errors import (
    AgentCrashError, AgentError, GameTimeout, TreasureError, UnplayableMapError,
)
from treasure_cli.formats.text import one_line
from treasure_cli.sandbox.process import sent_traceback
from treasure_cli.play.loop import play_agent
from treasure_cli.sandbox.pacing import pace_for
from treasure_cli.play import pulse
from treasure_cli.play.records import ACTION_EVENTS, FAILED, GameRecord, count_actions, play_digest
from treasure_cli.sandbox.levels import AgentLimits
from treasure_cli.sandbox.seat import Seat, build_agent, seat
from treasure_cli.rules.events import Event, GameFailed
from treasure_cli.rules.game import Game
from treasure_cli.rules.island import Island
from treasure_cli.rules.hint_draw import HintSet
from treasure_cli.rules.observation import Agent

def build_game(island: Island, agent: str | AgentSpec, seed: int, *, map_name: str = "map",
               truth_rate: float = 0.5, max_turns: int | None = None,
               hints: HintSet | None = None) -> tuple[Game, Agent]:
    """The one way a game is set up (run, bench, check-agent, live view): the game and
    the agent built to play it (`play_agent(game, agent)` plays it). `agent` is a spec string
    (or an AgentSpec already resolved, such as a file agent sent to a Dask worker)."""
    spec = agent if isinstance(agent, AgentSpec) else resolve(agent)
    player = build_agent(spec)
    return Game(island, seed, agent_name=spec.spec, map_name=map_name, truth_rate=truth_rate,
                max_turns=max_turns, hint_truths_public=spec.sees_hint_truths, hints=hints), player


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise GameTimeout in this thread once `seconds` have passed (None: no limit).

    Where the platform has SIGALRM (Linux, macOS), a timer signal interrupts a sleeping or
    looping agent at its next Python instruction. Without it (Windows), a timer thread
    raises GameTimeout in this thread the same way, but a blocking call such as a long
    `time.sleep` is waited for before it takes effect. Either way, a C extension that never
    returns to Python is waited for.
    """
    if seconds is None:
        yield
        return
    if threading.current_thread() is not threading.main_thread():
        raise TreasureError("a game time limit works only in a process's main thread")
    if not _has_alarm():
        with _thread_timer(seconds):
            yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise GameTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _has_alarm() -> bool:
    """Whether this platform has the timer signal (looked up at each call: tests take it away)."""
    return hasattr(signal, "SIGALRM") and hasattr(signal, "setitimer")


@contextlib.contextmanager
def _thread_timer(seconds: float) -> Iterator[None]:
    """time_limit without SIGALRM: a timer thread sets GameTimeout as this thread's pending
    exception (PyThreadState_SetAsyncExc), raised at its next Python instruction."""
    target = threading.get_ident()
    lock = threading.Lock()
    state = {"armed": True, "fired": False}

    def expire() -> None:
        with lock:
            if state["armed"]:
                state["fired"] = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), ctypes.py_object(GameTimeout))

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["armed"] = False
            if state["fired"]:  # fired but perhaps not raised yet: it must not escape this block
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), None)
        timer.cancel()


def play_game(island: Island, agent: str | AgentSpec, seed: int, *, map_name: str, truth_rate: float = 0.5,
              max_turns: int | None = None, game_timeout: float | None = None,
              keep_events: bool = True, isolation: str = "auto", limits: AgentLimits | None = None,
              source: bytes | None = None, notes: bool = False, hints: HintSet | None = None,
              output: bool = False, failed_events: bool = False, **record: Any) -> tuple[GameRecord, list[Event] | None]:
    """Play one game; its record and (with `keep_events`) its events, None if it failed.

    With `failed_events` too, a game the agent failed gives its events up to the failure and
    then a GameFailed event saying what failed (the log of a failed game), instead of None.

    `isolation` ("auto", "none", "process", "sandbox") says where an agent that is not built
    in plays, within `limits`; `source` is the bytes of a file agent or program that this
    machine may not have (a Dask worker). `hints`: the pirate's kinds (default: the built-ins).
    `record` adds fields to the GameRecord (index, island_seed, warnings). With `notes`, the
    agent's notes (`Agent.explain`) are among the events; with `output`, what it printed at
    each action (AgentPrinted events).
    """
    size = f"{island.width}x{island.height}"
    name = agent.spec if isinstance(agent, AgentSpec) else agent
    limits = limits or AgentLimits()
    game: Game | None = None
    taken: Seat | None = None
    events: list[Event] = []
    acted: list[Event] = []  # the agent's actions' events (ACTION_EVENTS)
    start = time.perf_counter()
    try:
        # Measured before the agent's process is at hand, where the agent could time it.
        pace = (pace_for(island, truth_rate, max_turns, hints) if limits.steady_replies and not is_builtin(name)
                else None)
        with seat(agent, isolation, limits, source, game_timeout) as taken:
            taken.begin(island.public(), pace, notes)  # a warm host's fresh process
            start = time.perf_counter()  # an agent process's start-up is not its game's time
            pulse.began()  # (the tournament's ETA: the game's progress, play/pulse.py)
            with time_limit(taken.timeout), taken.printing():
                taken.started()
                game = Game(island, seed, agent_name=name, map_name=map_name, truth_rate=truth_rate,
                            max_turns=max_turns, hint_truths_public=taken.hint_truths, hints=hints,
                            even=pace is not None)
                if pace is not None:
                    game.walk_path()  # the pirate's walk, treasure-dependent work, under the start's pace
                # Read event by event, so a failed game's actions so far are counted too.
                for e in play_agent(game, taken.agent, notes=notes, output=output):
                    if keep_events:
                        events.append(e)
                    if type(e) in ACTION_EVENTS:  # kept without keep_events too: the play's digest
                        acted.append(e)
                        pulse.acted(e)
            taken.game_over(game)
    except AgentError as exc:
        got = _failure(taken, agent, map_name, seed, exc.kind, exc.turn, exc.message, size, exc,
                       actions=count_actions(acted) if game is not None else None, **record)
        return _with_failure(got[0], events, keep_events and failed_events)
    except GameTimeout:
        turn = game.turn if game is not None else 0
        got = _failure(taken, agent, map_name, seed, GameTimeout.kind, turn,
                       f"the game ran past its {game_timeout:g} s limit", size, None,
                       actions=count_actions(acted) if game is not None else None, **record)
        return _with_failure(got[0], events, keep_events and failed_events)
    except UnplayableMapError as exc:
        return failed(name, map_name, seed, "bad-map", f"{map_name}: {exc}", size, **record), None
    except TreasureError as exc:
        return failed(name, map_name, seed, "agent-error", str(exc), size, **record), None
    seconds = time.perf_counter() - start
    end = game.result
    assert end is not None
    return GameRecord(name, map_name, size, seed, end.outcome.value, end.reason.value, end.turn, seconds,
                      output=taken.output, isolation=taken.where, play_digest=play_digest(acted),
                      actions=count_actions(acted), **record), (events if keep_events else None)


MAX_FAILURE_TEXT = 4000  # characters of a failure's message kept on the failed log's last line


def _with_failure(record: GameRecord, events: list[Event], keep: bool) -> tuple[GameRecord, list[Event] | None]:
    """A failed game's record, and with `keep` its events so far (those of the game started: none
    before its first event) ending in GameFailed: what failed, on which turn."""
    if not keep or not events:
        return record, None
    message = (record.error or "")[:MAX_FAILURE_TEXT]
    return record, [*events, GameFailed(record.turns, record.reason, message)]


def _failure(seat: Seat | None, agent: str | AgentSpec, map_name: str, seed: int, kind: str, turn: int,
             message: str, size: str, exc: BaseException | None, **record: Any) -> tuple[GameRecord, None]:
    """The record of a game the agent failed (its seat already left): the cause, where in the
    agent's code, what it printed."""
    name = agent.spec if isinstance(agent, AgentSpec) else agent
    text = None
    if exc is not None and exc.__cause__ is not None:
        text = sent_traceback(exc.__cause__)
        if text is None and isinstance(exc, AgentCrashError):  # raised in this process
            where, text = agent_traceback(exc.__cause__)
            message += f" ({where})" if where else ""
    if seat is not None:
        message = seat.users_paths(message)
        text = seat.users_paths(text) if text else text
    # One line: the message quotes the agent (its exception, what it printed before it died),
    # and an agent's line break must not begin a line of a report that looks like the program's.
    return failed(name, map_name, seed, kind, f"turn {turn}: {one_line(message)}", size, turns=turn,
                  output=seat.output if seat is not None else "", traceback=text,
                  isolation=seat.where if seat is not None else "", **record), None


def failed(agent: str, map_name: str, seed: int, kind: str, cause: str, size: str = "",
           **record: Any) -> GameRecord:
    """The record of a game that could not be played to its end; the message says who, where and why."""
    message = f"{map_name}: agent {agent} failed: {cause}" if kind != "bad-map" else cause
    # One line, as _failure's cause is: a map's or an agent's name is a user's, and a line break
    # in it must not begin a line that looks like the program's ("Error: ...", a result line).
    return GameRecord(agent, map_name, size, seed, FAILED, kind, error=one_line(message), **record)
