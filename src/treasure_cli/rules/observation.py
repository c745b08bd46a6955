"""What an agent is shown, and what an agent is: the contract between the game and any agent.

The game builds one (`Game.observe`) before every action an agent is asked
for (as a Gymnasium environment returns `obs` from `step`), from public
state only: it never holds the treasure, the seed, or the truth of a hint
the agent has not verified. docs/writing-an-agent.md documents every field
and what will not change without a major version.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from treasure_cli.rules.grid import Pos
from treasure_cli.rules.hints import Hint
from treasure_cli.rules.island import Island

if TYPE_CHECKING:
    from treasure_cli.rules.actions import Action
    from treasure_cli.rules.events import Event


@dataclasses.dataclass(frozen=True)
class Observation:
    """Everything the agent may know when choosing one action.

    `news` holds the public events since the agent's previous action (all of
    them, from the game's start, at its first action), for agents that keep
    their own knowledge up to date incrementally (see `Knowledge.observe`).
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


def make_observation(**fields) -> Observation:
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
    """

    def act(self, obs: Observation) -> Action: ...
