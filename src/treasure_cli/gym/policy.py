"""Run a trained policy as an agent of this project (`treasure run/bench --agent pkg.module:factory`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from treasure_cli.gym.encoding import DEFAULT_MAX_HINTS, DEFAULT_TELEPORT_GRID, ActionCodec, Encoder
from treasure_cli.rules.actions import Action
from treasure_cli.rules.observation import Observation

Policy = Callable[[dict, np.ndarray], int]


class PolicyAgent:
    """An agent that asks `policy(obs_dict, action_mask) -> action index`.

    The arrays are built from the game's public events exactly as
    `TreasureIslandEnv` builds them (same `max_hints` and `teleport_grid`
    as the env the policy was trained in), so a policy plays here as it did
    there. An index the mask forbids is an illegal action: the game fails it.
    A factory for `--agent` is any no-argument callable returning one:

        def make_agent():
            return PolicyAgent(load_my_policy())
    """

    def __init__(self, policy: Policy, *, max_hints: int = DEFAULT_MAX_HINTS,
                 teleport_grid: int = DEFAULT_TELEPORT_GRID):
        self.policy = policy
        self.max_hints = max_hints
        self.teleport_grid = teleport_grid
        self._encoder: Encoder | None = None

    def reset(self, seed: int) -> None:
        self._encoder = None  # a new game

    def act(self, obs: Observation) -> Action:
        enc = self._encoder
        if enc is None or enc.island is not obs.island:
            codec = ActionCodec(obs.island.walkable, self.max_hints, self.teleport_grid)
            enc = self._encoder = Encoder(obs.island, obs.max_turns, codec)
        for event in obs.news:
            enc.update(event)
        enc.ready()
        index = self.policy(enc.observation(obs.actions_left), enc.action_mask())
        return enc.codec.decode(int(index))
