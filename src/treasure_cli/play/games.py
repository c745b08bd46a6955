"""One game from an agent spec to a record: the single place `run`, `bench` and
`check-agent` set a game up, play it under its time limit and catch an agent's failure.

A user's agent is untrusted code. Whatever it does (raise, ask for an illegal
action, never return) ends only its own game, as a record whose outcome is
"failed" with a message naming the agent, the map, the turn and the cause.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator

from treasure_cli.agents.registry import AgentSpec, resolve
from treasure_cli.errors import (
    AgentCrashError, AgentError, AgentLoadError, GameTimeout, TreasureError, UnplayableMapError,
)
from treasure_cli.play.loop import play_agent
from treasure_cli.play.records import FAILED, GameRecord
from treasure_cli.rules.events import Event
from treasure_cli.rules.game import Game
from treasure_cli.rules.island import Island
from treasure_cli.rules.observation import Agent


def build_game(island: Island, agent: str | AgentSpec, seed: int, *, map_name: str = "map",
               truth_rate: float = 0.5, max_turns: int | None = None) -> tuple[Game, Agent]:
    """The one way a game is set up (run, bench, check-agent, live view): the game and
    the agent built to play it (`play_agent(game, agent)` plays it). `agent` is a spec string
    (or an AgentSpec already resolved, such as a file agent sent to a Dask worker)."""
    spec = agent if isinstance(agent, AgentSpec) else resolve(agent)
    try:
        player = spec.build()
    except AgentLoadError:
        raise
    except Exception as exc:
        raise AgentCrashError(0, f"building the agent raised {type(exc).__name__}: {exc}") from exc
    return Game(island, seed, agent_name=spec.spec, map_name=map_name, truth_rate=truth_rate,
                max_turns=max_turns, hint_truths_public=spec.sees_hint_truths), player


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise GameTimeout in this thread once `seconds` have passed (None: no limit).

    SIGALRM interrupts a sleeping or looping agent at its next Python
    instruction; a C extension that never returns to Python is waited for.
    """
    if seconds is None:
        yield
        return
    if threading.current_thread() is not threading.main_thread():
        raise TreasureError("a game time limit works only in a process's main thread")

    def expire(signum, frame):
        raise GameTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def play_game(island: Island, agent: str | AgentSpec, seed: int, *, map_name: str, truth_rate: float = 0.5,
              max_turns: int | None = None, game_timeout: float | None = None,
              keep_events: bool = True, **record: object) -> tuple[GameRecord, list[Event] | None]:
    """Play one game; its record and (with `keep_events`) its events, None if it failed.

    `record` adds fields to the GameRecord (index, island_seed, warnings).
    """
    size = f"{island.width}x{island.height}"
    spec, agent = agent, (agent.spec if isinstance(agent, AgentSpec) else agent)
    start = time.perf_counter()
    game: Game | None = None
    events: list[Event] = []
    try:
        with time_limit(game_timeout):
            game, player = build_game(island, spec, seed, map_name=map_name, truth_rate=truth_rate,
                                      max_turns=max_turns)
            play = play_agent(game, player)
            if keep_events:
                events.extend(play)
            else:
                for _ in play:
                    pass
    except AgentError as exc:
        return failed(agent, map_name, seed, exc.kind, f"turn {exc.turn}: {exc.message}", size, **record), None
    except GameTimeout:
        turn = game.turn if game is not None else 0
        return failed(agent, map_name, seed, GameTimeout.kind,
                      f"turn {turn}: the game ran past its {game_timeout:g} s limit", size, **record), None
    except UnplayableMapError as exc:
        return failed(agent, map_name, seed, "bad-map", f"{map_name}: {exc}", size, **record), None
    except TreasureError as exc:
        return failed(agent, map_name, seed, "agent-error", str(exc), size, **record), None
    seconds = time.perf_counter() - start
    end = game.result
    assert end is not None
    return GameRecord(agent, map_name, size, seed, end.outcome.value, end.reason.value, end.turn, seconds,
                      **record), (events if keep_events else None)


def failed(agent: str, map_name: str, seed: int, kind: str, cause: str, size: str = "",
           **record: object) -> GameRecord:
    """The record of a game that could not be played to its end; the message says who, where and why."""
    message = f"{map_name}: agent {agent} failed: {cause}" if kind != "bad-map" else cause
    return GameRecord(agent, map_name, size, seed, FAILED, kind, error=message, **record)
