"""Treasure Island as a Gymnasium environment (docs/gymnasium.md); needs `pip install 'treasure-cli[gym]'`.
May import `view/` and all below it: the top modules (`errors`, `version`, `compiled`), `rules/`,
`islands/`, `agents/`, `formats/`, `sandbox/`, `play/`, `grading/`; never `cli/`.

    import gymnasium, treasure_cli.gym
    env = gymnasium.make("treasure_cli/TreasureIsland-v0", size=32)

Importing this module registers the environment id `ENV_ID`.
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError as exc:  # the optional extra is not installed
    raise ImportError(
        "treasure_cli.gym needs Gymnasium, an optional dependency: pip install 'treasure-cli[gym]'"
    ) from exc

from treasure_cli.gym.encoding import (
    DEFAULT_MAX_HINTS, DEFAULT_TELEPORT_GRID, MOVES, PLANES, ActionCodec, Encoder, teleport_targets,
)
from treasure_cli.gym.env import TreasureIslandEnv
from treasure_cli.gym.policy import PolicyAgent
from treasure_cli.rules.actions import legal_actions

ENV_ID = "treasure_cli/TreasureIsland-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="treasure_cli.gym.env:TreasureIslandEnv")

__all__ = [
    "ENV_ID", "TreasureIslandEnv", "PolicyAgent", "ActionCodec", "Encoder", "legal_actions",
    "teleport_targets", "MOVES", "PLANES", "DEFAULT_MAX_HINTS", "DEFAULT_TELEPORT_GRID",
]
