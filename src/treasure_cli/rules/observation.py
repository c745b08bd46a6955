"""What an agent is shown, and what an agent is: the contract between the game and any agent.

The game builds one (`Game.observe`) before every action an agent is asked
for (as a Gymnasium environment returns `obs` from `step`), from public
state only: it never holds the treasure, the seed, or the truth of a hint
the agent has not verified. docs/writing-an-agent.md documents every field
and what will not change without a major version.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from treasure_cli.rules import events as ev
from treasure_cli.rules.actions import scan_square
from treasure_cli.rules.grid import Pos
from treasure_cli.rules.hints import Hint
from treasure_cli.rules.island import Island
from treasure_cli.rules.quick_init import quick_init
from treasure_cli.rules.values import compares_arrays

if TYPE_CHECKING:
    from treasure_cli.rules.actions import Action
    from treasure_cli.rules.events import Event


@compares_arrays
@dataclasses.dataclass(frozen=True, eq=False)
class Observation:
    """Everything the agent may know when choosing one action.

    `news` holds the public events since the agent's previous action (all of
    them, from the game's start, at its first action), for agents that keep
    their own knowledge up to date incrementally (see `Knowledge.observe`).
    Two observations are equal when every field is, `scanned` by value, on
    every Python version (rules/values.py); an observation is not hashable.
    """

    island: Island                 # the public map: no treasure
    turn: int                      # 1, 2, ...
    actions_left: int              # 2 at a turn's first action, 1 at its second
    position: Pos                  # the agent's tile
    teleport_used: bool
    hints: tuple[Hint, ...]        # hint k is hints[k - 1]
    verified: Mapping[int, bool]   # hint number -> its truth, for hint 1 and every verified hint
    scanned: np.ndarray            # (H, W) bool, read-only: every tile a scan has covered
    prison: Pos | None             # the pirate's prison, from the reveal turn r on
    pirate: Pos | None             # where the pirate is, from the release turn f on
    pirate_free: bool
    truth_rate: float              # the chance that a hint after the first is true
    max_turns: int                 # the turn limit: the game is lost after it
    news: tuple[Event, ...]


def make_observation(**fields: Any) -> Observation:
    """Observation(**fields), made without the dataclass's __init__: the game makes one
    per action, and a frozen class's __init__ sets each of the 14 fields through
    object.__setattr__, most of the cost of observing. The same object, since the class
    has no __post_init__ (tests/rules/test_observe_snapshots.py checks both)."""
    obs = object.__new__(Observation)
    object.__setattr__(obs, "__dict__", fields)  # the call's own new dict: no copy
    return obs


@runtime_checkable
class Agent(Protocol):
    """Anything with `act(obs) -> Action` is an agent.

    An agent may also define `reset(seed: int)`: it is called once before
    the game with a seed derived from the game's seed, so an agent that
    draws random numbers is reproducible (same seed, same game).

    And `explain() -> Note | None`: called right after each `act` when the
    game's notes are recorded (`treasure run --notes`), never otherwise, so
    an agent can keep what it decided and word it only when asked.
    """

    def act(self, obs: Observation) -> Action: ...


@quick_init  # one a note, each action of a recorded game
@compares_arrays
@dataclasses.dataclass(frozen=True, eq=False)
class Note:
    """An agent's word on the action it just chose, for the log and the replay.

    `text`: one short line (`verify 7: splits 212 candidates 104/108`). `tiles`: a
    (height, width) bool mask, an iterable of (row, col) tiles or a `TileSet` (a mask
    packed once with `TileSet.of`, for an agent that shows the same tiles often), shown over the map;
    with `candidates` True (the default) they are where the agent believes the
    treasure can be, and the replay marks the step if the treasure is not among them.
    """

    text: str = ""
    tiles: np.ndarray | Iterable[Pos] | ev.TileSet | None = None
    candidates: bool = True


class Observer:
    """An agent's Observations rebuilt from the public events alone.

    What the agent host in another process does (sandbox/agent_host.py): it is sent
    the public island once and the news before each action, never the game.
    tests/rules/test_observer.py checks that every Observation it makes
    equals the one the game makes, field by field.
    """

    def __init__(self, island: Island, truth_rate: float, max_turns: int):
        self.island = island
        self.truth_rate = truth_rate
        self.max_turns = max_turns
        self.position: Pos = (0, 0)
        self.teleport_used = False
        self.hints: tuple[Hint, ...] = ()
        self._verified: dict[int, bool] = {}
        self._scanned = np.zeros(island.shape, dtype=bool)
        self.prison: Pos | None = None
        self.pirate: Pos | None = None
        # Read-only snapshots, remade only when their state changes (as the game does).
        self._verified_seen: types.MappingProxyType[int, bool] = types.MappingProxyType({})
        self._scanned_seen = self._scanned.copy()
        self._scanned_seen.setflags(write=False)

    def see(self, news: tuple[Event, ...]) -> None:
        """Follow the events since the previous action."""
        e: Any  # dispatched on its exact type, which mypy does not follow through `kind`
        for e in news:
            kind = type(e)
            if kind is ev.AgentMoved or kind is ev.Teleported:
                self.position = e.dst
                if kind is ev.Teleported:
                    self.teleport_used = True
            elif kind is ev.AreaScanned:
                self._scanned[scan_square(e.centre, e.size)] = True
                self._scanned_seen = self._scanned.copy()
                self._scanned_seen.setflags(write=False)
            elif kind is ev.HintGiven:
                self.hints = (*self.hints, e.hint)
                if e.number == 1:  # the game tells hint 1's truth with the hint: it counts as verified
                    self._verify(1, True)
            elif kind is ev.HintVerified:
                self._verify(e.number, e.truthful)
            elif kind is ev.PirateMoved:
                self.pirate = e.dst
            elif kind is ev.PrisonRevealed:
                self.prison = e.pos
            elif kind is ev.AgentPlaced:
                self.position = e.pos

    def _verify(self, number: int, truth: bool) -> None:
        self._verified[number] = truth
        self._verified_seen = types.MappingProxyType(dict(self._verified))

    def observe(self, turn: int, actions_left: int, news: tuple[Event, ...]) -> Observation:
        """`see(news)`, then the Observation the agent is given for its next action."""
        self.see(news)
        free = turn >= self.island.free_turn
        return make_observation(
            island=self.island, turn=turn, actions_left=actions_left, position=self.position,
            teleport_used=self.teleport_used, hints=self.hints, verified=self._verified_seen,
            scanned=self._scanned_seen, prison=self.prison, pirate=self.pirate if free else None,
            pirate_free=free, truth_rate=self.truth_rate, max_turns=self.max_turns, news=news,
        )
