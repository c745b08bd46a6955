"""How long a tournament will take, said by `tournament --dry-run` before anything plays.

What one game of an agent costs a worker is taken, per agent:

* from the store's own history where it has one: the mean of the `seconds` of the agent's
  stored games (its spec) at the level it will play at now (the store's `isolation` column),
  plus OVERHEAD_SECONDS, what a game costs beyond its own time (its process's start, the
  referee's work), which the stored seconds leave out;
* else DEFAULT_SECONDS for the map's size, a Python file agent running the built-in `logic`
  planner in the sandbox (a submission of middling cost), per game, start-up included.

The games' sum, spread over the workers, plus the run's own start (RUN_START_SECONDS, and
HOST_START_SECONDS for each agent in a process of its own), is the estimate; the line says which agents it knew from the store and which it did not. The numbers
were measured with `benchmarks/dry_run_estimate.py` (docs/grading.md) on a 2-core machine
shared with other work: an agent of its own slowness (a search per action, a slow language)
takes what it takes, which only its history in the store can tell. The store is read, never
written (not even migrated): a dry run changes nothing.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from treasure_cli.agents.registry import is_builtin, is_exec_spec
from treasure_cli.formats.text import counted

# Measured with `benchmarks/dry_run_estimate.py` (sandbox, one worker), the median of three runs
# (docs/grading.md has them): seconds a game of the middling agent costs a worker, by map side
# (tiles in between: by area). The logic planner wins 64x64 maps in about as few turns as 32x32.
DEFAULT_SECONDS = {16: 0.12, 32: 0.20, 64: 0.18}
OVERHEAD_SECONDS = 0.07    # a game's cost to its worker beyond the game's own stored seconds
RUN_START_SECONDS = 1.0    # the run's own start: the pool, the maps read
# The start of an agent's host in each worker (an agent in a process of its own: its warm host
# starts and warms up), one agent after another; the workers start theirs side by side. Measured
# as the run's time that does not grow with its games: 7.5 s for one agent on one worker (the
# benchmark), 22.8 s for docs/grading.md's class of three groups and two built-ins on 2 workers.
HOST_START_SECONDS = 7.0


@dataclasses.dataclass(frozen=True)
class Estimate:
    seconds: float
    workers: int
    games: int
    known: tuple[str, ...]    # agents timed from the store's history
    unknown: tuple[str, ...]  # agents timed by the default

    def line(self) -> str:
        """`estimated time: about 4 min with 2 workers (...)`: what the estimate rests on."""
        where = []
        if self.known:
            where.append(f"the store's history of {counted(len(self.known), 'agent')}")
        if self.unknown:
            where.append(f"the default per map size for {', '.join(self.unknown)} (the store has none of "
                         f"{'its' if len(self.unknown) == 1 else 'their'} games at this level)")
        return (f"estimated time: about {duration_text(self.seconds)} with {counted(self.workers, 'worker')} "
                f"for {counted(self.games, 'game')}, from " + " and ".join(where))


def where_it_plays(spec: str, level: str) -> str:
    """The store's `isolation` of a game `spec` plays at `level` (sandbox/seat.py's words)."""
    if is_builtin(spec):
        return ""
    if level == "none":
        return "process" if is_exec_spec(spec) else "in-process"
    return level


def history(db_path: str | Path) -> dict[tuple[str, str], float]:
    """(agent spec, isolation) -> the mean seconds of its stored games; {} without a store."""
    path = Path(db_path)
    if not path.is_file():
        return {}
    try:
        with sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True) as store:
            rows = store.execute("SELECT agent, isolation, AVG(seconds) FROM games GROUP BY agent, isolation").fetchall()
    except sqlite3.Error:  # not a store, or one with no game yet
        return {}
    return {(agent, isolation): float(mean) for agent, isolation, mean in rows if mean is not None}


def default_seconds(tiles: int) -> float:
    """DEFAULT_SECONDS for a map of `tiles` tiles: linear in area between the sizes measured,
    and beyond them along the nearest two."""
    points = sorted((side * side, seconds) for side, seconds in DEFAULT_SECONDS.items())
    for (a, sa), (b, sb) in zip(points, points[1:]):
        if tiles <= b or (b, sb) == points[-1]:
            return max(points[0][1], sa + (sb - sa) * (tiles - a) / (b - a))
    return points[-1][1]


def estimate(db_path: str | Path, specs: Sequence[str], labels: dict[str, str], level: str,
             tiles: Sequence[int], games: int, workers: int) -> Estimate:
    """The time to play `games` games of each agent of `specs` on maps of `tiles` tiles each, at
    `level`, on `workers` workers; `labels` names an agent (its group) in the line."""
    known_seconds = history(db_path)
    total = 0.0
    known: list[str] = []
    unknown: list[str] = []
    for spec in specs:
        mean = known_seconds.get((spec, where_it_plays(spec, level)))
        name = labels.get(spec, spec)
        if mean is not None:
            known.append(name)
            total += (mean + OVERHEAD_SECONDS) * games * len(tiles)
        else:
            unknown.append(name)
            total += sum(default_seconds(t) for t in tiles) * games
    workers = max(1, workers)
    hosts = sum(where_it_plays(spec, level) not in ("", "in-process") for spec in specs)
    return Estimate(RUN_START_SECONDS + HOST_START_SECONDS * hosts + total / workers, workers,
                    games * len(tiles) * len(specs), tuple(known), tuple(unknown))


def duration_text(seconds: float) -> str:
    """`40 s`, `3 min`, `2 h 05 min`: a duration to the precision an estimate has."""
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"
