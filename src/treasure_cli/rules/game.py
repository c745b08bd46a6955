"""The engine: the only owner of the truth and the only thing that changes game state.

A `Game` knows no agent. It is a state machine driven from outside: `start()`
plays up to the first request for an action, then `observe()` shows what an
agent may see (public state only: never the treasure, nor the truth of a hint
it has not verified) and `step(action)` applies one action and plays on to the
next request or the end. `play.loop.play_agent` is the loop that asks an agent.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Sequence
from typing import Any

import numpy as np

from treasure_cli.errors import IllegalActionError, UnplayableMapError
from treasure_cli.rules import seeds
from treasure_cli.rules.actions import (
    LARGE_SCAN_SIZE, SMALL_SCAN_SIZE, LargeScan, Move, Teleport, Verify, in_scan, move_target, scan_square,
)
from treasure_cli.rules.events import (
    AgentMoved, AgentPlaced, AreaScanned, EndReason, Event, GameEnded, GameStarted, HintAdded,
    HintGiven, HintVerified, Outcome, PirateFreed, PirateMoved, PrisonRevealed, ScheduleAnnounced,
    Teleported, TreasureHidden, TurnStarted, _SHOWN_AS_IS, public_view,
)
from treasure_cli.rules.grid import Direction, Pos
from treasure_cli.rules.hint_draw import HintSet, draw_hint
from treasure_cli.rules.hint_kinds import HintContext
from treasure_cli.rules.hints import Hint
from treasure_cli.rules.plugin_kinds import PluginHint, TileSetHint
from treasure_cli.rules.island import Island
from treasure_cli.rules.observation import Observation, make_observation
from treasure_cli.rules.pirate import island_pirate_path, next_stop

ACTIONS_PER_TURN = 2
NO_START = "no tile for the agent to start on: every walkable tile is a prison or the treasure"


def check_truth_rate(truth_rate: float) -> None:
    """The chance that a hint is true is a probability (nan is not)."""
    if not 0.0 <= truth_rate <= 1.0:
        raise ValueError(f"truth rate must be between 0 and 1, got {truth_rate}")


def start_tiles(island: Island) -> np.ndarray:
    """Flat indices of the tiles the agent may start on (RULES §4): walkable, no prison, not the treasure."""
    starts = np.flatnonzero(island.walkable & ~island.prison)
    assert island.treasure is not None  # the game's island
    return starts[starts != island.treasure[0] * island.width + island.treasure[1]]  # type: ignore[no-any-return]


def unplayable(island: Island) -> str | None:
    """Why no game can start on this (valid) map, or None: what `check` and `run` both say."""
    return None if start_tiles(island).size else NO_START


def default_turn_limit(width: int, height: int) -> int:
    """The turn limit of a W x H map when none is given (RULES §5): 4·(W+H)."""
    return 4 * (width + height)


class Game:
    """One game on one island with one seed, played one action at a time.

    `start()` once, then `observe()` and `step(action)` while `actions_left` (2 or 1; a
    teleport leaves it as it was) until `over`. `check(action)` tells whether `step`
    would take an action without changing anything. `keep_news=False` skips building
    the observations' news (for a driver that never shows them to an agent).
    """

    def __init__(
        self,
        island: Island,
        seed: int,
        *,
        agent_name: str = "agent",
        map_name: str = "map",
        truth_rate: float = 0.5,
        max_turns: int | None = None,
        hint_truths_public: bool = False,
        keep_news: bool = True,
        hints: HintSet | None = None,
        even: bool = False,
    ):
        """`hint_truths_public` tells the agent every hint's truth (the oracle bound only);
        `hints`: the kinds the pirate chooses from (default: the 15 built-in kinds); `even`: each
        hint drawn with a work that does not depend on the treasure (`draw_hint`'s `even`, for
        steadily paced games: sandbox/pacing.py), the same hints."""
        if island.treasure is None:
            raise ValueError("the game needs an island with its treasure")
        check_truth_rate(truth_rate)
        self.island = island
        self.public_island = island.public()
        self.seed = seed
        self.agent_name = agent_name
        self.map_name = map_name
        self.truth_rate = truth_rate
        self.hint_kinds = hints
        self.even = even
        self.hint_truths_public = hint_truths_public
        self.max_turns = max_turns if max_turns is not None else default_turn_limit(island.width, island.height)
        if self.max_turns < 1:
            raise ValueError("the turn limit must be at least 1")
        self.treasure: Pos = island.treasure
        self._walkable = island.walkable  # read at every move (an island property costs a call)

        # The draws of seeds.stream(seed, SETUP).integers(n), one after the other (below(n - 1)
        # is integers(n)), without making a numpy Generator: that cost more than the two draws.
        setup = seeds.draws(seed, seeds.SETUP)
        prisons = island.reachable_prisons
        self.prison: Pos = prisons[setup.below(len(prisons) - 1)]
        starts = start_tiles(island)
        if not starts.size:
            raise UnplayableMapError(NO_START)
        flat = int(starts[setup.below(starts.size - 1)])
        self.position: Pos = (flat // island.width, flat % island.width)

        self.pirate_index = 0  # his stop on `path`
        self.turn = 0
        self.hints: list[Hint] = []
        self.truths: list[bool] = []
        self._agent_hints: list[Hint] = []  # `hints` as the agent gets them (`_agent_hint`)
        self.verified: dict[int, bool] = {}
        self.scanned = np.zeros(island.shape, dtype=bool)
        self.teleport_used = False
        self.result: GameEnded | None = None  # set once the game is over
        self._started = False
        self._left = 0  # actions left in the turn while an action is awaited, else 0
        self._out: list[Event] = []  # the events of the current start() or step()
        self._keep_news = keep_news
        self._news: list[Event] = []
        self._found = False
        # The Observation's read-only snapshots of hints, verified and scanned: they change on a
        # few actions only, so each is rebuilt when it changes (None: stale), not on every action.
        self._hints_seen: tuple[Hint, ...] | None = None
        self._verified_seen: types.MappingProxyType[int, bool] | None = None
        self._scanned_seen: np.ndarray | None = None

    # ------------------------------------------------------------ state
    @functools.cached_property
    def path(self) -> Sequence[Pos]:
        """The pirate's walk from his prison to the treasure, found when first needed (many
        games end before he is free: at 64x64, most), and then only as far as he walks."""
        return island_pirate_path(self.island, self.prison)

    def walk_path(self) -> None:
        """Find the pirate's whole walk now rather than turn by turn. A steadily paced game
        (sandbox/pacing.py) calls it before its first question, so that no turn's work depends on
        how far he walks; it draws nothing, so the game plays exactly as it would without."""
        path = self.path
        path[len(path) - 1]

    @property
    def pirate(self) -> Pos:
        return self.path[self.pirate_index]

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def actions_left(self) -> int:
        """2 or 1 while the game waits for an action, 0 before the start and once it is over."""
        return self._left

    def observe(self) -> Observation:
        """What the agent may see now; its news are the public events since the previous call."""
        if not self._started:
            raise RuntimeError("the game has not started: call start() first")
        isl = self.island
        if self._scanned_seen is None:
            self._scanned_seen = self.scanned.copy()
            self._scanned_seen.setflags(write=False)
        if self._verified_seen is None:
            self._verified_seen = types.MappingProxyType(dict(self.verified))
        if self._hints_seen is None:
            self._hints_seen = tuple(self._agent_hint(k) for k in range(1, len(self.hints) + 1))
        news, self._news = tuple(self._news), []
        free = self.turn >= isl.free_turn
        return make_observation(
            island=self.public_island,
            turn=self.turn,
            actions_left=self._left,
            position=self.position,
            teleport_used=self.teleport_used,
            hints=self._hints_seen,
            verified=self._verified_seen,
            scanned=self._scanned_seen,
            prison=self.prison if self.turn >= isl.reveal_turn else None,
            pirate=self.pirate if free else None,
            pirate_free=free,
            truth_rate=self.truth_rate,
            max_turns=self.max_turns,
            news=news,
        )

    # ------------------------------------------------------------ driving
    def start(self) -> list[Event]:
        """The setup and the first turn's events, up to the first request for an action (or the end)."""
        if self._started:
            raise RuntimeError("the game has already started")
        self._started = True
        isl = self.island
        out = self._out = []
        say = self._say
        say(GameStarted(self.map_name, isl.width, isl.height, self.seed, self.agent_name,
                        self.truth_rate, self.max_turns, self.hint_truths_public, isl.digest))
        say(TreasureHidden(self.treasure, self.prison))
        say(AgentPlaced(self.position))
        say(ScheduleAnnounced(isl.reveal_turn, isl.free_turn))
        self._next_turn()
        return out

    def check(self, action: object) -> None:
        """Raise IllegalActionError if `step` would refuse `action`; changes nothing."""
        self._target(action)

    def step(self, action: object) -> list[Event]:
        """Apply one action; its events and the game's up to the next request or the end.
        An illegal action raises IllegalActionError and leaves the game as it was."""
        target = self._target(action)  # every check comes before any change
        out = self._out = []
        if isinstance(action, Move):
            src, self.position = self.position, target
            self._say(AgentMoved(self.turn, action.direction, action.steps, src, target))
            if action.small:
                self._scan(SMALL_SCAN_SIZE)
        elif isinstance(action, LargeScan):
            self._scan(LARGE_SCAN_SIZE)
        elif isinstance(action, Verify):
            truth = self.verified[target] = self.truths[target - 1]
            self._verified_seen = None
            self._say(HintVerified(self.turn, target, truth))
        else:  # a teleport: free, so the same request follows
            src, self.position, self.teleport_used = self.position, target, True
            self._say(Teleported(self.turn, src, target))
            return out
        if self._found:
            self._end(Outcome.WIN, EndReason.FOUND)
        elif self._left > 1:
            self._left -= 1
        else:
            self._next_turn()
        return out

    # ------------------------------------------------------------ the rules
    def _target(self, action: object) -> Any:
        """Where a legal action leads (a move's or teleport's tile, a verified hint's number);
        IllegalActionError if the rules forbid it. The one place an action is checked."""
        if not self._left:
            raise RuntimeError("the game is over" if self._started else
                               "the game has not started: call start() first")
        if isinstance(action, Move):
            well_formed = isinstance(action.direction, Direction) and isinstance(action.steps, int)
            dst = move_target(self._walkable, self.position, action) if well_formed else None
            if dst is None:
                raise self._illegal(action, "a move must go 1 to 4 tiles over walkable tiles inside the map")
            return dst
        if isinstance(action, LargeScan):
            return None
        if isinstance(action, Verify):
            k = action.number
            if not isinstance(k, int) or not 1 <= k <= len(self.hints):
                raise self._illegal(action, f"there is no hint {k}")
            if k in self.verified:
                raise self._illegal(action, f"hint {k} is already verified")
            return k
        if isinstance(action, Teleport):
            if self.teleport_used:
                raise self._illegal(action, "the teleport can be used only once a game")
            try:
                r, c = (int(x) for x in action.target)
            except (TypeError, ValueError, OverflowError):  # (int() of an infinite float overflows)
                raise self._illegal(action, "the teleport target must be a (row, col) pair") from None
            if not (self.island.inside((r, c)) and self._walkable[r, c]):
                raise self._illegal(action, "the teleport target must be a walkable tile inside the map")
            return (r, c)
        raise self._illegal(action, "not an action")

    def _illegal(self, action: object, why: str) -> IllegalActionError:
        return IllegalActionError(
            self.turn, f"illegal action {action!r} from the agent at {self.position} "
            f"(teleport used: {self.teleport_used}, hints: {len(self.hints)}, "
            f"verified: {sorted(self.verified)}): {why}"
        )

    def _say(self, event: Event) -> None:
        self._out.append(event)
        if not self._keep_news:
            return
        if type(event) in _SHOWN_AS_IS:  # public_view's first test, without its call (most events)
            self._news.append(event)
            return
        seen = public_view(event, self.hint_truths_public)
        if type(seen) is HintGiven and isinstance(seen.hint, PluginHint):
            seen = HintGiven(seen.turn, seen.number, self._agent_hint(seen.number), seen.truthful)
        if seen is not None:
            self._news.append(seen)

    def _agent_hint(self, number: int) -> Hint:
        """Hint `number` as the agent gets it: a plugin kind's as a TileSetHint (its name, statement and
        tiles), the value an agent in another process rebuilds from the protocol; any other as it is."""
        while len(self._agent_hints) < number:
            hint = self.hints[len(self._agent_hints)]
            self._agent_hints.append(TileSetHint.of(hint, self.public_island) if isinstance(hint, PluginHint)
                                     else hint)
        return self._agent_hints[number - 1]

    def _end(self, outcome: Outcome, reason: EndReason) -> None:
        self.result = GameEnded(self.turn, outcome, reason)
        self._left = 0
        self._say(self.result)

    def _next_turn(self) -> None:
        """Play the next turn up to its first request for an action, or end the game."""
        isl = self.island
        turn = self.turn + 1
        if turn > self.max_turns:
            self._end(Outcome.LOSE, EndReason.TIMEOUT)
            return
        self.turn = turn
        say = self._say
        say(TurnStarted(turn))
        if turn == isl.reveal_turn:
            say(PrisonRevealed(turn, self.prison))
        if turn == isl.free_turn:
            say(PirateFreed(turn))
        self._give_hint()
        if turn >= isl.free_turn:
            src = self.pirate
            self.pirate_index = next_stop(self.path, self.pirate_index)
            say(PirateMoved(turn, src, self.pirate))
            if self.pirate == self.treasure:
                self._end(Outcome.LOSE, EndReason.PIRATE)
                return
        self._left = ACTIONS_PER_TURN

    def _give_hint(self) -> None:
        turn = self.turn
        draw = seeds.draws(self.seed, seeds.HINTS, turn)
        truthful = turn == 1 or bool(draw.random() < self.truth_rate)
        ctx = HintContext(turn, self.prison, self.position, turn >= self.island.reveal_turn)
        hint = draw_hint(self.island, self.treasure, ctx, truthful, draw, self.hint_kinds, even=self.even)
        self.hints.append(hint)
        self.truths.append(truthful)
        self._hints_seen = None
        number = len(self.hints)
        if number == 1:
            self.verified[1] = True  # hint 1 is known true without costing an action
            self._verified_seen = None
        self._say(HintGiven(turn, number, hint, truthful))
        self._say(HintAdded(turn, number, number))

    def _scan(self, size: int) -> None:
        self.scanned[scan_square(self.position, size)] = True
        self._scanned_seen = None
        self._found = in_scan(self.position, size, self.treasure)
        self._say(AreaScanned(self.turn, self.position, size, self._found))
