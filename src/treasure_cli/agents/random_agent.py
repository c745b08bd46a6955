"""A floor to compare against: uniformly random legal actions, never a teleport."""

from __future__ import annotations

import numpy as np

from treasure_cli.rules.actions import Action, legal_actions
from treasure_cli.rules.observation import Observation


class RandomAgent:
    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, obs: Observation) -> Action:
        options = legal_actions(obs, teleports=False)
        return options[int(self.rng.integers(len(options)))]
