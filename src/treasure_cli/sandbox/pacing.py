"""Steady replies: the referee's time to answer must not tell an agent where the treasure is.

Between an agent's answer and its next question the referee plays on. At a turn's
end that work depends on the hidden draws: how many candidate hints the pirate
tries before one has the truth he chose. (His path to the treasure, which
depends on it too, a paced game finds whole before its first question:
`Game.walk_path`.) An agent in another process can time its replies, and over
a game the delays could carry a little of where the treasure is. So a paced
game draws its hints evenly (`Game(even=True)`, hint_draw's `even`): every
candidate drawn and tested, the first that matches kept, a work that does not
depend on the treasure; the pace below is a second wall.

In games played with a secret seed (the tournament), the referee therefore
holds each question that follows a turn's end, made and ready to send, until
a fixed delay after the agent's answer: a `Pace`, measured once per island
and process on decoy games, whose treasures are drawn from the public island
alone, with the hint kinds of the game (a slow plugin kind slows every turn). What the agent can time is then that delay and the pipe's latency. A
turn whose work overran the pace (rare: the pace is twice the slowest decoy
turn) is counted in `ProcessAgent.late` and held to the next multiple of the
pace: it shows that it was late, not by how much. What is left of the channel,
and how it was measured (benchmarks/reply_timing.py): docs/security.md.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from treasure_cli.errors import UnplayableMapError
from treasure_cli.formats import wire
from treasure_cli.rules.actions import LargeScan
from treasure_cli.rules.events import Event
from treasure_cli.rules.game import Game
from treasure_cli.rules.hint_draw import HintSet
from treasure_cli.rules.island import Island

DECOY_GAMES = 8        # decoy treasures per island
DECOY_TURNS = 24       # turns played in each decoy game at most
REPEATS = 3            # times each decoy game is played (each turn's work is its fastest time)
MARGIN = 2.0           # the pace over the slowest decoy's work
OUTLIER = 1.5          # a decoy turn slower than this many typical turns is played again (`measure`)...
RETRIES = 12           # ...this many times at most in all
FLOOR = 50e-6          # seconds: below this the machine's own jitter is larger than the work
SPIN = 2e-3            # seconds: a wait up to this long is spun, not slept; a longer one spins its end (`hold`)
DECOY_SEED = 20261125  # public on purpose: decoys are drawn from the public island, never the treasure


@dataclasses.dataclass(frozen=True)
class Pace:
    """Seconds from an agent's answer to the next question, when that answer ended a turn
    (`turn`), and from the moment the referee begins to make a game to its first question
    (`start`: what comes before, between the agent's `ready` and that moment, is bookkeeping
    that no treasure changes)."""

    turn: float
    start: float


_PACES: dict[tuple[str, float, int | None, HintSet | None], Pace] = {}
_KEPT = 64  # paces kept per process (a tournament's maps; each costs a few ms to measure again)


def pace_for(island: Island, truth_rate: float, max_turns: int | None, hints: HintSet | None = None) -> Pace:
    """The pace of games on `island` with the hint kinds `hints` (None: the built-ins), measured
    once per process for its public copy: islands that differ only in their treasure share it,
    so it says nothing of where the treasure is."""
    public = island.public()
    key = (public.digest, truth_rate, max_turns, hints)
    pace = _PACES.get(key)
    if pace is None:
        if len(_PACES) >= _KEPT:
            _PACES.pop(next(iter(_PACES)))
        pace = _PACES[key] = measure(public, truth_rate, max_turns, hints)
    return pace


def measure(public: Island, truth_rate: float, max_turns: int | None, hints: HintSet | None = None) -> Pace:
    """Time the referee's work on decoy games: the public island with treasures of our choosing.

    Each decoy game is played REPEATS times, the same game, and each turn counted at its
    fastest: what is kept is the work, not a pause of the machine in one of the runs. The runs
    come in rounds over all the decoys, not one game's back to back, so that one spell of load
    rarely falls on every run of a turn.
    """
    if public.treasure is not None:
        raise ValueError("a pace is measured on the public island: the real treasure must not set it")
    rng = np.random.default_rng(DECOY_SEED)
    candidates = _decoy_tiles(public)
    fastest: list[tuple[Island, int, list[float]]] = []  # a decoy, its game's seed, its fastest times
    for d in range(DECOY_GAMES + 1):  # game 0 warms this process up (imports, caches), untimed
        decoy = dataclasses.replace(public, treasure=divmod(int(candidates[rng.integers(candidates.size)]),
                                                            public.width))
        try:
            times = _decoy_game(public, decoy, d, truth_rate, max_turns, hints)
        except (UnplayableMapError, ValueError):
            continue  # a decoy no prison can reach: the next one
        if d:
            fastest.append((decoy, d, times))
    if not fastest:
        raise UnplayableMapError("no decoy game could be played on this island")

    def again(decoy: Island, d: int, times: list[float]) -> tuple[Island, int, list[float]]:
        return decoy, d, list(map(min, times, _decoy_game(public, decoy, d, truth_rate, max_turns, hints)))

    for _ in range(REPEATS - 1):
        fastest = [again(*game) for game in fastest]
    # A turn far slower than the typical one is more likely a pause that fell on each of its
    # runs (an even turn, ~1 ms, is often interrupted under load) than work: its game is
    # played again, a few times at most, and a turn that stays slow counts.
    for _ in range(RETRIES):
        turns = [(t, i) for i, (_, _, times) in enumerate(fastest) for t in times[1:]]
        if not turns:
            break
        slowest, i = max(turns)
        if slowest <= OUTLIER * float(np.median([t for t, _ in turns])):
            break
        fastest[i] = again(*fastest[i])
    start_work = max(times[0] for _, _, times in fastest)
    turn_work = max((max(times[1:], default=0.0) for _, _, times in fastest), default=0.0)
    return Pace(turn=max(FLOOR, MARGIN * turn_work), start=max(FLOOR, MARGIN * start_work))


def _decoy_game(public: Island, decoy: Island, seed: int, truth_rate: float, max_turns: int | None,
                hints: HintSet | None) -> list[float]:
    """Seconds of the referee's work in one decoy game: its start, with the pirate's whole
    walk found as a paced game finds it (`Game.walk_path`), then each turn's end (up to DECOY_TURNS)."""
    clock = time.perf_counter()
    game = Game(decoy, seed, truth_rate=truth_rate, max_turns=max_turns, hints=hints, even=True)
    game.walk_path()
    game.start()
    _encode(game.observe().news, public)
    wire.encode_island(public)
    times = [time.perf_counter() - clock]
    turn = game.turn
    while not game.over and game.turn <= DECOY_TURNS:
        clock = time.perf_counter()
        game.step(LargeScan())
        if not game.over:
            _encode(game.observe().news, public)
        if game.turn != turn:
            times.append(time.perf_counter() - clock)
            turn = game.turn
    return times


def _encode(news: tuple[Event, ...], public: Island) -> None:
    """What the referee does with a question's news before sending it (the pace must cover it)."""
    for event in news:
        wire.encode_event(event, public, True)


def _decoy_tiles(public: Island) -> np.ndarray:
    """Flat indices of walkable tiles, not prisons, in a walking piece that holds a prison:
    where a treasure could be for all the public island says."""
    pieces = public.walk_pieces
    with_prison = np.unique(pieces[public.prison & public.walkable])
    open_tiles = public.walkable & ~public.prison
    tiles = np.flatnonzero(open_tiles & np.isin(pieces, with_prison))
    if not tiles.size:  # a treasure off walkable land, next to the prisons' pieces: any open tile
        tiles = np.flatnonzero(open_tiles)
    if not tiles.size:
        raise UnplayableMapError("no tile for the agent to start on")
    return tiles


def hold(since: float, delay: float) -> bool:
    """Wait until `delay` seconds after `since` (time.perf_counter's clock), or, if that moment
    has passed, until the next whole multiple of `delay` after `since`; True if it had passed.

    A late turn shows only that it was late, not by how much. The same holds for a sleep that
    wakes after the moment (a loaded machine): how late a sleep wakes depends on how long it
    slept, which is the pace less the work, so it too is held to the next multiple.
    """
    now = time.perf_counter()
    late, until = _next_multiple(since, delay, now)
    if until - now > SPIN:
        # A long wait (a slow plugin kind's pace) sleeps, then spins its last SPIN seconds; a
        # tournament's usual pace (under a millisecond) only spins. How long a CPU takes to wake
        # from a sleep depends on how long it slept (the deeper idle states) and on the load;
        # when a spin ends does not. One sleep at most: after a late wake, spin.
        time.sleep(until - now - SPIN)
        woke_late, until = _next_multiple(since, delay, time.perf_counter())
        late = late or woke_late
    while time.perf_counter() < until:
        pass
    return late


def _next_multiple(since: float, delay: float, now: float) -> tuple[bool, float]:
    """Whether `since + delay` has passed at `now`, and the first whole multiple of `delay` after
    `since` that has not."""
    if now - since <= delay:
        return False, since + delay
    return True, since + delay * math.ceil((now - since) / delay)
