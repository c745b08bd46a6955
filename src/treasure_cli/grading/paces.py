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


class Paces:
    """Each agent's ended games: their own seconds and how many."""

    def __init__(self) -> None:
        self.seconds: dict[str, tuple[float, int]] = {}

    def ended(self, agent: str, seconds: float) -> None:
        total, count = self.seconds.get(agent, (0.0, 0))
        self.seconds[agent] = (total + max(0.0, seconds), count + 1)

    def slow(self, after: int = 1) -> frozenset[str]:
        """The agents whose games took more than SLOW_PACE times the median agent's, on average,
        among those with more than `after` games ended: the workers' count, so that an agent put
        last has played a game beyond its first in each worker (the one that starts its host there,
        whose time around the game the ETA cannot tell from the start's)."""
        means = {agent: total / count for agent, (total, count) in self.seconds.items() if count > after}
        if len(means) < 2:
            return frozenset()
        median = statistics.median(means.values())
        return frozenset(agent for agent, mean in means.items() if mean > SLOW_PACE * median)
