"""Groups that win on the first turn more often than play can explain: for the teacher to look at.

A game on a map can tell a later game on the same map where the treasure was by a channel no sandbox
short of a virtual machine per game closes (docs/security.md, "Side channels": the page cache,
timed). What such a group shows is its wins: it teleports onto the treasure on the first turn in
the games after its first on each map. Play alone rarely does that: a first-turn win needs the
treasure in reach of the start, and every agent of a tournament plays the same games. So each
agent's first-turn wins are compared with those of the agent, among the others, that has the most
(a baseline given with --with counts): the chance of as many under that agent's rate, a binomial
tail. A flag is a question, never a verdict: a group flagged may have been lucky or clever.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Mapping, Sequence

from treasure_cli.grading.store import Row
from treasure_cli.play.records import FAILED, WIN

P_FLAG = 1e-3   # flag an agent whose first-turn wins are this unlikely under the best other's rate
MIN_WINS = 3    # and that has at least this many
MIN_GAMES = 10  # an agent with fewer games is no measure of what play gives


@dataclasses.dataclass(frozen=True)
class EarlyWins:
    """An agent that won on the first turn more often than any other agent's rate explains."""

    agent: str
    first: int        # its games won on the first turn
    games: int        # its games played (failed ones left out)
    other: str        # the other agent with the highest first-turn rate
    other_first: int
    other_games: int
    p_value: float    # the chance of `first` or more in `games` at the other's rate

    @property
    def text(self) -> str:
        return (f"won {self.first} of {self.games} games on the first turn; the most of any other, "
                f"{self.other}: {self.other_first} of {self.other_games} (p = {self.p_value:.1e})")


def early_wins(rows: Sequence[Row], labels: Mapping[int, str]) -> tuple[EarlyWins, ...]:
    """The agents (by label) whose first-turn wins are too many for the best other agent's rate."""
    first: Counter[str] = Counter()
    games: Counter[str] = Counter()
    for r in rows:
        label = labels.get(r.id or 0)
        if label is None or r.outcome == FAILED:
            continue
        games[label] += 1
        first[label] += r.outcome == WIN and r.turns <= 1
    flagged = []
    for agent in sorted(games):
        if first[agent] < MIN_WINS:
            continue
        others = [a for a in games if a != agent and games[a] >= MIN_GAMES]
        if not others:
            continue
        # the other agent's rate, one win and one loss added: never 0 because it had no such win
        best = max(others, key=lambda a: ((first[a] + 1) / (games[a] + 2), a))
        rate = (first[best] + 1) / (games[best] + 2)
        p = binomial_tail(first[agent], games[agent], rate)
        if p < P_FLAG:
            flagged.append(EarlyWins(agent, first[agent], games[agent], best, first[best], games[best], p))
    return tuple(flagged)


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed in logs (no term underflows to nothing early)."""
    if k <= 0:
        return 1.0
    if p >= 1.0:
        return 1.0
    if p <= 0.0:
        return 0.0
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * math.log(p)
            + (n - i) * math.log1p(-p) for i in range(k, n + 1)]
    top = max(logs)
    return min(1.0, math.exp(top) * sum(math.exp(x - top) for x in logs))
