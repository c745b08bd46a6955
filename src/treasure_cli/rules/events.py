"""The one vocabulary of a game: every step is a typed, immutable event.

The engine emits these; the log writer, the live view, the replay, the
agents' knowledge and the benchmark all consume them. `turn` is 0 for the
events that come before turn 1.
"""

from __future__ import annotations

import dataclasses
import enum

import numpy as np

from treasure_cli.rules.grid import Direction, Pos, pack_bits
from treasure_cli.rules.hints import Hint
from treasure_cli.rules.quick_init import quick_init


class Outcome(enum.Enum):
    WIN = "WIN"
    LOSE = "LOSE"


class EndReason(enum.Enum):
    FOUND = "found"        # a scan covered the treasure
    PIRATE = "pirate"      # the pirate stepped onto the treasure
    TIMEOUT = "timeout"    # the turn limit was reached


@quick_init
@dataclasses.dataclass(frozen=True)
class GameStarted:
    map_name: str
    width: int
    height: int
    seed: int
    agent: str
    truth_rate: float
    max_turns: int
    hint_truths_shown: bool = False  # the agent was told every hint's truth (the oracle bound)
    map_digest: str = ""             # Island.digest of the map played ("" in hand-made events)
    turn: int = 0


@quick_init
@dataclasses.dataclass(frozen=True)
class TreasureHidden:
    """The hidden setup; only the log and the viewer see it, never an agent."""

    treasure: Pos
    prison: Pos
    turn: int = 0


@quick_init
@dataclasses.dataclass(frozen=True)
class AgentPlaced:
    pos: Pos
    turn: int = 0


@quick_init
@dataclasses.dataclass(frozen=True)
class ScheduleAnnounced:
    reveal_turn: int
    free_turn: int
    turn: int = 0


@quick_init
@dataclasses.dataclass(frozen=True)
class TurnStarted:
    turn: int


@quick_init
@dataclasses.dataclass(frozen=True)
class PrisonRevealed:
    turn: int
    pos: Pos


@quick_init
@dataclasses.dataclass(frozen=True)
class PirateFreed:
    turn: int


@quick_init
@dataclasses.dataclass(frozen=True)
class HintGiven:
    """Hint `number` is said. `truthful` is None in what an agent sees."""

    turn: int
    number: int
    hint: Hint
    truthful: bool | None


@quick_init
@dataclasses.dataclass(frozen=True)
class HintAdded:
    turn: int
    number: int
    count: int


@quick_init
@dataclasses.dataclass(frozen=True)
class PirateMoved:
    turn: int
    src: Pos
    dst: Pos


@quick_init
@dataclasses.dataclass(frozen=True)
class HintVerified:
    turn: int
    number: int
    truthful: bool


@quick_init
@dataclasses.dataclass(frozen=True)
class AgentMoved:
    turn: int
    direction: Direction
    steps: int
    src: Pos
    dst: Pos


@quick_init
@dataclasses.dataclass(frozen=True)
class AreaScanned:
    turn: int
    centre: Pos
    size: int  # side of the square: 3 after a small move, 5 for a large scan
    found: bool


@quick_init
@dataclasses.dataclass(frozen=True)
class Teleported:
    turn: int
    src: Pos
    dst: Pos


@quick_init
@dataclasses.dataclass(frozen=True)
class GameEnded:
    turn: int
    outcome: Outcome
    reason: EndReason


_BOOL = np.dtype(bool)


@quick_init
@dataclasses.dataclass(frozen=True)
class TileSet:
    """Tiles an agent showed with a note: one bit a tile, row by row (`numpy.packbits` of the
    flat mask). `candidates`: they are where it believes the treasure can be (the replay then
    checks them against the treasure), not just tiles it wants shown."""

    bits: bytes
    candidates: bool = True

    @classmethod
    def of(cls, mask: np.ndarray, candidates: bool = True) -> TileSet:
        if type(mask) is not np.ndarray or mask.dtype is not _BOOL:
            mask = np.asarray(mask, dtype=bool)
        return cls(pack_bits(mask), candidates)

    def mask(self, width: int, height: int) -> np.ndarray:
        """The tiles as a (height, width) bool mask; ValueError if the bits are not that many."""
        flat = np.unpackbits(np.frombuffer(self.bits, dtype=np.uint8), count=width * height)
        if len(self.bits) != (width * height + 7) // 8:
            raise ValueError(f"the tiles are not those of a {width}x{height} map")
        return flat.reshape(height, width).astype(bool)


@quick_init
@dataclasses.dataclass(frozen=True)
class AgentNoted:
    """What the agent said of the action that follows (its `explain()`), written only when
    notes are recorded (`run --notes`). Never from the referee, never shown to an agent."""

    turn: int
    text: str
    tiles: TileSet | None = None


@quick_init
@dataclasses.dataclass(frozen=True)
class AgentPrinted:
    """One line the agent printed (standard output or error) while it chose the action that
    follows, written only when asked (`run --agent-output`). Never shown to an agent."""

    turn: int
    text: str


@quick_init
@dataclasses.dataclass(frozen=True)
class GameFailed:
    """Not the game's own: the last event of a game its agent failed (it raised, asked for an
    illegal action, died, ran out of time), added by the referee after the events played so
    far (play/games.py). Never shown to an agent."""

    turn: int
    kind: str      # agent-error, illegal-action, game-timeout
    message: str   # one line: what failed


Event = (
    GameStarted | TreasureHidden | AgentPlaced | ScheduleAnnounced | TurnStarted
    | PrisonRevealed | PirateFreed | HintGiven | HintAdded | PirateMoved | HintVerified
    | AgentMoved | AreaScanned | Teleported | GameEnded | AgentNoted | AgentPrinted | GameFailed
)


def public_view(event: Event, hint_truths: bool = False) -> Event | None:
    """What the agent may learn from an event: no hidden setup, no hint truths.

    `hint_truths` keeps every hint's truth: the `oracle` bound plays that way.
    The game's seed is withheld too: with it the hint truths could be recomputed.
    """
    if type(event) in _SHOWN_AS_IS:  # most events: one set lookup instead of the isinstance tests
        return event
    if isinstance(event, (TreasureHidden, GameStarted, AgentNoted, AgentPrinted, GameFailed)):
        return None
    if isinstance(event, HintGiven) and event.number != 1 and not hint_truths:
        return HintGiven(event.turn, event.number, event.hint, None)
    return event


# The event types an agent sees unchanged (exactly these types; subclasses take the tests above).
_SHOWN_AS_IS = frozenset({AgentPlaced, ScheduleAnnounced, TurnStarted, PrisonRevealed, PirateFreed, HintAdded,
                          PirateMoved, HintVerified, AgentMoved, AreaScanned, Teleported, GameEnded})
