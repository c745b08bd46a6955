"""Groups that win on the first turn more often once they have played a map: for the teacher to look at.

A game on a map can tell a later game on the same map where the treasure was by a channel no sandbox
short of a virtual machine per game closes (docs/security.md, "Side channels": the page cache,
timed). What such a group shows is its wins: in its games after the first on a map it teleports
onto the treasure on the first turn, which its first game on each map (played before any other game
of it there, and learning from none) cannot do. An agent's games on a map differ only in their
seeds, so play alone wins on the first turn as often in either: each agent's first-turn wins in its
later games are set against its rate in its first games (a win and a loss added, never 0), a
binomial tail. Measured on the agent itself, a bold strategy (a teleport and a scan at once) is not
taken for a channel. A flag is a question, never a verdict.

A group that knows the tile need not take it on the first turn: one that spent its first turn on
two scans where it stood and teleported onto the treasure on the second won every later game in two
turns and was not flagged (tests/security/test_early_wins_evaded.py). So wins by the second and by
the third turn are weighed too, by Fisher's exact test (later games against first games, the first
games' rate not taken as known: at those turns a fair agent wins often enough that the rate of a
few first games would flag it), each chance times two; an agent is flagged at the earliest turn
whose test flags it. Waiting longer still hides it, and pays less: the pirate and the turns it costs.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Mapping, Sequence

from treasure_cli.grading.store import Row
from treasure_cli.play.records import FAILED, WIN

P_FLAG = 1e-3   # flag an agent whose later first-turn wins are this unlikely at its first games' rate
MIN_WINS = 3    # and that has at least this many of them
TURNS = 3       # wins by turn 2 and 3 are weighed too, by Fisher's exact test (each p-value times TURNS - 1)


@dataclasses.dataclass(frozen=True)
class EarlyWins:
    """An agent that won on the first turn more often in its later games on a map than in its first."""

    agent: str
    later_first: int   # its later games (not the first on their map) won on the first turn
    later: int         # its later games played (failed ones left out)
    opening_first: int  # its first games on each map won on the first turn
    openings: int      # its first games on each map played
    p_value: float     # the chance of `later_first` or more in `later` (see `early_wins`)
    turn: int = 1      # the wins counted are those by this turn (`later_first`, `opening_first`)

    @property
    def when(self) -> str:
        return "on the first turn" if self.turn == 1 else f"by turn {self.turn}"

    @property
    def text(self) -> str:
        return (f"won {self.later_first} of {self.later} games {self.when} once it had played "
                f"their map, {self.opening_first} of {self.openings} in its first game on each map "
                f"(p = {self.p_value:.1e})")

    @property
    def flag(self) -> str:
        """The gradebook's words for it."""
        said = "first-turn wins" if self.turn == 1 else f"wins by turn {self.turn}"
        return (f"{said}: {self.later_first} of {self.later} once it knew the map, "
                f"{self.opening_first} of {self.openings} before")


def early_wins(rows: Sequence[Row], labels: Mapping[int, str]) -> tuple[EarlyWins, ...]:
    """The agents (by label) whose first-turn wins after their first game on a map are too many for
    their rate in those first games."""
    counts: dict[str, Counter[str]] = {}
    for r in rows:
        label = labels.get(r.id or 0)
        if label is None or r.outcome == FAILED:
            continue
        c = counts.setdefault(label, Counter())
        part = "opening" if r.game_index == 0 else "later"
        c[part] += 1
        for turn in range(1, TURNS + 1):
            c[f"{part}_{turn}"] += r.outcome == WIN and r.turns <= turn
    flagged = []
    for agent, c in sorted(counts.items()):
        if not c["opening"]:
            continue
        for turn in range(1, TURNS + 1):
            later, opening = c[f"later_{turn}"], c[f"opening_{turn}"]
            if later < MIN_WINS:
                continue
            if turn == 1:  # at the first games' rate (a win and a loss added)
                p = binomial_tail(later, c["later"], (opening + 1) / (c["opening"] + 2))
            else:  # later games against first games, neither rate known
                p = min(1.0, (TURNS - 1) * hypergeometric_tail(later, c["later"], later + opening,
                                                                c["later"] + c["opening"]))
            if p < P_FLAG:
                flagged.append(EarlyWins(agent, later, c["later"], opening, c["opening"], p, turn))
                break
    return tuple(flagged)


def hypergeometric_tail(k: int, n: int, successes: int, total: int) -> float:
    """P(X >= k) for X the successes among `n` drawn without replacement from `total` holding
    `successes`: Fisher's exact test, one-sided, of `k` of `n` against the rest."""
    if k <= 0:
        return 1.0

    def log_choose(a: int, b: int) -> float:
        return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)

    logs = [log_choose(successes, i) + log_choose(total - successes, n - i) - log_choose(total, n)
            for i in range(k, min(n, successes) + 1) if n - i <= total - successes]
    if not logs:
        return 0.0
    top = max(logs)
    return min(1.0, math.exp(top) * sum(math.exp(x - top) for x in logs))


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
