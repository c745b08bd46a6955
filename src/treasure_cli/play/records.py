"""The one record of a played (or failed) game, shared by `run`, `bench` and their tables."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable
from typing import Any

from treasure_cli.rules.events import AgentMoved, AreaScanned, Event, HintVerified, Teleported

WIN, LOSE, FAILED = "WIN", "LOSE", "failed"


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """One game of one agent. A game that failed is never a LOSE: `outcome` is "failed",
    `reason` says how (bad-map, agent-error, illegal-action, game-timeout) and `error` why."""

    agent: str             # the agent spec as given
    map: str               # the map file, or "bench-<W>x<H>-<index>" for a generated island
    size: str              # "WxH"; "" when the map could not be read
    seed: int              # the game seed
    outcome: str           # WIN, LOSE or failed
    reason: str            # found / pirate / timeout for a played game, the failure's kind otherwise
    turns: int = 0
    seconds: float = 0.0
    error: str | None = None
    index: int = 0                   # the game's number on its island size (bench)
    island_seed: int | None = None   # generated islands (bench)
    log: str | None = None           # the log file written (run)
    warnings: tuple[str, ...] = ()
    output: str = ""                 # what the agent printed (kept, cut, never mixed into ours)
    traceback: str | None = None     # the agent's own frames, when its code raised
    isolation: str = ""              # where it played: in-process, process or sandbox
    game_id: str = ""                # `game_id(...)`: the same in bench, the store, JSON and the report
    play_digest: str | None = None   # a digest of the agent's actions (a game played to its end)
    actions: int | None = None       # the agent's actions (ACTION_EVENTS), up to its failure for a failed
                                     # game; None where no game began (a bad map, an agent that never started)

    @property
    def won(self) -> bool:
        return self.outcome == WIN

    @property
    def failed(self) -> bool:
        return self.outcome == FAILED


def game_id(agent: str, agent_digest: str, settings: str, map_digest: str, index: int, seed: int) -> str:
    """A game's stable id: 12 hex digits of a hash of all that decides how it goes (the agent and
    its code, the truth rate and turn limit of `settings`, the map's content, the game's number and
    seed). The same game gets the same id in `bench`, a tournament's store, their JSON and the
    report, and on every resume. A time limit decides no move, so it is not part of the id."""
    rules = json.loads(settings) if settings else {}
    rules.pop("game_timeout", None)
    text = "\x1f".join((agent.strip(), agent_digest, json.dumps(rules, sort_keys=True), map_digest, str(index),
                        str(seed)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def settings_key(truth_rate: float, max_turns: int | None, game_timeout: float | None,
                 hints: str | None = None) -> str:
    """The game settings as the canonical JSON text stored in each row; `hints`, the hint kinds'
    record (hint_plugins.hints_key) when they are not the built-ins, which leave the text as it was."""
    values: dict[str, object] = {"truth_rate": float(truth_rate), "max_turns": max_turns,
                    "game_timeout": None if game_timeout is None else float(game_timeout)}
    if hints is not None:
        values["hints"] = hints
    return json.dumps(values, sort_keys=True)


# The events an agent's actions make, one per action (a small move's 3x3 scan follows from it).
ACTION_EVENTS = frozenset((AgentMoved, AreaScanned, HintVerified, Teleported))


def count_actions(events: Iterable[Event]) -> int:
    """How many actions the agent took in these events: one per move, large scan, verified hint
    and teleport (a small move's 3x3 scan is part of its move, not an action of its own)."""
    return sum(1 for e in events if type(e) in ACTION_EVENTS and not (type(e) is AreaScanned and e.size != 5))


def play_digest(events: Iterable[Event]) -> str:
    """A digest of the actions of one game, read off its events (16 hex digits).

    Two agents on the same map and seed make the same events exactly when
    they take the same actions, so only the actions are hashed, in a form of
    their own that does not change with the events' classes."""
    words = []
    e: Any  # dispatched on its exact type, which mypy does not follow through `kind`
    for e in events:
        kind = type(e)
        if kind is AgentMoved:
            words.append(f"M{e.direction.name}{e.steps}")
        elif kind is AreaScanned:
            if e.size == 5:  # a large scan; a small move's scan is the move's
                words.append("S")
        elif kind is HintVerified:
            words.append(f"V{e.number}")
        elif kind is Teleported:
            words.append(f"T{e.dst[0]},{e.dst[1]}")
    return hashlib.sha256(" ".join(words).encode()).hexdigest()[:16]
