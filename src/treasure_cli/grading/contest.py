"""The contest: every group's agent on one map, the same N games for all, ranked for the class to see.

`treasure contest MAP CLASS/` is a tournament of one map: the games are the
tournament's (`make_entries`: game i of the map has the same seed for every
agent), played by the tournament's machinery into a results store (so a
rerun plays only what is missing), and ranked here by a score in three
parts, compared in turn:

1. wins (more is better; a failed game is not a win);
2. mean turns to a win (fewer is better; an agent with no win comes after
   every agent with one);
3. time per action, in milliseconds to two decimals, as shown: the time of
   its games played to their end over their actions (a turn is one or two
   actions, so per turn would favour an agent that takes one a turn). The store
   keeps each game's actions since schema 8; a contest whose store holds a
   played game without them (a row of an older treasure-cli) compares every
   agent per turn instead, over all its games as before, and says so.

Groups share a rank only when all three are equal. Built-in agents
(`--with logic,greedy`) are baselines: listed where their score puts them,
marked, and never given a rank nor counted in a group's.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from pathlib import Path

from treasure_cli.agents.registry import is_builtin
from treasure_cli.errors import TreasureError
from treasure_cli.grading.store import Row
from treasure_cli.grading.tournament import TournamentResult, run_tournament
from treasure_cli.play.bench import BenchOptions
from treasure_cli.play.records import FAILED, WIN


@dataclasses.dataclass(frozen=True)
class Placing:
    """One agent of the contest and its score."""

    rank: int | None       # 1 + the groups with a better score; None for a baseline
    name: str              # the group (a submission's name), or the built-in's spec
    spec: str
    baseline: bool
    games: tuple[Row, ...]  # its games, in game order
    wins: int
    failed: int
    mean_turns_win: float | None
    ms_per_turn: float     # rounded as shown
    ms_per_action: float | None = None  # rounded as shown; None when a played game has no action count
    per_action: bool = False            # whether the score's third part is ms_per_action (else ms_per_turn)

    @property
    def timed(self) -> bool:
        """Whether a game of its own was played to its end: a failed game's time is not measured."""
        return any(r.outcome != FAILED for r in self.games)

    @property
    def ms_time(self) -> float:
        """The score's third part: ms per action, or per turn in a contest with older rows; infinite
        when no game was timed (an agent that fails at once is not the fastest)."""
        if not self.timed:
            return math.inf
        return self.ms_per_action if self.per_action and self.ms_per_action is not None else self.ms_per_turn

    @property
    def ms_text(self) -> str:
        return f"{self.ms_time:.2f}" if self.timed else "-"

    @property
    def score(self) -> tuple[int, float, float]:
        """The key the contest sorts by (smaller is better)."""
        return (-self.wins, math.inf if self.mean_turns_win is None else self.mean_turns_win, self.ms_time)


@dataclasses.dataclass(frozen=True)
class Contest:
    map_path: str
    games: int
    placings: tuple[Placing, ...]  # in score order, baselines among the groups where they fall
    played: int = 0
    already: int = 0
    seconds: float = 0.0
    secret_seed: bool = False
    left_out: tuple[tuple[str, str, str], ...] = ()  # (group, verdict, reason) of each group that never played

    @property
    def time_unit(self) -> str:
        """What the score's third part is timed per: "action", or "turn" when the store has older rows."""
        return "action" if all(p.per_action for p in self.placings) else "turn"

    @property
    def groups(self) -> tuple[Placing, ...]:
        return tuple(p for p in self.placings if not p.baseline)

    def rank_text(self, placing: Placing) -> str:
        """`=2` when another group shares the rank, `-` for a baseline."""
        if placing.rank is None:
            return "-"
        shared = sum(p.rank == placing.rank for p in self.groups) > 1
        return f"={placing.rank}" if shared else str(placing.rank)


def ms_per_turn(rows: Sequence[Row]) -> float:
    """The agent's time over its turns, all its games together, in ms to two decimals."""
    turns = sum(r.turns for r in rows)
    return round(1000 * sum(r.seconds for r in rows) / turns, 2) if turns else 0.0


def ms_per_action(rows: Sequence[Row]) -> float | None:
    """The agent's time over its actions, in ms to two decimals, over its games played to their
    end (a failed game's time is not measured); None when one of them has no action count."""
    played = [r for r in rows if r.outcome != FAILED]
    if any(r.actions is None for r in played):
        return None
    actions = sum(r.actions or 0 for r in played)
    return round(1000 * sum(r.seconds for r in played) / actions, 2) if actions else 0.0


def place(rows: Sequence[Row], names: dict[str, str], map_path: str, games: int) -> Contest:
    """Rank the agents of `rows` (the games of one contest); `names` maps a spec to its group's name."""
    by_agent: dict[str, list[Row]] = {}
    for r in rows:
        by_agent.setdefault(r.agent, []).append(r)
    unranked = []
    for spec, rs in by_agent.items():
        rs.sort(key=lambda r: r.game_index)
        won = [r.turns for r in rs if r.outcome == WIN]
        unranked.append(Placing(None, names.get(spec) or spec, spec, is_builtin(spec) and spec not in names,
                                tuple(rs), len(won), sum(r.outcome == FAILED for r in rs),
                                sum(won) / len(won) if won else None, ms_per_turn(rs), ms_per_action(rs)))
    # Per action only when every agent's games say how many actions they took: one time unit for all.
    per_action = all(p.ms_per_action is not None for p in unranked)
    unranked = [dataclasses.replace(p, per_action=per_action) for p in unranked]
    groups = [p for p in unranked if not p.baseline]
    placings = [p if p.baseline else dataclasses.replace(p, rank=1 + sum(q.score < p.score for q in groups))
                for p in unranked]
    placings.sort(key=lambda p: (p.score, p.baseline, p.name))
    return Contest(map_path, games, tuple(placings))


def run_contest(map_path: str, agents: Sequence[str], db: str | Path, *, games: int = 5, seed: int | None = None,
                names: dict[str, str] | None = None, jobs: int = 1, scheduler: str | None = None,
                on_plan: Callable[[int, int], None] | None = None,
                on_progress: Callable[[int], None] | None = None, apart: bool = True,
                **settings: object) -> tuple[Contest, TournamentResult]:
    """Play the contest (the games `db` does not hold yet) and rank it.

    `settings` are BenchOptions' other fields (truth_rate, max_turns, game_timeout,
    isolation, limits, hints); `seed` None draws the games from the store's secret seed. `apart`:
    as the tournament's; on one map it plays one game at a time (no two groups' games side by side).
    """
    if games < 1:
        raise TreasureError("a contest plays at least one game")
    options = BenchOptions(agents=tuple(agents), maps=(str(map_path),), games=games, seed=seed,
                           **settings)  # type: ignore[arg-type]
    # The tournament reports its plan as entries and its progress as rows; a contest counts games.
    result = run_tournament(
        options, db, jobs=jobs, scheduler=scheduler, names=names, apart=apart,
        on_plan=None if on_plan is None else (lambda todo, already: on_plan(len(todo), already)),
        on_progress=None if on_progress is None else (lambda rows: on_progress(len(rows))))
    if result.skipped:
        raise TreasureError(f"{map_path}: " + "; ".join(result.skipped))
    contest = place(result.rows, names or {}, str(map_path), games)
    return dataclasses.replace(contest, played=result.played, already=result.already, seconds=result.seconds,
                               secret_seed=result.secret_seed), result


def contest_json(contest: Contest) -> dict:
    return {"map": contest.map_path, "games": contest.games, "time_per": contest.time_unit,
            "placings": [{"rank": p.rank, "rank_text": contest.rank_text(p), "name": p.name, "agent": p.spec,
                          "baseline": p.baseline, "wins": p.wins, "failed": p.failed,
                          "mean_turns_win": p.mean_turns_win, "ms_per_turn": p.ms_per_turn if p.timed else None,
                          "ms_per_action": p.ms_per_action if p.timed else None,
                          "games": [{"game_id": r.game_id, "index": r.game_index, "seed": r.seed,
                                     "outcome": r.outcome, "reason": r.reason, "turns": r.turns}
                                    for r in p.games]}
                         for p in contest.placings],
            "left_out": [{"name": name, "verdict": status, "reason": reason}
                         for name, status, reason in contest.left_out]}

