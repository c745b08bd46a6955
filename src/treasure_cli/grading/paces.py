"""Which agents play last when every game is kept apart (`tournament --apart`, the default).

With `apart` the games go in passes of one game a map, and a pass lasts its slowest game: one
agent far slower than the rest would make every pass wait for it. The scheduler (FairShare in
grading/tournament.py) therefore starts a slow agent's games only once no other agent has a game
left to start, and the ETA (grading/progress.py) plays the rest out in that order. Both read the
same rule here, from the same measure: each agent's ended games' own seconds.
"""

from __future__ import annotations

import statistics

# Four times the median agent's game leaves alone the spread of a class's agents (built-ins and
# students' files differ by less), and catches an agent that would hold every pass.
SLOW_PACE = 4.0
# An agent is put last only once it has ended more than this many games a worker: the ETA prices
# the rest of its games from those alone. Its first game in a worker is cold (its code warmed in
# that process: `logic`'s took 0.7-2.1 times its later games' time an action, 1.2 on the median of
# 22 runs), so after a game a worker more than the workers, two of its three were cold, and the rest
# of a run of the built-ins was priced up to 73 % over (benchmarks/eta_accuracy.py).
SAMPLED = 3


class Paces:
    """Each agent's ended games: their own seconds and how many."""

    def __init__(self) -> None:
        self.seconds: dict[str, tuple[float, int]] = {}

    def ended(self, agent: str, seconds: float) -> None:
        total, count = self.seconds.get(agent, (0.0, 0))
        self.seconds[agent] = (total + max(0.0, seconds), count + 1)

    def slow(self, after: int = 1) -> frozenset[str]:
        """The agents whose games took more than SLOW_PACE times the median agent's, on average,
        among those with more than `after` games ended: SAMPLED times the workers' count, so that an
        agent put last has played games beyond its first in each worker (the one that starts its
        host there, whose time around the game the ETA cannot tell from the start's, and whose own
        time is cold)."""
        means = {agent: total / count for agent, (total, count) in self.seconds.items() if count > after}
        if len(means) < 2:
            return frozenset()
        median = statistics.median(means.values())
        return frozenset(agent for agent, mean in means.items() if mean > SLOW_PACE * median)
