"""Step through a game: group its events into steps and fold them into frame states.

A *step* is one thing that happens, as a watcher counts it:

* step 0, the setup: the game starts, the treasure is hidden, the agent is
  placed, the pirate's schedule is announced;
* the start of a turn: the turn starts, the prison may be revealed, the
  pirate may be freed, and the turn's hint is given and added to the list;
* the pirate's move;
* one agent action: a verification, a move (with its 3x3 scan after a small
  move), a large scan, or the teleport;
* the end of the game.

The events come from a log (a list) or from a game being played (a lazy
iterator: the game advances only as far as the watcher asks). Nothing here
knows the rules: the tiles the agent has ruled out come from `Knowledge`
fed with the public events, exactly what the agents use; the truth the
watcher also sees (treasure, prison, hint truths) comes from the events.
"""

from __future__ import annotations

import copy
import dataclasses
from collections import OrderedDict
from collections.abc import Iterable, Iterator

import numpy as np

from treasure_cli.agents.knowledge import Knowledge
from treasure_cli.errors import TreasureError
from treasure_cli.formats.game_record import LogFormatError, event_line, format_event
from treasure_cli.rules import events as ev
from treasure_cli.rules.grid import Pos
from treasure_cli.rules.island import Island
from treasure_cli.rules.values import compares_arrays


_SETUP = (ev.GameStarted, ev.TreasureHidden, ev.AgentPlaced, ev.ScheduleAnnounced)
_TURN_OPENING = (ev.PrisonRevealed, ev.PirateFreed, ev.HintGiven, ev.HintAdded)


def starts_step(prev: ev.Event | None, event: ev.Event) -> bool:
    """Whether `event` begins a new step (see the module docstring)."""
    if prev is None:
        return True
    if isinstance(prev, (ev.AgentNoted, ev.AgentPrinted)):  # what the agent printed or noted, and the action
        return False                                          # that followed, are one step
    if isinstance(event, _SETUP) and isinstance(prev, _SETUP):
        return False
    if isinstance(event, _TURN_OPENING) and isinstance(prev, (ev.TurnStarted, *_TURN_OPENING)):
        return False
    small_move = isinstance(prev, ev.AgentMoved) and prev.steps <= 2
    return not (isinstance(event, ev.AreaScanned) and small_move and event.centre == prev.dst)  # type: ignore[union-attr]



def shown_line(event: ev.Event) -> str:
    """An event's log line as a frame shows it: a note's tiles (hundreds of base64 characters in
    the log) as their count; the frame draws them."""
    if isinstance(event, ev.AgentNoted) and event.tiles is not None:
        count = int.from_bytes(event.tiles.bits, "big").bit_count()
        kind = "candidates" if event.tiles.candidates else "tiles"
        return f"{format_event(ev.AgentNoted(event.turn, event.text))}, {kind}: {count} tiles (drawn)"
    return format_event(event)


@compares_arrays
@dataclasses.dataclass(frozen=True, eq=False)
class FrameState:
    """Everything one frame shows: the state after step `index`, and what that step was about.

    Equal when every field is, the masks by value (rules/values.py); not hashable."""

    index: int
    total: int | None            # steps in the game; None while a live game is still running
    turn: int
    lines: tuple[str, ...]       # the step's log lines
    game: ev.GameStarted | None
    treasure: Pos | None
    prison: Pos | None           # the pirate's prison (the truth)
    reveal_turn: int | None
    free_turn: int | None
    prison_revealed: bool
    pirate: Pos | None           # where the pirate is (the truth)
    pirate_free: bool
    agent: Pos | None
    candidates: np.ndarray       # tiles the agent has not ruled out
    hint_count: int
    truths: tuple[bool | None, ...]  # each hint's truth, as the log tells the watcher
    verified: dict[int, bool]
    teleport_used: bool
    scan: tuple[Pos, int] | None     # centre and side of the square scanned in this step
    hint: int | None                 # the hint this step is about (given or verified)
    hint_mask: np.ndarray | None
    hint_sentence: str | None        # set for a verification, whose log line does not quote the hint
    outcome: ev.GameEnded | None
    note: str | None = None            # the agent's note on this step's action (`run --notes`)
    belief: np.ndarray | None = None   # the tiles of its latest note that had tiles
    belief_candidates: bool = True     # ... where it said the treasure can be (else tiles it showed)
    miss: bool = False                 # this step's note rules out the treasure's tile
    excess: int = 0                    # tiles of this step's candidates the facts before its action rule out
    excess_tiles: np.ndarray | None = None  # ... those tiles (the page's second overlay)

    @property
    def pirate_known(self) -> bool:
        """The agent knows where the pirate is: his prison is revealed or he is out."""
        return self.prison_revealed or self.pirate_free


@dataclasses.dataclass(frozen=True)
class _Truth:
    """The watcher's side of the state, which `Knowledge` (the agent's side) does not hold."""

    game: ev.GameStarted | None = None
    treasure: Pos | None = None
    prison: Pos | None = None
    pirate: Pos | None = None
    reveal_turn: int | None = None
    free_turn: int | None = None
    revealed: bool = False
    truths: tuple[bool | None, ...] = ()
    outcome: ev.GameEnded | None = None
    belief: ev.TileSet | None = None  # the agent's latest note with tiles (the agent's side, as it told it)

    def update(self, e: ev.Event) -> _Truth:
        r = dataclasses.replace
        if isinstance(e, ev.AgentNoted):
            return self if e.tiles is None else r(self, belief=e.tiles)
        if isinstance(e, ev.GameStarted):
            return r(self, game=e)
        if isinstance(e, ev.TreasureHidden):
            return r(self, treasure=e.treasure, prison=e.prison, pirate=e.prison)
        if isinstance(e, ev.ScheduleAnnounced):
            return r(self, reveal_turn=e.reveal_turn, free_turn=e.free_turn)
        if isinstance(e, ev.PrisonRevealed):
            return r(self, revealed=True, prison=e.pos)
        if isinstance(e, ev.HintGiven):
            return r(self, truths=self.truths + (e.truthful,))
        if isinstance(e, ev.HintVerified):
            truths = list(self.truths)
            truths[e.number - 1] = e.truthful
            return r(self, truths=tuple(truths))
        if isinstance(e, ev.PirateMoved):
            return r(self, pirate=e.dst)
        if isinstance(e, ev.GameEnded):
            return r(self, outcome=e)
        return self


def _clone(know: Knowledge) -> Knowledge:
    """A copy that later updates of either side do not reach.

    Containers are copied; numpy arrays are shared, because Knowledge
    replaces its arrays (`candidates = candidates & mask`) instead of
    writing into them — tests/view/test_steps.py checks that going back gives
    the same tiles as a fresh fold.
    """
    copy_ = copy.copy(know)
    for name, value in vars(know).items():
        if isinstance(value, (list, dict, set)):
            setattr(copy_, name, copy.copy(value))
    return copy_


class Replay:
    """The steps of one game, with the frame state after any of them.

    States are rebuilt by folding events forward from the nearest
    checkpoint; a checkpoint is kept every few steps (more apart on big
    maps, where each holds megabytes) and the last frames seen are cached,
    so stepping back is instant and a jump costs at most a few steps' work.
    `path` (a log file) makes a fold error name the log line at fault.
    """

    def __init__(self, island: Island, events: Iterable[ev.Event], *, path: str | None = None,
                 checkpoint_every: int | None = None, cache_size: int = 32):
        self.island = island
        self.path = path
        self.events: list[ev.Event] = []
        self._source: Iterator[ev.Event] | None = iter(events)
        self._starts: list[int] = []
        self._every = checkpoint_every or max(1, island.regions.size // 16384)
        self._checkpoints: dict[int, tuple[Knowledge, _Truth]] = {}
        self._cache: OrderedDict[int, FrameState] = OrderedDict()
        self._cache_size = cache_size
        self._cursor: tuple[int, Knowledge, _Truth] | None = None  # the last state folded, moved forward in place
        if isinstance(events, (list, tuple)):
            self.finish()  # a log is known whole: the frames can say "step 3 of 40"

    # -- the event stream -----------------------------------------------------
    def _pull(self) -> bool:
        """Take one more event from the source; False when it has ended."""
        if self._source is None:
            return False
        try:
            event = next(self._source)
        except StopIteration:
            self._source = None
            return False
        prev = self.events[-1] if self.events else None
        if starts_step(prev, event):
            self._starts.append(len(self.events))
        self.events.append(event)
        return True

    @property
    def done(self) -> bool:
        return self._source is None

    @property
    def total(self) -> int | None:
        """The number of steps, once the whole game is known."""
        return len(self._starts) if self.done else None

    def has_step(self, index: int) -> bool:
        """Whether step `index` exists, reading (or playing) just far enough to know it is complete."""
        while len(self._starts) <= index + 1 and self._pull():
            pass
        return 0 <= index < len(self._starts)

    def finish(self) -> list[ev.Event]:
        """Read (or play) to the end; every event of the game."""
        while self._pull():
            pass
        return self.events

    def is_last(self, index: int) -> bool:
        """Whether step `index` ends the game (known without playing any further)."""
        return self.has_step(index) and self.done and index == len(self._starts) - 1

    def last_step(self) -> int:
        self.finish()
        return len(self._starts) - 1

    def step_events(self, index: int) -> list[ev.Event]:
        if not self.has_step(index):
            raise IndexError(f"no step {index}")
        end = self._starts[index + 1] if index + 1 < len(self._starts) else len(self.events)
        return self.events[self._starts[index]:end]

    def step_of_turn(self, turn: int) -> int | None:
        """The first step of `turn` (0 = the setup); None if the game ended before it."""
        index = 0
        while self.has_step(index):
            if self.events[self._starts[index]].turn >= turn:
                return index
            index += 1
        return None

    def first_step_of(self, turn: int) -> int:
        """`step_of_turn`, for a turn the user asked for: an error that says when the game ended."""
        index = self.step_of_turn(turn)
        if index is None:
            raise TreasureError(f"there is no turn {turn}: the game ended on turn {self.last_turn()}")
        return index

    def last_turn(self) -> int:
        return self.events[-1].turn if self.finish() else 0

    # -- states ---------------------------------------------------------------
    def state(self, index: int) -> FrameState:
        """The frame state after step `index`."""
        if index in self._cache:
            self._cache.move_to_end(index)
            frame = self._cache[index]
            # a live game may have ended since this frame was made
            return frame if frame.total == self.total else dataclasses.replace(frame, total=self.total)
        if not self.has_step(index):
            raise IndexError(f"no step {index}")
        base = max((k for k in self._checkpoints if k < index), default=-1)
        if self._cursor is not None and base <= self._cursor[0] <= index:
            base, know, truth = self._cursor  # stepping forward: one step of work, not a fold from a checkpoint
        elif base >= 0:
            know, truth = self._checkpoints[base]
            know = _clone(know)
        else:
            know, truth = Knowledge(self.island.public()), _Truth()
        noted: np.ndarray | None = None  # the candidates when the agent noted its own, in step `index`
        for step in range(base + 1, index + 1):
            for offset, event in enumerate(self.step_events(step)):
                if step == index and isinstance(event, ev.AgentNoted):
                    noted = know.candidates  # (replaced, never changed in place, by later folds)
                truth = self._fold(know, truth, event, self._starts[step] + offset)
            if step % self._every == 0 and step not in self._checkpoints:
                self._checkpoints[step] = (_clone(know), truth)
        self._cursor = (index, know, truth)
        frame = self._frame(index, know, truth, noted)
        self._cache[index] = frame
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return frame

    def _fold(self, know: Knowledge, truth: _Truth, event: ev.Event, number: int) -> _Truth:
        try:
            seen = ev.public_view(event, truth.game is not None and truth.game.hint_truths_shown)
            if seen is not None:
                know.update(seen)
            return truth.update(event)
        except (IndexError, KeyError, ValueError, TypeError, OverflowError, MemoryError) as exc:
            where = self.path or "<game>"
            raise LogFormatError(where, event_line(number),
                                 f"this event does not fit the map or the game so far: {exc}") from None

    def _frame(self, index: int, know: Knowledge, truth: _Truth, noted: np.ndarray | None = None) -> FrameState:
        events = self.step_events(index)
        scan = next(((e.centre, e.size) for e in events if isinstance(e, ev.AreaScanned)), None)
        hint, sentence = None, None
        note = next((e for e in events if isinstance(e, ev.AgentNoted)), None)
        belief = None
        if truth.belief is not None:
            belief = truth.belief.mask(self.island.width, self.island.height)
        miss = bool(note is not None and note.tiles is not None and note.tiles.candidates
                    and truth.treasure is not None and belief is not None and not belief[truth.treasure])
        excess, excess_tiles = 0, None
        if noted is not None and belief is not None and truth.belief is not None and truth.belief.candidates:
            kept = belief & ~noted
            excess = int(kept.sum())
            excess_tiles = kept if excess else None
        for e in events:
            if isinstance(e, ev.HintGiven):
                hint = e.number
            elif isinstance(e, ev.HintVerified):
                hint, sentence = e.number, know.hints[e.number - 1].sentence()
        return FrameState(
            index=index, total=self.total, turn=events[0].turn,
            lines=tuple(shown_line(e) for e in events),
            game=truth.game, treasure=truth.treasure, prison=truth.prison,
            reveal_turn=truth.reveal_turn, free_turn=truth.free_turn,
            prison_revealed=truth.revealed, pirate=truth.pirate, pirate_free=know.pirate_free,
            agent=know.position, candidates=know.candidates, hint_count=len(know.hints),
            truths=truth.truths, verified=dict(know.verified), teleport_used=know.teleport_used,
            scan=scan, hint=hint, hint_mask=know.hint_mask(hint) if hint is not None else None,
            hint_sentence=sentence, outcome=truth.outcome,
            note=note.text if note is not None else None, belief=belief,
            belief_candidates=truth.belief.candidates if truth.belief is not None else True, miss=miss,
            excess=excess, excess_tiles=excess_tiles,
        )
