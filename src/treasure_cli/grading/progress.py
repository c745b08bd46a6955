"""How far a tournament is, and how long the rest will take, from what its games have measured.

A plain games-per-second rate is wrong as soon as the games are not alike: a
class mixes agents that take a millisecond a game with one that takes a
second, the first seconds go to starting the workers and each agent's
process, and the tournament plays its largest maps first. The estimate here
prices every game still to play, then plays the rest out as the FairShare
scheduler would (grading/tournament.py):

- a game costs a worker its *busy* time (the agent's start and end included,
  not only the game's own `seconds`): for an agent, its mean game time on
  maps of that size plus its usual time around a game, the median of its
  times but those that started its host (the first game of an agent in each
  worker also starts the agent's host there, ~0.3-1 s once: not a price for
  every game; without `workers`, its largest few are left out).
  A size it has not played yet is priced from its nearest size played. Where
  the games said how many actions they took, the agent's time is split into
  a part per game and a part per action (a line fitted through its games),
  and only the second grows with the actions a game takes on the other size
  (the other agents' actions between the two sizes, else the square root of
  the tiles): a slow agent's time is nearly all per action, a fast one's
  nearly all its process's fixed work, so one ratio of times for all is
  wrong for one of them (measured: a 30x slower agent's game took 4-5x as
  long on 48x48 as on 16x16, the others' 1.2x-2.5x). Otherwise its game time
  is scaled as the other agents' times between the two sizes, else by the
  square root of the tiles. Where the games say their actions, an agent's
  time is its part per game (the quickest agent's time there) plus its time
  an action, a ratio (its games' time beyond the part per game over their
  actions, its games in flight counted as far as they are: `playing`, the
  workers' board, play/pulse.py), times the actions a game takes there: its
  own mean drawn towards the other agents' as if theirs were SHRINK more
  games of its own, fewer the more the agents differ beside how one
  agent's games spread (`_shrink`). With many games of an agent that is
  its mean time; with one or two (a slow agent, early) a mean of times would follow how many
  actions those few took (4 to 47 on one size), and before any of them has
  ended only its game in flight says its pace. Its games in flight count as
  games of at least their age so far; an agent none of whose games has
  ended, nor says how far it is, is priced as the mean of the others, and at
  least as the age of its oldest game in flight. (The workers take the games
  in the order they were handed over, so a game's start is the end that
  freed its worker, not its hand-over.)
- where the plan says each game's unit (its map and seed, played by every agent: `Planned.unit`), an
  agent with a time an action prices each of its games left on its own unit. A unit's game is long or
  short for every agent alike, more or less (the treasure far or near, the hints), and the quick
  agents end a unit's games long before a slow one plays it: the unit's difficulty is the other
  agents' actions there, each over its mean on that size, averaged (drawn towards 1 as if one more
  agent had an average game there). The agent's expected actions are its own games' actions, each
  over its unit's difficulty (its first games on short units do not price the rest as short), drawn
  towards the others' mean; times 1 + s x (difficulty - 1), s the slope of its own games' lengths
  on their units' difficulty (how far it plays like the others), drawn towards 1 as if that were
  FOLLOW more games. A game in flight costs what is left of its price past its age (its own time
  so far, from the workers' board, else since its worker took it), at least FLOOR of its price.
  (Measured on real runs with one agent 30x slower than three others: its last seven games were
  long units, priced at its mean game the ETA was 37 % short at nine tenths of the run.) The others
  do not tell a unit's length alike: each weighs by how well it told the agent's own games so far
  (the inverse of its mean squared miss on the units both played, drawn towards the average miss
  as if that were MISS more units), and so does the average unit; a copy (no miss on COPY units or
  more) alone, where it has played the unit. (Measured: the slow agent, a
  copy of greedy with a slower `act`, took greedy's actions on all its 18 units, the other two
  agents' owed little to them; with every agent's word alike its games left were priced 15-26 %
  short mid-run on one size, and its last four on 48x48 at twice their actions: the ETA 32 %
  short at half and three quarters of the run, 30 % over at nine tenths on two sizes; weighed,
  23-27 % short and 12-13 % over. MISS from 0.5 to 2 priced those runs alike.)
- the hosts still to start are priced apart. With `workers`, which worker
  plays each game follows from the order of hand-overs and ends (the workers
  take the games in the order handed over, each as its game before ends), so
  the games that were an agent's first on their worker are known: a start is
  their time around a game beyond the agent's usual (else the other agents'
  median), and an agent's games not yet begun reach, each on any worker
  alike, (W - used) x (1 - (1 - 1/W)^games) workers that have not started its
  host. (Measured in simulation, 40 agents on 8 workers, a start 10x a game:
  the starts were most of the work; unpriced, the ETA was 76 % short with
  `--apart` and 2.2x over at a tenth side by side.) With `--apart` a pass
  lasts at least its longest game, a start among them for as many passes as
  there are starts left; side by side, the last start to end may run past
  the rest (`overhang`).
- with `--apart`, FairShare holds an agent more than SLOW_PACE times slower
  than the median one until no other has a game to start: the others' games
  are played out first, then the slow agents'. The last pass, of an agent
  left alone, ends with its workers idle one after another, as every pass of
  several agents is priced.
- each game also costs the time a worker waits between two games (handing
  a game over and recording it: most of a built-in's 2 ms game), measured as
  the workers' time so far that no game used, per game;
- the workers then play the rest: every agent's games progress at one pace
  (FairShare offers the game furthest back in the order), but an agent holds
  at most all the workers but one while another has games waiting; once only
  one agent is left, it has them all. A slow agent's games thus go on alone
  at the end, which a rate of the whole run does not see.

Without `workers` (a Dask cluster shares its threads out itself) the
parallelism is the one measured so far, with no cap. `clock` is injectable
so a test can play a run at a known pace; nothing here reads a clock or a
file of its own.
"""

from __future__ import annotations

import bisect
import collections
import dataclasses
import itertools
import math
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable

from treasure_cli.formats.text import one_line
from treasure_cli.grading.paces import Paces


@dataclasses.dataclass(frozen=True)
class Planned:
    """One game still to play, as the estimate sees it."""

    agent: str
    tiles: int   # W x H: games on maps of one size cost alike
    key: object = None   # the game's key, as `started` and `finished` will say it (None: not known)
    unit: object = None  # its map and seed, alike for every agent (None: not known)
    island: str = ""     # its map's digest ("": not known): an agent plays its islands in passes (FairShare)


class Estimate:
    """Games done of total, failures per agent, and the time left (`remaining`)."""

    def __init__(self, planned: Iterable[Planned], clock: Callable[[], float] = time.monotonic,
                 noun: bool = True, workers: int | None = None, apart: bool = False):
        self.clock, self.noun = clock, noun
        self.workers = workers
        self.apart = apart  # `tournament --apart`: every game in passes of one game an island (FairShare)
        self.paces = Paces()  # as FairShare keeps them: with `apart`, the slow agents play last
        self.start = clock()
        self.left: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))  # agent -> tiles -> games
        self.total = 0
        self._unit_of: dict[object, tuple[int, object]] = {}  # a planned game's key -> (tiles, unit)
        # agent -> (tiles, unit) -> its games there still to end
        self._units_left: dict[str, dict[tuple[int, object], int]] = defaultdict(lambda: defaultdict(int))
        islands: dict[str, set[str]] = defaultdict(set)
        for p in planned:
            self.left[p.agent][p.tiles] += 1
            self.total += 1
            if p.island:
                islands[p.agent].add(p.island)
            if p.key is not None and p.unit is not None:
                self._unit_of[p.key] = (p.tiles, p.unit)
                self._units_left[p.agent][(p.tiles, p.unit)] += 1
        self.islands = {agent: len(i) for agent, i in islands.items()}  # agent -> its islands (0: not known)
        # (tiles, unit) -> agent -> the actions its game there took, of the games ended that said them
        self._unit_actions: dict[tuple[int, object], dict[str, int]] = defaultdict(dict)
        self._played: dict[str, list[tuple[int, object]]] = defaultdict(list)  # agent -> those units of its
        self.done = 0
        self.failed: dict[str, int] = defaultdict(int)
        self.busy = 0.0                          # the workers' time of the games done
        self._began: float | None = None         # when the first game done began (its end less its busy time)
        self._seconds: dict[tuple[str, int], list[float]] = defaultdict(list)  # (agent, tiles) -> game seconds
        self._actions: dict[tuple[str, int], list[int]] = defaultdict(list)  # (agent, tiles) -> actions a game
        self._timed: dict[str, list[tuple[int, float]]] = defaultdict(list)  # agent -> (actions, seconds)
        # (agent, tiles) -> [games, their seconds, their actions], of the games that said their actions
        self._sums: dict[tuple[str, int], list[float]] = defaultdict(lambda: [0, 0.0, 0])
        self._size_sums: dict[int, list[float]] = defaultdict(lambda: [0, 0])  # tiles -> [games, actions], all agents
        self._sizes: dict[str, set[int]] = defaultdict(set)  # agent -> the tiles of its games ended
        self._around: dict[str, list[float]] = defaultdict(list)  # agent -> busy - seconds of each game
        self._handed: list[float] = []            # when each game was handed over, in that order
        self._ends: list[float] = []              # when each game ended, in that order
        self._busy: list[tuple[float, float]] = []  # (end, busy time) of each game ended, in that order
        self._flight: dict[str, list[int]] = defaultdict(list)  # agent -> its games in flight (in _handed)
        # with `apart`, at each hand-over and end, in time order: (when, the workers' time held idle so
        # far for want of games in flight, the games in flight after it): `_held`
        self._idle: list[tuple[float, float, int]] = [(self.start, 0.0, 0)]
        self._keys: dict[object, int] = {}        # a game's key -> its place in _handed, while in flight
        self._tiles: dict[int, int] = {}          # a game in flight (its place in _handed) -> its tiles
        self._key_at: dict[int, object] = {}      # a game in flight (its place in _handed) -> its key
        self._playing: dict[object, tuple[float, int]] = {}  # a game's key -> (seconds, actions) so far
        self._memo: dict[tuple, float | None] = {}  # what one `remaining` has worked out already
        # (and each unit's agents' ratios, `_unit_ratios`; each agent's `_weights` and `_played_on`; its parts of a game)
        self._ratios: dict[tuple[int, object], dict[str, float]] = {}
        self._weighed: dict[str, dict[str | None, float]] = {}  # agent -> `_weights`
        self._played_at: dict[tuple[str, int], list[tuple[int, float]]] = {}  # (agent, tiles) -> `_played_on`
        self._parts: dict[tuple, tuple[float, float, float] | None] = {}
        # Which worker plays each game, as far as the order tells (`workers` known): the workers take the
        # games in the order handed over, each as its game before ends, so a game ended frees its worker
        # for the next game handed over. A game that is its agent's first on its worker starts the agent's
        # host there (`_start_of`); its time around the game is kept apart from the agent's usual.
        self._free: collections.deque[int] = collections.deque(range(workers or 0))  # workers with no game
        self._queue: collections.deque[int] = collections.deque()  # games handed over, not yet begun
        self._worker: dict[int, int] = {}          # a game in flight that has begun (in _handed) -> its worker
        self._agent_at: dict[int, str] = {}        # a game in flight (in _handed) -> its agent
        self._hosted: dict[str, set[int]] = defaultdict(set)  # agent -> the workers that have begun a game of it
        self._firsts: set[int] = set()             # games in flight that are their agent's first on their worker
        self._first_around: dict[str, list[float]] = defaultdict(list)  # agent -> busy - seconds, first games
        self._later_around: dict[str, list[float]] = defaultdict(list)  # agent -> busy - seconds, the others

    def started(self, agent: str, tiles: int, key: object = None) -> None:
        """A game of `agent` on `tiles` tiles was handed over (`key`: the game's, as `finished` will
        say it; None: the agent's games end in the order they were handed over). Its age counts
        towards what the agent costs."""
        if key is not None:
            self._keys[key] = len(self._handed)
        self._tiles[len(self._handed)] = tiles
        self._key_at[len(self._handed)] = key
        self._flight[agent].append(len(self._handed))
        self._agent_at[len(self._handed)] = agent
        if self.workers is not None:
            self._queue.append(len(self._handed))
        self._handed.append(self.clock())
        if self.apart:
            self._count(self._handed[-1], +1)
        self._assign()

    def _assign(self) -> None:
        """The games handed over and not begun, to the workers free, in order (each the first free)."""
        while self._queue and self._free:
            game, worker = self._queue.popleft(), self._free.popleft()
            agent = self._agent_at[game]
            self._worker[game] = worker
            if worker not in self._hosted[agent]:
                self._hosted[agent].add(worker)
                self._firsts.add(game)

    def _began_at(self, k: int) -> float | None:
        """When the k-th game handed over began, as far as is known (None: not yet). The workers take
        the games in the order handed over, each as the one before ends: with `workers` of them, the
        k-th begins at the (k - workers + 1)-th end at the earliest."""
        if self.workers is None or k < self.workers:
            return self._handed[k]
        before = k - self.workers
        return max(self._handed[k], self._ends[before]) if before < len(self._ends) else None

    def finished(self, agent: str, tiles: int, seconds: float, failed: bool = False,
                 busy: float | None = None, key: object = None, actions: int | None = None) -> None:
        """One game ended (and was kept), having taken `seconds` of its own and `busy` of its worker's
        (None: as much as its own), and `actions` of the agent (None: not known); `key` as `started`
        was given it."""
        now = self.clock()
        self.done += 1
        self._ends.append(now)
        if self.apart:
            self._count(now, -1)
        flight = self._flight.get(agent)
        first: bool | None = None  # whether the game started its agent's host in its worker (None: not known)
        if flight:
            game = self._keys.pop(key, None)
            if game in flight:
                flight.remove(game)
            else:
                game = flight.pop(0)
            self._tiles.pop(game, None)
            self._key_at.pop(game, None)
            self._agent_at.pop(game, None)
            worker = self._worker.pop(game, None)
            if worker is not None:
                first = game in self._firsts
                self._firsts.discard(game)
                self._free.append(worker)
            elif game in self._queue:  # (ended before the order says it began: the order was wrong)
                self._queue.remove(game)
            self._assign()
        self._playing.pop(key, None)
        cell = self.left[agent]
        cell[tiles] = max(0, cell[tiles] - 1)
        place = self._unit_of.get(key) if key is not None else None
        if place is not None:
            units = self._units_left[agent]
            units[place] = max(0, units[place] - 1)
            if actions is not None and actions > 0 and agent not in self._unit_actions[place]:
                self._unit_actions[place][agent] = actions
                self._played[agent].append(place)
        if failed:
            self.failed[agent] += 1
        seconds = max(0.0, seconds)
        self.paces.ended(agent, seconds)
        busy = seconds if busy is None else max(seconds, busy)
        self.busy += busy
        self._busy.append((now, busy))
        began = now - busy
        self._began = began if self._began is None else min(self._began, began)
        self._seconds[(agent, tiles)].append(seconds)
        self._sizes[agent].add(tiles)
        if actions is not None and actions > 0:
            self._actions[(agent, tiles)].append(actions)
            self._timed[agent].append((actions, seconds))
            sums, size = self._sums[(agent, tiles)], self._size_sums[tiles]
            sums[0] += 1
            sums[1] += seconds
            sums[2] += actions
            size[0] += 1
            size[1] += actions
        self._around[agent].append(busy - seconds)
        if first is not None:
            (self._first_around if first else self._later_around)[agent].append(busy - seconds)

    def playing(self, games: Iterable[tuple[object, float, int]]) -> None:
        """How far the games in flight that have begun are: (key, as `started` was given it; seconds of
        the game's own time so far; the agent's actions so far) each. It replaces what the last call
        said (a game not in it has not begun, or has ended)."""
        self._playing = {key: (max(0.0, seconds), max(0, actions)) for key, seconds, actions in games}

    # -- the price of a game ----------------------------------------------------
    def _game_seconds(self, agent: str, tiles: int) -> float | None:
        """The agent's mean game time on maps of `tiles` tiles: measured there, else from its nearest
        size measured, times the ratio of the two sizes' times for the other agents that played both,
        else the square root of the ratio of their tiles (None: no game of it has ended)."""
        if ("seconds", agent, tiles) not in self._memo:
            self._memo[("seconds", agent, tiles)] = self._measured_seconds(agent, tiles)
        return self._memo[("seconds", agent, tiles)]

    def _measured_seconds(self, agent: str, tiles: int) -> float | None:
        per_action = self._per_action(agent, tiles)
        if per_action is not None:
            return per_action
        sizes = [t for (a, t) in self._seconds if a == agent]
        if not sizes:
            return None
        near = _nearest(sizes, tiles)
        mean = statistics.fmean(self._seconds[(agent, near)])
        if near == tiles:
            return mean
        by_actions = self._by_actions(agent, near, tiles)
        if by_actions is not None:
            return by_actions
        ratios = [statistics.fmean(self._seconds[(a, tiles)]) / there
                  for (a, t) in self._seconds if t == near and a != agent and (a, tiles) in self._seconds
                  for there in [statistics.fmean(self._seconds[(a, near)])] if there > 0]
        return mean * (statistics.median(ratios) if ratios else math.sqrt(max(1, tiles) / max(1, near)))

    def _per_action(self, agent: str, tiles: int) -> float | None:
        """The agent's game time on `tiles` tiles as a part per game (the quickest agent's time there)
        plus its time an action (`_pace`) times the actions it is expected to take there (None: some
        game of it did not say its actions, or none has said any yet)."""
        pace = self._pace(agent, tiles)
        expected = self._expected_actions(agent, tiles) if pace is not None else None
        if pace is None or expected is None:
            return None
        return self._fixed(tiles) + pace * expected

    def _pace(self, agent: str, tiles: int) -> float | None:
        """The agent's time an action on `tiles` tiles beyond a game's part per game (None: some game
        of it did not say its actions, or none has said any yet).

        A ratio, its games' time beyond the part per game over their actions, on that size if it has
        played there, else on all: its games ended, and its games in flight that say how far they are
        (`playing`; the action under way counts as half a one). A mean of a few games' times would
        follow how many actions those few took (here 4 to 47 on one size): the ratio does not, and a
        game in flight already gives it before any game has ended."""
        if ("pace", agent, tiles) not in self._memo:
            self._memo[("pace", agent, tiles)] = self._measured_pace(agent, tiles)
        return self._memo[("pace", agent, tiles)]

    def _measured_pace(self, agent: str, tiles: int) -> float | None:
        sums: dict[int, list[float]] = {}  # tiles -> [games, seconds, actions]: its games ended and in flight
        for t in self._sizes.get(agent, ()):
            if len(self._actions.get((agent, t), ())) < len(self._seconds[(agent, t)]):
                return None  # some game of it did not say its actions
            sums[t] = list(self._sums[(agent, t)])
        for k in self._flight.get(agent, ()):
            key = self._key_at.get(k)
            if key is not None and key in self._playing:
                age, done = self._playing[key]
                cell = sums.setdefault(self._tiles.get(k, tiles), [0, 0.0, 0])
                cell[0] += 1
                cell[1] += age
                cell[2] += done + 0.5
        same = {tiles: sums[tiles]} if tiles in sums else sums
        actions = sum(cell[2] for cell in same.values())
        if actions <= 0:
            return None
        beyond = sum(cell[1] - cell[0] * self._fixed(t) for t, cell in same.items())
        return max(0.0, beyond) / actions

    def _fixed(self, tiles: int) -> float:
        """A game's time on `tiles` tiles besides its agent's actions: the quickest agent's mean time
        there (its game is nearly all its process's work), from the nearest size played if none is
        played there yet; 0 with one agent only, or before any game has ended."""
        if ("fixed", tiles) not in self._memo:
            sizes = {t for (_, t) in self._seconds}
            fixed = 0.0
            if sizes:
                near = _nearest(sizes, tiles)
                there = [statistics.fmean(v) for (a, t), v in self._seconds.items() if t == near]
                fixed = min(there) if len(there) > 1 else 0.0
            self._memo[("fixed", tiles)] = fixed
        return self._memo[("fixed", tiles)] or 0.0

    SHRINK = 4  # an agent's few games on a size weigh against at most this many games' worth of the others' actions

    def _expected_actions(self, agent: str, tiles: int) -> float | None:
        """The actions a game of `agent` on `tiles` tiles is expected to take: its own mean there,
        drawn towards the others' mean there as if that were `_shrink` more games of its own (a few games
        of one agent say little: 4 to 47 actions on one size); on a size it has not played, its
        expected actions on its nearest size, times the others' ratio between the two sizes (else the
        square root of the ratio of the tiles). None: no game has said its actions yet."""
        games, _, actions = self._sums[(agent, tiles)] if (agent, tiles) in self._sums else (0, 0.0, 0)
        everyone = self._size_sums.get(tiles, [0, 0])
        prior_actions = actions
        if games and self._unit_actions:  # its own games as if on units of average length
            actions = self._level(agent, tiles)
        sizes = [t for t in self._sizes.get(agent, ()) if t != tiles and (agent, t) in self._sums]
        if sizes and not games:
            near = _nearest(sizes, tiles)
            there = self._expected_actions(agent, near)
            assert there is not None
            mean = {key: cell[2] / cell[0] for key, cell in self._sums.items() if cell[0] and key[1] in (near, tiles)}
            ratios = [mean[(a, tiles)] / mean[(a, t)] for (a, t) in mean
                      if t == near and a != agent and (a, tiles) in mean]
            return there * (statistics.median(ratios) if ratios else math.sqrt(max(1, tiles) / max(1, near)))
        others = everyone[0] - games
        prior = (everyone[1] - prior_actions) / others if others > 0 else None
        if prior is None or not games:
            return actions / games if games else prior
        shrink = self._shrink(tiles)
        return (actions + shrink * prior) / (games + shrink)

    SPREAD = 30  # games an agent enough to tell how far its games spread (more: only a slower `remaining`)
    SPREAD_FROM = 10  # games beyond each agent's first before a spread is measured (fewer: SHRINK)

    def _shrink(self, tiles: int) -> float:
        """How many games' worth the others' mean weighs against an agent's own games on `tiles` tiles:
        the spread of one agent's games over the spread between the agents (a credibility weight), at
        most SHRINK. Taken on the log of each game's actions over its unit's difficulty (`_level`'s
        measure: one agent's games spread alike whether it takes 20 actions or 70, and a long unit is
        no spread of the agent's). Agents that play alike (a student's copy of a built-in) leave
        SHRINK; agents whose games differ in length (measured: `random` 73 actions a 64x64 game,
        `logic` 20) each count on their own games: drawn towards the others' mean, `logic`'s first
        three games (all it had ended while put last, grading/paces.py) priced its 177 games left at
        1.7 times their actions, and the ETA was 50-90 % over mid-run."""
        if ("shrink", tiles) not in self._memo:
            logs = []  # each agent's, of its first SPREAD games on that size that said their actions
            for (agent, t), actions in self._actions.items():
                if t != tiles or len(actions) < 2:
                    continue
                played = self._played_on(agent, t)[:self.SPREAD]
                logs.append([math.log(took / hard) for took, hard in played] if len(played) >= 2 else
                            [math.log(a) for a in actions[:self.SPREAD]])
            shrink = float(self.SHRINK)
            # (a spread of a few games is itself a guess; sums of squares in floats: statistics.variance's
            # fractions made `remaining` a third slower)
            if len(logs) >= 2 and sum(len(v) - 1 for v in logs) >= self.SPREAD_FROM:
                within = sum(_squares(v) for v in logs) / sum(len(v) - 1 for v in logs)
                means = [statistics.fmean(v) for v in logs]
                between = _squares(means) / (len(means) - 1) - within * statistics.fmean(1 / len(v) for v in logs)
                if between > 0:
                    shrink = min(shrink, within / between)
            self._memo[("shrink", tiles)] = shrink
        return self._memo[("shrink", tiles)] or 0.0

    def _level(self, agent: str, tiles: int) -> float:
        """The actions of the agent's games ended on `tiles` tiles, each divided by its unit's
        difficulty (`_difficulty`, 1 for a game of no known unit): what they would have taken on
        units of average length (a slow agent's first games, on short units, priced the rest as
        short)."""
        if ("level", agent, tiles) not in self._memo:
            games, _, actions = self._sums[(agent, tiles)]
            for took, hard in self._played_on(agent, tiles):
                actions += took / hard - took
            self._memo[("level", agent, tiles)] = actions
        return self._memo[("level", agent, tiles)] or 0.0

    def _played_on(self, agent: str, tiles: int) -> list[tuple[int, float]]:
        """(actions, its unit's `_difficulty`) of each of the agent's games ended on `tiles` tiles on a
        known unit, in the order they ended."""
        known = self._played_at.get((agent, tiles))
        if known is None:  # (worked out once a `remaining`)
            known = self._played_at[(agent, tiles)] = [
                (self._unit_actions[place][agent], self._difficulty(agent, place))
                for place in self._played.get(agent, ()) if place[0] == tiles]
        return known

    WEIGH = 1.0   # the others' games on a unit weigh against this many agents' worth of an average unit
    FLOOR = 0.25  # a game in flight past its expected length still has this part of that length to play

    def _difficulty(self, agent: str, place: tuple[int, object]) -> float:
        """How long a game on this unit (tiles, map and seed) is against the average on its size, as
        the other agents' games there took: each one's actions there over its mean on that size,
        averaged, drawn towards 1 as if that were WEIGH more agents' worth of an average unit (1: no
        other agent has ended its game there). Each of them, and the average unit, weighs by how
        well it told the agent's own games so far (`_weights`); a copy of the agent (`COPY`), where it
        has played the unit, alone."""
        weights = self._weighed.get(agent)
        if weights is None:  # (worked out once a `remaining`, for every agent)
            weights = self._weighed[agent] = self._weights(agent)
        ratios = self._unit_ratios(place)
        copied = [ratio for other, ratio in ratios.items() if other != agent and weights.get(other) == math.inf]
        if copied:
            return statistics.fmean(copied)
        total = weight = self.WEIGH * weights.get(None, 1.0)
        for other, ratio in ratios.items():
            if other != agent:
                w = weights.get(other, 1.0)
                total += w * ratio
                weight += w
        return total / weight

    def _unit_ratios(self, place: tuple[int, object]) -> dict[str, float]:
        """Each agent's actions on this unit over its mean on that size (of the agents with more than
        one game there that said their actions)."""
        known = self._ratios.get(place)
        if known is None:  # (worked out once a `remaining`, for every agent)
            known = self._ratios[place] = {}
            for other, actions in self._unit_actions.get(place, {}).items():
                games, _, total = self._sums[(other, place[0])]
                if games > 1 and total > 0:
                    known[other] = actions * games / total
        return known

    MISS = 1.0  # an agent's misses on the units it shares with another weigh against this many average misses
    COPY = 3    # units shared with no miss at all that make another agent a copy of this one (`_weights`)

    def _weights(self, agent: str) -> dict[str | None, float]:
        """How much each other agent's games (None: an average unit, 1) say of this agent's on a unit:
        the inverse of its mean squared miss (in logs of the ratios to the mean, `_unit_ratios`) on the
        units both have played, drawn towards the average miss of all as if that were MISS more units,
        over that average (1: an average teller; missing: none shared yet). The misses are taken
        around their mean: an agent's mean of a few games is off alike on every unit, which its
        level (`_level`) prices, not its difficulty. A student's agent may be another's copy with a
        slower `act`, whose games go as that one's on every unit, while an agent unlike it (a random
        one) says little of it: an even mean of all priced the copy's units by the others'.

        An agent that missed none of COPY or more units (its ratios the agent's own, to a factor)
        is its copy: it weighs infinitely, and `_difficulty` takes its ratio alone. Drawn towards the
        average miss, a copy weighs at most (units - 1 + MISS) / MISS, as much as an agent that
        missed a little by chance on a few units, and the others and the average unit dilute it:
        measured on real runs (a slow copy of greedy beside copies of greedy, logic and random,
        benchmarks/eta_accuracy.py --shape slow), a unit of 1 action for greedy (0.06 of its mean)
        was 0.19 for the copy and units of 8 actions 0.8 instead of 0.5, so its first games, on short
        units, priced its games left 21-28 % short, and the ETA was 31-35 % short at half and three
        quarters of the run. Two units prove nothing: two agents' pairs of lengths are alike by
        chance (taken as copies from two units on, other runs' ETA missed more)."""
        # other -> [units, sum, sum of squares] of log(its ratio / the agent's), on the units both played
        gaps: dict[str | None, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
        shared = 0  # (SPREAD units shared with another tell enough: more, only a slower `remaining`)
        for place in self._played.get(agent, ()):
            ratios = self._unit_ratios(place)
            mine = ratios.get(agent)
            if mine is None or len(ratios) < 2:
                continue
            shared += 1
            if shared > self.SPREAD:
                break
            for other, ratio in itertools.chain(ratios.items(), [(None, 1.0)]):
                if other != agent:
                    gap, cell = math.log(ratio / mine), gaps[other]
                    cell[0] += 1
                    cell[1] += gap
                    cell[2] += gap * gap
        misses = {other: (max(0.0, ss - s * s / n), n - 1) for other, (n, s, ss) in gaps.items() if n > 1}
        squares, count = sum(sq for sq, _ in misses.values()), sum(n for _, n in misses.values())
        weights: dict[str | None, float] = {}
        if count and squares > 0:
            average = squares / count
            weights = {other: average * (n + self.MISS) / (sq + self.MISS * average)
                       for other, (sq, n) in misses.items()}
        for other, (sq, n) in misses.items():  # (n: the units shared less one; sq: float noise only)
            if other is not None and n + 1 >= self.COPY and sq < 1e-9:
                weights[other] = math.inf
        return weights

    def _unit_cost(self, agent: str, now: float) -> float | None:
        """What the agent's games left cost the workers, each priced on its own unit (`_unit_game`),
        plus its time around a game; a game in flight costs what is left of that past its age (its
        own time so far, as the workers' board says it, else since its worker took it), at least
        FLOOR of it. None: some game left has no known unit, or the agent has no time an action yet
        (it is priced by size then)."""
        places = self._units_left.get(agent)
        if not places or sum(places.values()) != sum(self.left[agent].values()):
            return None
        around = self._around_of(agent)
        total = 0.0
        for place, n in places.items():
            if n:
                game = self._unit_game(agent, place)
                if game is None:
                    return None
                total += n * (game + around)
        for k in self._flight.get(agent, ()):
            key = self._key_at.get(k)
            flying = self._unit_of.get(key) if key is not None else None
            if flying is None:
                continue
            if key in self._playing:
                age = self._playing[key][0]
            else:  # a game that does not say how far it is: its age since its worker took it, if it has
                began = self._began_at(k)
                if began is None or self._began is None:
                    continue
                age = max(0.0, now - max(began, self._began) - around)
            full = self._unit_game(agent, flying)
            if full is not None:  # (it is: a game in flight is one of the games left, priced above)
                total -= full - max(full - age, self.FLOOR * full)
        return total

    def _unit_game(self, agent: str, place: tuple[int, object]) -> float | None:
        """A game of the agent on a unit: the part per game on its size, plus its time an action
        times the actions it is expected to take there, times 1 + s x (the unit's difficulty - 1),
        s how far its games follow the others' (`_follows`). None: not known."""
        parts = self._unit_parts(agent, place[0])
        if parts is None:
            return None
        fixed, per_game, follows = parts
        return fixed + per_game * max(0.1, 1 + follows * (self._difficulty(agent, place) - 1))

    def _unit_parts(self, agent: str, tiles: int) -> tuple[float, float, float] | None:
        """(the part per game on `tiles` tiles, the agent's time an action times its expected actions
        there, `_follows`), None if not known."""
        if (agent, tiles) not in self._parts:
            pace = self._pace(agent, tiles)
            expected = self._expected_actions(agent, tiles) if pace is not None else None
            self._parts[(agent, tiles)] = (None if pace is None or expected is None else
                                           (self._fixed(tiles), pace * expected, self._follows(agent, tiles)))
        return self._parts[(agent, tiles)]

    FOLLOW = 3  # the slope measured on an agent's games weighs as this many games against a slope of 1

    def _follows(self, agent: str, tiles: int) -> float:
        """How far the agent's games follow the others' on a unit: the slope of its actions (over
        their mean) against the units' difficulty, on its games ended on `tiles` tiles, kept between
        0 (its lengths owe nothing to the unit) and 3, drawn towards 1 as if that were FOLLOW more
        games. The difficulty is a mean of the others' agents, some of which play unlike it: the
        slope says how much of it is this agent's."""
        if ("follows", agent, tiles) not in self._memo:
            pairs = [(hard, took) for took, hard in self._played_on(agent, tiles)]
            slope, n = 1.0, 0
            if len(pairs) >= 2:
                md = statistics.fmean(d for d, _ in pairs)
                ma = statistics.fmean(a for _, a in pairs)
                sdd = sum((d - md) ** 2 for d, _ in pairs)
                if sdd > 1e-9 and ma > 0:
                    slope = sum((d - md) * (a / ma - 1) for d, a in pairs) / sdd
                    n = len(pairs)
            slope = min(3.0, max(0.0, slope))
            self._memo[("follows", agent, tiles)] = (n * slope + self.FOLLOW) / (n + self.FOLLOW)
        return self._memo[("follows", agent, tiles)] or 0.0

    def _by_actions(self, agent: str, near: int, tiles: int) -> float | None:
        """The agent's game time on `tiles` tiles from its games on `near`: its part per game, plus its
        part per action times the actions a game takes there (None: its games did not all say their
        actions). The part per game is the quickest agent's mean time there (its game is nearly all
        its process's work); with no other agent, the line through the agent's own games."""
        acts = self._actions.get((agent, near))
        if not acts or len(acts) < len(self._seconds[(agent, near)]):
            return None
        mean = statistics.fmean(self._seconds[(agent, near)])
        there = [statistics.fmean(v) for (a, t), v in self._seconds.items() if t == near]
        if len(there) > 1:
            fixed = min(there)
        else:
            fitted = self._fitted(self._timed.get(agent, []))
            if fitted is None:
                return None
            fixed = fitted
        ratios = [statistics.fmean(self._actions[(a, tiles)]) / statistics.fmean(self._actions[(a, near)])
                  for (a, t) in self._actions if t == near and a != agent and self._actions.get((a, tiles))]
        ratio = statistics.median(ratios) if ratios else math.sqrt(max(1, tiles) / max(1, near))
        return fixed + (mean - fixed) * ratio

    @staticmethod
    def _fitted(timed: list[tuple[int, float]]) -> float | None:
        """An agent's seconds a game besides its actions: where the least-squares line through its
        games' (actions, seconds) meets no action, kept between none and its quickest game (None:
        fewer than three games, or their actions too alike to tell)."""
        if len(timed) < 3:
            return None
        xs = [float(x) for x, _ in timed]
        ys = [y for _, y in timed]
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        if sxx < (0.05 * mx) ** 2 * len(xs):  # actions spread under 5 % of their mean: no slope to see
            return None
        slope = sum((x - mx) * (y - my) for x, y in timed) / sxx
        return min(max(0.0, my - slope * mx), min(ys))

    def _cost(self, agent: str, tiles: int, now: float) -> float:
        """What one more game of `agent` on `tiles` tiles costs a worker (its host's starts left out:
        `_starts_left`). Its games in flight count too: each will have cost at least its age so far
        (its host's start left out, for one of the agent's first games in a worker), unless it says
        how far it is (`playing`): its pace is then in the agent's time an action, and its age, on
        whatever size it is played, is no price for the games to come (a 48x48 game's age priced the
        16x16 games after it at twice their time)."""
        own = self._game_seconds(agent, tiles)
        ended = len(self._around.get(agent, ()))
        if own is not None:
            cost = own + self._around_of(agent)
        else:
            others = [self._cost(a, tiles, now) for a in self._around if a != agent]
            cost = statistics.fmean(others) if others else 0.0
        ages = []
        startup = self._startup()
        hosts = self._hosts(agent, startup)
        for game in self._flight.get(agent, ()):
            began = self._began_at(game)
            if began is not None and self._began is not None:
                if game in self._worker:  # the order says on which worker: a first game there, or not
                    start = self._start_of(agent) if game in self._firsts else 0.0
                else:  # it may be starting the agent's host in its worker
                    first = hosts < (self.workers or 1)
                    hosts += first
                    start = startup if first else 0.0
                if self._key_at.get(game) not in self._playing:
                    age = now - max(began, self._began) - start
                    there = self._tiles.get(game, tiles)
                    if there != tiles and own is not None:  # its age on another size, scaled to this one
                        played = self._game_seconds(agent, there)
                        age *= own / played if played else 1.0
                    ages.append(age)
        if not ended:  # slow before it has finished a game: at least as slow as its oldest so far
            return max([cost] + ages[:1])
        return (ended * cost + sum(max(cost, age) for age in ages)) / (ended + len(ages))

    def _inferred(self) -> bool:
        """Whether games have ended whose worker the order of hand-overs and ends told (`_assign`)."""
        return bool(self._first_around or self._later_around)

    def _start_of(self, agent: str) -> float:
        """The start of the agent's host in a worker, once a worker: the median time around its games
        that were its first on their worker, less its usual time around a game; for an agent none of
        whose first games has ended, the median of the other agents' (0 if none is known)."""
        if ("start", agent) not in self._memo:
            own = self._first_around.get(agent)
            if own:
                start = max(0.0, statistics.median(own) - self._around_of(agent))
            else:
                others = [self._start_of(a) for a, v in self._first_around.items() if v and a != agent]
                start = statistics.median(others) if others else 0.0
            self._memo[("start", agent)] = start
        return self._memo[("start", agent)] or 0.0

    def _starts_left(self, agent: str) -> float:
        """How many more workers will start the agent's host: of the workers that have begun no game
        of it, those its games not yet begun are expected to reach, each game on any worker alike
        (0 without `workers`, or before the order has told a game's worker)."""
        if self.workers is None or not self._inferred():
            return 0.0
        # (the order may have put a game on the wrong worker: the games whose time around them says they
        # started a host count too)
        start, usual = self._start_of(agent), self._around_of(agent)
        started = sum(x > usual + start / 2 for x in self._around.get(agent, ())) if start > 0 else 0
        unused = self.workers - max(len(self._hosted.get(agent, ())), started)
        begun = sum(1 for game in self._flight.get(agent, ()) if game in self._worker)
        games = max(0, sum(self.left[agent].values()) - begun)
        return unused * (1 - (1 - 1 / self.workers) ** games) if unused > 0 else 0.0

    def _hosts(self, agent: str, startup: float) -> int:
        """How many of the agent's games ended have started its host in a worker, as far as one can
        tell without knowing their workers: those that took longer around the game than its usual
        time by half a start-up."""
        own = self._around.get(agent)
        if not own or not startup:
            return 0
        usual = self._around_of(agent)
        return sum(x > usual + startup / 2 for x in own)

    def _startup(self) -> float:
        """The one-off start of an agent's host in a worker, beyond a game's usual time around it,
        without knowing the games' workers: the median, over the agents with more games than
        workers, of their largest times around a game less the median of the others (0 until one
        is known)."""
        if ("startup",) in self._memo:
            return self._memo[("startup",)] or 0.0
        n = self.workers or 1
        extra = [statistics.median(v[-n:]) - statistics.median(v[:-n])
                 for v in (sorted(v) for v in self._around.values()) if len(v) > n]
        self._memo[("startup",)] = max(0.0, statistics.median(extra)) if extra else 0.0
        return self._memo[("startup",)] or 0.0

    def _around_of(self, agent: str) -> float:
        """The time around one game of `agent` (its process's start and end). The first game of an
        agent in each worker also starts the agent's host there, once (`_start_of`): where the order
        told the games' workers, those games are left out; with none of its other games ended yet,
        the least of its own and of the others' median. Otherwise, of its games, as many as there are
        workers may be such, so those are left out (the largest times)."""
        if ("around", agent) not in self._memo:
            self._memo[("around", agent)] = self._usual_around(agent)
        return self._memo[("around", agent)] or 0.0

    def _usual_around(self, agent: str) -> float:
        if self._inferred():
            later = self._later_around.get(agent)
            if later:  # (with fewer than three, the least: the order may have mistaken a start for one)
                return statistics.median(later) if len(later) >= 3 else min(later)
            others = [statistics.median(v) for a, v in self._later_around.items() if v and a != agent]
            firsts = self._first_around.get(agent) or self._around.get(agent)
            if not others:
                return min(firsts) if firsts else 0.0
            return min(min(firsts), statistics.median(others)) if firsts else statistics.median(others)
        own = sorted(self._around.get(agent, ()))
        keep = own[:max(1, len(own) - (self.workers or 1))]
        if len(own) > (self.workers or 1):
            return statistics.median(keep)
        others = [statistics.median(sorted(v)[:max(1, len(v) - (self.workers or 1))])
                  for a, v in self._around.items() if a != agent and len(v) > (self.workers or 1)]
        if not keep:  # none of its games has ended (priced from its games in flight)
            return statistics.median(others) if others else 0.0
        return min(keep[0], statistics.median(others)) if others else keep[0]

    def _parallel(self, now: float) -> tuple[float, float]:
        """The workers at play, and each game's wait between two games: the workers' time that no game
        used, per game ended, since the later half of the games done began ending (before it, the
        workers were starting, not waiting between games): `workers` x that time, less the part of
        it each game ended since used, and the games in flight up to now. Without `workers`, the
        parallelism is the games' busy time per second since the first began, and no wait."""
        assert self._began is not None
        half = self.done // 2 if self.workers is not None and self.done >= 4 else 0
        since = self._ends[half - 1] if half else self._began
        span = max(1e-9, now - since)
        starts = [t for flight in self._flight.values() for k in flight
                  for t in [self._began_at(k)] if t is not None]
        used = sum(min(busy, end - since) for end, busy in self._busy[max(0, half - 1):])
        used += sum(now - max(t, since) for t in starts)
        if self.workers is None:  # measured: no wait to add, it is in the parallelism
            return max(1.0, used / span), 0.0
        idle = self._held(since, now) if self.apart else 0.0
        return float(self.workers), max(0.0, (self.workers * span - used - idle) / (self.done - half))

    def _count(self, when: float, step: int) -> None:
        """A game handed over (+1) or ended (-1) at `when`: the idle held so far, carried on (`_held`)."""
        last, held, flight = self._idle[-1]
        free = max(0, (self.workers or 0) - flight)
        self._idle.append((max(when, last), held + free * max(0.0, when - last), flight + step))

    def _held_at(self, when: float) -> float:
        last, held, flight = self._idle[max(0, bisect.bisect_right(self._idle, (when, math.inf)) - 1)]
        return held + max(0, (self.workers or 0) - flight) * max(0.0, when - last)

    def _held(self, since: float, now: float) -> float:
        """The workers' time since `since` that no game could use because fewer games than workers
        were in flight (handed over, not ended): with `apart`, the ends of passes, which
        `fair_share_time` prices itself (the games in flight then all play: none waits in a queue)."""
        return max(0.0, self._held_at(now) - self._held_at(since))

    def remaining(self) -> float | None:
        """Seconds until the last game ends; None before a game has ended (nothing measured yet)."""
        if self.done == 0:
            return None
        if self.done >= self.total:
            return 0.0
        now = self.clock()
        self._memo, self._ratios, self._parts, self._weighed, self._played_at = {}, {}, {}, {}, {}
        workers, wait = self._parallel(now)
        work: dict[str, list[float]] = {}  # agent -> [games left, cost of each, islands, its longest game]
        starts: dict[str, tuple[float, float]] = {}  # agent -> (its host's starts left, each start)
        for agent, sizes in self.left.items():
            games = sum(sizes.values())
            if games:
                cost = self._unit_cost(agent, now)
                if cost is None:
                    cost = sum(n * self._cost(agent, tiles, now) for tiles, n in sizes.items() if n)
                left = self._starts_left(agent)
                starts[agent] = (left, self._start_of(agent) if left else 0.0)
                work[agent] = [float(games), cost / games + wait + left * starts[agent][1] / games,
                               float(self.islands.get(agent, 0)), cost / games + wait]
        # With `apart`, a pass lasts at least its longest game: one that starts its agent's host is longer
        # by the start. Of the passes left (the games left over the islands), at most one a start has one.
        passes = sum(w[0] for w in work.values()) / max(1.0, max((w[2] for w in work.values()), default=1.0))
        share = min(1.0, sum(n for n, _ in starts.values()) / max(1.0, passes))
        for agent, (n, start) in starts.items():
            work[agent][3] += start * min(1.0, n) * share
        time_left = fair_share_time(work, workers, capped=self.workers is not None, apart=self.apart,
                                    last=self.paces.slow(after=0)  # as FairShare will put them last
                                    if self.apart and self.workers != 1 else frozenset())
        if not self.apart:  # (with `apart`, the pass that holds a start lasts at least that game)
            pending = sum(n for n, _ in starts.values())
            longest = max((work[a][3] + start for a, (n, start) in starts.items() if n > 0), default=0.0)
            time_left += overhang(longest, pending, time_left)
        return time_left

    def line(self, width: int = 100) -> str:
        """`412 of 2,700 games · ETA 3:21 · failed: carl 14, dora 2`, cut to `width` characters."""
        parts = [f"{self.done:,} of {self.total:,}" + (" games" if self.noun else "")]
        left = self.remaining()
        parts.append("ETA " + ("--:--" if left is None else clock_text(left)))
        if self.failed:
            worst = sorted(self.failed.items(), key=lambda kv: (-kv[1], kv[0]))
            # one_line before the cut: a group's name is a student's file name, and a line break or an
            # escape in it must neither break the line redrawn in place nor widen it past `width`
            parts.append("failed: " + ", ".join(f"{one_line(name)} {n}" for name, n in worst))
        text = " · ".join(parts)
        return text if len(text) <= width else text[:max(0, width - 1)] + "…"


def overhang(game: float, games: float, span: float) -> float:
    """How much later than `span` (the rest played as a fluid) a run ends whose `games` long games
    (`game` seconds each: a game that starts its agent's host) each begin at any time of `span`
    alike: the last of them to end runs past it. One game: game**2 / (2 x span), if shorter than
    the span; n of them: the mean of the largest of n overhangs."""
    if games <= 0 or game <= 0 or span <= 0:
        return 0.0
    if game >= span:
        return game - span / (games + 1)
    return game - span / (games + 1) * (1 - (1 - game / span) ** (games + 1))


def _squares(values: list[float]) -> float:
    """The sum of the squares of `values`' deviations from their mean."""
    mean = statistics.fmean(values)
    return sum((v - mean) ** 2 for v in values)


def _nearest(sizes: Iterable[int], tiles: int) -> int:
    """The size (in tiles) of `sizes` nearest `tiles` by ratio, the larger on a tie."""
    return min(sizes, key=lambda t: (abs(math.log(max(1, t) / max(1, tiles))), -t))


def fair_share_time(work: dict[str, list[float]], workers: float, capped: bool = True, apart: bool = False,
                    last: frozenset[str] = frozenset()) -> float:
    """The time `workers` take to play `work` (agent -> [games, seconds a game, islands]) as FairShare
    offers it: every agent's games at one pace in games a second, except that an agent holds at most
    `workers - 1` workers (`capped`) while another agent has games left. An agent on more than one
    worker plays its `islands` (0: not known) in passes, one game an island, and between two passes
    lets its games in flight end (`_passes`). Played as a fluid: the pace holds until an agent's
    games are over, then is worked out again for the agents left. With `apart`, the passes are of
    every agent's games at once (`_pass_rates`) while more than one agent has games left. The agents
    of `last` (grading/paces.py: the slow ones, with `apart`) play once the others' games are over."""
    left = {a: [w[0], w[1]] for a, w in work.items() if w[0] > 0}
    islands = {a: w[2] if len(w) > 2 else 0.0 for a, w in work.items()}
    longest = {a: max(w[1], w[3]) if len(w) > 3 else w[1] for a, w in work.items()}
    elapsed, drain = 0.0, 0.0
    while left:
        playing = {a: w for a, w in left.items() if a not in last} or left
        rates = _pass_rates(playing, islands, workers, capped, longest) if apart and len(playing) > 1 else None
        passes = rates is not None  # (each pass's drain priced, the last one's too)
        drain = 0.0  # (the last step's only)
        if rates is None:
            rates = _fair_rates(playing, islands, workers, capped)
        step = min(playing[a][0] / rates[a] for a in playing if rates[a] > 0)
        elapsed += step
        for a in list(playing):
            left[a][0] -= rates[a] * step
            if left[a][0] <= 1e-9:
                k = min(workers, islands[a]) if islands[a] > 0 else workers
                if apart and not passes:
                    drain = max(drain, (k - 1) / max(1.0, k) * DRAIN * left[a][1])
                del left[a]
    # With `apart`, every pass is priced with its drain: the last, of the agent left alone, too (its
    # workers end one after another, not as one; side by side, the model was fitted without it).
    return elapsed + drain


def _fill(total: float, weights: dict[str, float], limits: dict[str, float]) -> dict[str, float]:
    """`total` shared out in proportion to `weights`, none above its limit: raise one level t,
    each agent's part t x its weight, until the parts add up to `total` (or all are at their
    limits); an agent held at its limit leaves the rest to the others."""
    parts: dict[str, float] = {}
    open_ = set(weights)
    while open_:
        level = total / sum(weights[a] for a in open_)
        held = {a for a in open_ if level * weights[a] > limits[a]}
        if not held:
            parts.update({a: level * weights[a] for a in open_})
            break
        for a in held:
            parts[a] = limits[a]
            total -= limits[a]
        open_ -= held
        if total <= 0:
            parts.update({a: 0.0 for a in open_})
            break
    return parts


def _fair_rates(left: dict[str, list[float]], islands: dict[str, float], workers: float,
                capped: bool) -> dict[str, float]:
    """Each agent's games a second (`fair_share_time`, its agents' own passes): one pace for all,
    so each agent's workers in proportion to its game's cost, an agent at most its cap of workers."""
    cap = max(1.0, workers - 1) if capped and len(left) > 1 else workers
    costs = {a: max(c, 1e-9) for a, (_, c) in left.items()}
    held = _fill(workers, costs, {a: _passes(cap, islands[a], n) for a, (n, _) in left.items()})
    return {a: held[a] / costs[a] for a in left}


def _pass_rates(left: dict[str, list[float]], islands: dict[str, float], workers: float,
                capped: bool, longest: dict[str, float] | None = None) -> dict[str, float] | None:
    """Each agent's games a second when every agent's games go in passes of one game an island
    (`apart`; None: the islands are not known). The pass's islands are shared out alike (FairShare
    offers the game furthest back in the order), but an agent plays no more games in a pass than
    its share of workers (all but one) can one after another while the pass lasts; the pass lasts
    its games' work over the workers plus half its longest game idle on the others at its end, and
    at least its longest game. So an agent 30 times slower than the rest plays one game a pass, and
    the others wait for it at each pass's end."""
    size = max(islands[a] for a in left)
    if size <= 0:
        return None
    k = min(workers, size)
    cap = max(1.0, workers - 1) if capped else workers
    costs = {a: max(c, 1e-9) for a, (_, c) in left.items()}
    single = {a: max(costs[a], (longest or {}).get(a, 0.0)) for a in left}  # its longest game
    alike = {a: 1.0 for a in left}
    length = max(single.values())
    for _ in range(3):  # the shares and the pass's length, each from the other: settled in a few rounds
        share = _fill(size, alike, {a: cap * max(1.0, length / costs[a]) for a in left})
        most = max(single[a] for a in left if share[a] > 0)
        length = max(most, sum(share[a] * costs[a] for a in left) / k + (k - 1) / k * DRAIN * most)
    return {a: share[a] / length for a in left}


DRAIN = 0.5  # a worker's idle time at a pass's end, in games: the half left of the game beside it


def _passes(workers: float, islands: float, games: float) -> float:
    """The workers an agent's `games` left keep busy on `workers` of them, on `islands` islands (0:
    not known), played in passes of one game an island with its games in flight ended between two
    passes: at most `islands` at once, and (k - 1) / 2 games' time of k workers idle at each of
    the ceil(games / islands) - 1 ends of a pass (none after the last)."""
    if islands <= 0 or workers <= 1:
        return workers
    k = min(workers, max(1.0, islands))
    drains = max(0.0, math.ceil(games / islands - 1e-9) - 1)
    return k * games / (games + drains * (k - 1) * DRAIN)


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
