"""A floor to compare against: uniformly random legal actions, never a teleport."""

from __future__ import annotations

import numpy as np

from treasure_cli.rules.actions import Action, LargeScan, Verify, legal_moves
from treasure_cli.rules.game import Observation


class RandomAgent:
    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def act(self, obs: Observation) -> Action:
        options: list[Action] = [LargeScan()]
        options += [Verify(n) for n in range(1, len(obs.hints) + 1) if n not in obs.verified]
        options += [move for move, _ in legal_moves(obs.island.walkable, obs.position)]
        return options[int(self.rng.integers(len(options)))]
