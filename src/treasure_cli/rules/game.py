"""The engine: the only owner of the truth and the only thing that changes game state.

`Game.play()` yields the game's events one by one, asking the agent for its
actions in between. The agent is handed an Observation built from public state
only; it never sees the treasure or the truth of a hint it has not verified.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Generator, Iterator

import numpy as np

from treasure_cli.errors import AgentCrashError, IllegalActionError, TreasureError, UnplayableMapError
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
from treasure_cli.rules.hint_draw import HintContext, draw_hint
from treasure_cli.rules.hints import Hint
from treasure_cli.rules.island import Island
from treasure_cli.rules.observation import Agent, Observation, make_observation
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
    return starts[starts != island.treasure[0] * island.width + island.treasure[1]]


def unplayable(island: Island) -> str | None:
    """Why no game can start on this (valid) map, or None: what `check` and `run` both say."""
    return None if start_tiles(island).size else NO_START


def default_turn_limit(width: int, height: int) -> int:
    """The turn limit of a W x H map when none is given (RULES §5): 4·(W+H)."""
    return 4 * (width + height)


class Game:
    """One game of one agent on one island with one seed."""

    def __init__(
        self,
        island: Island,
        agent: Agent,
        seed: int,
        *,
        agent_name: str = "agent",
        map_name: str = "map",
        truth_rate: float = 0.5,
        max_turns: int | None = None,
        hint_truths_public: bool = False,
    ):
        """`hint_truths_public` tells the agent every hint's truth (the oracle bound only)."""
        if island.treasure is None:
            raise ValueError("the game needs an island with its treasure")
        check_truth_rate(truth_rate)
        self.island = island
        self.public_island = island.public()
        self.agent = agent
        self.seed = seed
        self.agent_name = agent_name
        self.map_name = map_name
        self.truth_rate = truth_rate
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
        self.verified: dict[int, bool] = {}
        self.scanned = np.zeros(island.shape, dtype=bool)
        self.teleport_used = False
        self.result: GameEnded | None = None  # set once the game is over
        self._news: list[Event] = []
        self._found = False
        # The Observation's read-only snapshots of hints, verified and scanned: they change on a
        # few actions only, so each is rebuilt when it changes (None: stale), not on every action.
        self._hints_seen: tuple[Hint, ...] | None = None
        self._verified_seen: types.MappingProxyType | None = None
        self._scanned_seen: np.ndarray | None = None

    # ------------------------------------------------------------ helpers
    @functools.cached_property
    def path(self) -> list[Pos]:
        """The pirate's walk from his prison to the treasure, found when first needed: many
        games end before he is free (at 64x64, most), and it was half the game's setup."""
        return island_pirate_path(self.island, self.prison)

    @property
    def pirate(self) -> Pos:
        return self.path[self.pirate_index]

    def _say(self, event: Event) -> Event:
        if type(event) in _SHOWN_AS_IS:  # public_view's first test, without its call (most events)
            self._news.append(event)
            return event
        seen = public_view(event, self.hint_truths_public)
        if seen is not None:
            self._news.append(seen)
        return event

    def _end(self, outcome: Outcome, reason: EndReason) -> Event:
        self.result = GameEnded(self.turn, outcome, reason)
        return self._say(self.result)

    def observe(self, actions_left: int) -> Observation:
        isl = self.island
        if self._scanned_seen is None:
            self._scanned_seen = self.scanned.copy()
            self._scanned_seen.setflags(write=False)
        if self._verified_seen is None:
            self._verified_seen = types.MappingProxyType(dict(self.verified))
        if self._hints_seen is None:
            self._hints_seen = tuple(self.hints)
        news, self._news = tuple(self._news), []
        free = self.turn >= isl.free_turn
        return make_observation(
            island=self.public_island,
            turn=self.turn,
            actions_left=actions_left,
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

    def _illegal(self, action: object, why: str) -> IllegalActionError:
        return IllegalActionError(
            self.turn, f"illegal action {action!r} from the agent at {self.position} "
            f"(teleport used: {self.teleport_used}, hints: {len(self.hints)}, "
            f"verified: {sorted(self.verified)}): {why}"
        )

    # ------------------------------------------------------------ the game
    def play(self) -> Iterator[Event]:
        isl = self.island
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            self._call(reset, seeds.agent_seed(self.seed))
        yield self._say(GameStarted(self.map_name, isl.width, isl.height, self.seed, self.agent_name,
                                    self.truth_rate, self.max_turns, self.hint_truths_public, isl.digest))
        yield self._say(TreasureHidden(self.treasure, self.prison))
        yield self._say(AgentPlaced(self.position))
        yield self._say(ScheduleAnnounced(isl.reveal_turn, isl.free_turn))
        for turn in range(1, self.max_turns + 1):
            self.turn = turn
            yield self._say(TurnStarted(turn))
            if turn == isl.reveal_turn:
                yield self._say(PrisonRevealed(turn, self.prison))
            if turn == isl.free_turn:
                yield self._say(PirateFreed(turn))
            yield from self._give_hint()
            if turn >= isl.free_turn:
                src = self.pirate
                self.pirate_index = next_stop(self.path, self.pirate_index)
                yield self._say(PirateMoved(turn, src, self.pirate))
                if self.pirate == self.treasure:
                    yield self._end(Outcome.LOSE, EndReason.PIRATE)
                    return
            for used in range(ACTIONS_PER_TURN):
                yield from self._agent_action(ACTIONS_PER_TURN - used)
                if self._found:
                    yield self._end(Outcome.WIN, EndReason.FOUND)
                    return
        yield self._end(Outcome.LOSE, EndReason.TIMEOUT)

    def run(self) -> list[Event]:
        """Play to the end and return every event."""
        return list(self.play())

    def _give_hint(self) -> Iterator[Event]:
        turn = self.turn
        draw = seeds.draws(self.seed, seeds.HINTS, turn)
        truthful = turn == 1 or bool(draw.random() < self.truth_rate)
        ctx = HintContext(turn, self.prison, self.position, turn >= self.island.reveal_turn)
        hint = draw_hint(self.island, self.treasure, ctx, truthful, draw)
        self.hints.append(hint)
        self.truths.append(truthful)
        self._hints_seen = None
        number = len(self.hints)
        if number == 1:
            self.verified[1] = True  # hint 1 is known true without costing an action
            self._verified_seen = None
        yield self._say(HintGiven(turn, number, hint, truthful))
        yield self._say(HintAdded(turn, number, number))

    def _call(self, method, *args):
        """Run the agent's code; its exceptions end the game as the agent's failure."""
        try:
            return method(*args)
        except TreasureError:
            raise
        except Exception as exc:
            raise AgentCrashError(self.turn, f"the agent raised {type(exc).__name__}: {exc}") from exc

    def _agent_action(self, actions_left: int) -> Iterator[Event]:
        action = yield from self._ask(actions_left)
        if isinstance(action, Teleport):
            yield from self._teleport(action)
            action = yield from self._ask(actions_left)
            if isinstance(action, Teleport):
                raise self._illegal(action, "the teleport can be used only once a game")
        if isinstance(action, Verify):
            k = action.number
            if not isinstance(k, int) or not 1 <= k <= len(self.hints):
                raise self._illegal(action, f"there is no hint {k}")
            if k in self.verified:
                raise self._illegal(action, f"hint {k} is already verified")
            self.verified[k] = self.truths[k - 1]
            self._verified_seen = None
            yield self._say(HintVerified(self.turn, k, self.truths[k - 1]))
        elif isinstance(action, Move):
            well_formed = isinstance(action.direction, Direction) and isinstance(action.steps, int)
            dst = move_target(self._walkable, self.position, action) if well_formed else None
            if dst is None:
                raise self._illegal(action, "a move must go 1 to 4 tiles over walkable tiles inside the map")
            src, self.position = self.position, dst
            yield self._say(AgentMoved(self.turn, action.direction, action.steps, src, dst))
            if action.small:
                yield self._scan(SMALL_SCAN_SIZE)
        elif isinstance(action, LargeScan):
            yield self._scan(LARGE_SCAN_SIZE)
        else:
            raise self._illegal(action, "not an action")

    def _ask(self, actions_left: int) -> Generator[object, object, object]:
        """The agent's next action: here, the answer of its `act`, with nothing yielded.

        A generator so that a driver can take the agent's place without a thread:
        `treasure_cli.gym` overrides it to yield a request out of `play()` and be
        sent the action, so its environment runs this very engine one action at a time.
        """
        return self._call(self.agent.act, self.observe(actions_left))
        yield  # unreachable: makes this method a generator

    def _teleport(self, action: Teleport) -> Iterator[Event]:
        if self.teleport_used:
            raise self._illegal(action, "the teleport can be used only once a game")
        try:
            r, c = (int(x) for x in action.target)
        except (TypeError, ValueError):
            raise self._illegal(action, "the teleport target must be a (row, col) pair") from None
        if not (self.island.inside((r, c)) and self.island.walkable[r, c]):
            raise self._illegal(action, "the teleport target must be a walkable tile inside the map")
        src, self.position, self.teleport_used = self.position, (r, c), True
        yield self._say(Teleported(self.turn, src, self.position))

    def _scan(self, size: int) -> Event:
        self.scanned[scan_square(self.position, size)] = True
        self._scanned_seen = None
        self._found = in_scan(self.position, size, self.treasure)
        return self._say(AreaScanned(self.turn, self.position, size, self._found))
