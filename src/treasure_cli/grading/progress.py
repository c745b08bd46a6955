"""How far a tournament is, and how long the rest will take, from what its games have measured.

A plain games-per-second rate is wrong as soon as the games are not alike: a
class mixes agents that take a millisecond a game with one that takes a
second, and the tournament plays its largest maps first, so the first
minutes' rate says little about the rest (a 5-minute run once announced
21 minutes, then 3). The estimate here prices every game still to play:

- a game's cost is its agent's measured seconds per game on maps of its size,
  else its agent's measured seconds per tile times the map's tiles, else the
  mean of the other agents on that size, else of every game so far per tile;
- an agent none of whose games has ended yet costs at least the age of its
  oldest game in flight, per tile (a slow agent is slow before it has
  finished a game);
- the wall-clock time per second of measured game time since the first game
  ended (below 1 with several workers, above with the work around each game;
  not from the start, which includes starting the workers) turns that cost
  into time.

`clock` is injectable so a test can play a run at a known pace.
"""

from __future__ import annotations

import dataclasses
import time
from collections import defaultdict
from collections.abc import Callable, Iterable


@dataclasses.dataclass(frozen=True)
class Planned:
    """One game still to play, as the estimate sees it."""

    agent: str
    tiles: int   # W x H: games on maps of one size cost alike


class Estimate:
    """Games done of total, failures per agent, and the time left (`remaining`)."""

    def __init__(self, planned: Iterable[Planned], clock: Callable[[], float] = time.monotonic,
                 noun: bool = True):
        self.clock, self.noun = clock, noun
        self.start = clock()
        self.left: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])  # (agent, tiles) -> [games, tiles]
        self.total = 0
        for p in planned:
            cell = self.left[(p.agent, p.tiles)]
            cell[0] += 1
            cell[1] += p.tiles
            self.total += 1
        self.done = 0
        self.failed: dict[str, int] = defaultdict(int)
        self.seconds = 0.0                       # measured game time of the games done
        self._first: tuple[float, float] | None = None  # when the first game ended, and the game time then
        self._tiles = 0
        self._by_cell: dict[tuple[str, int], list[float]] = defaultdict(lambda: [0, 0.0])  # [games, seconds]
        self._by_agent: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])  # [tiles, seconds]
        self._by_size: dict[int, list[float]] = defaultdict(lambda: [0, 0.0])   # [games, seconds]
        self._flight: dict[str, list[tuple[float, int]]] = defaultdict(list)  # (start, tiles) of each in flight

    def started(self, agent: str, tiles: int) -> None:
        """A game of `agent` on `tiles` tiles was handed to a worker: until one of the agent's games
        ends, the age of its oldest per tile is what the agent costs at least."""
        self._flight[agent].append((self.clock(), max(1, tiles)))

    def finished(self, agent: str, tiles: int, seconds: float, failed: bool = False) -> None:
        """One game ended (and was kept), having taken `seconds` of its own."""
        self.done += 1
        if self._flight.get(agent):
            self._flight[agent].pop(0)
        cell = self.left[(agent, tiles)]
        cell[0] = max(0, cell[0] - 1)
        cell[1] = max(0, cell[1] - tiles)
        if failed:
            self.failed[agent] += 1
        seconds = max(0.0, seconds)
        self.seconds += seconds
        if self._first is None:
            self._first = (self.clock(), self.seconds)
        self._tiles += tiles
        for entry, amount in ((self._by_cell[(agent, tiles)], 1), (self._by_agent[agent], tiles),
                              (self._by_size[tiles], 1)):
            entry[0] += amount
            entry[1] += seconds

    def _cost(self, agent: str, size: int, games: int, tiles: int) -> float:
        """The measured cost of `games` games of `agent` on maps of `size` tiles (`tiles` in all)."""
        cell = self._by_cell.get((agent, size))
        if cell and cell[0]:
            return games * cell[1] / cell[0]
        mine = self._by_agent.get(agent)
        if mine and mine[0]:
            return tiles * mine[1] / mine[0]
        there = self._by_size.get(size)
        if there and there[0]:
            return games * there[1] / there[0]
        return tiles * self.seconds / self._tiles if self._tiles else 0.0

    def remaining(self) -> float | None:
        """Seconds until the last game ends; None before a game has ended (nothing measured yet)."""
        if self.done == 0:
            return None
        if self.done >= self.total:
            return 0.0
        now = self.clock()
        by_agent: dict[str, float] = defaultdict(float)
        for (agent, size), (games, tiles) in self.left.items():
            if games:
                cost = self._cost(agent, size, games, tiles)
                flight = self._flight.get(agent)
                if flight and not self._by_agent.get(agent, (0,))[0]:
                    # Nothing of it has ended yet: it costs at least its oldest game in flight so far, per tile.
                    # (Counted from the first game's end at the earliest: before it the workers were starting.)
                    since_start, its_tiles = flight[0]
                    since_start = max(since_start, self._first[0] if self._first else now)
                    cost = max(cost, tiles * (now - since_start) / its_tiles)
                by_agent[agent] += cost
        left = sum(by_agent.values())
        assert self._first is not None  # a game has ended
        since, measured = now - self._first[0], self.seconds - self._first[1]
        if self.done < 2 or since <= 0 or measured <= 0:  # one game, or games too short to measure
            since, measured = now - self.start, self.seconds
        if measured <= 0:  # the plain rate
            return (now - self.start) * (self.total - self.done) / self.done
        return left * since / measured

    def line(self, width: int = 100) -> str:
        """`412 of 2,700 games · ETA 3:21 · failed: carl 14, dora 2`, cut to `width` characters."""
        parts = [f"{self.done:,} of {self.total:,}" + (" games" if self.noun else "")]
        left = self.remaining()
        parts.append("ETA " + ("--:--" if left is None else clock_text(left)))
        if self.failed:
            worst = sorted(self.failed.items(), key=lambda kv: (-kv[1], kv[0]))
            parts.append("failed: " + ", ".join(f"{name} {n}" for name, n in worst))
        text = " · ".join(parts)
        return text if len(text) <= width else text[:max(0, width - 1)] + "…"


def clock_text(seconds: float) -> str:
    """3:05, or 1:02:03 past an hour."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def tiles_of(size: str) -> int:
    """The tiles of a stored size, "48x32" -> 1536 (0 if it is not one)."""
    width, _, height = size.partition("x")
    return int(width) * int(height) if width.isdigit() and height.isdigit() else 0
