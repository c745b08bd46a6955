"""Agent policies. Each is built with its own random generator and sees only Observations."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from treasure_cli.errors import TreasureError

if TYPE_CHECKING:  # the registry imports the agents lazily, so the CLI starts fast
    from treasure_cli.game import Agent


def _registry() -> dict[str, Callable[[np.random.Generator], Agent]]:
    # Keep in step with AGENT_NAMES.
    from treasure_cli.agents.logic import LogicAgent
    from treasure_cli.agents.random_agent import RandomAgent

    return {"logic": LogicAgent, "random": RandomAgent}


AGENT_NAMES = ("logic", "random")


def agent_names() -> list[str]:
    return sorted(AGENT_NAMES)


def make_agent(name: str, rng: np.random.Generator) -> Agent:
    try:
        factory = _registry()[name]
    except KeyError:
        raise TreasureError(f"unknown agent {name!r}; choose from {', '.join(agent_names())}") from None
    return factory(rng)
