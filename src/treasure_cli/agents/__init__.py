"""Agent policies. Each is built with its own random generator and sees only Observations."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from treasure_cli.agents.logic import LogicAgent
from treasure_cli.agents.random_agent import RandomAgent
from treasure_cli.errors import TreasureError
from treasure_cli.game import Agent


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    name: str
    factory: Callable[[np.random.Generator], Agent]
    summary: str
    sees_hint_truths: bool = False  # only the oracle bound: the game tells it every hint's truth


AGENTS: dict[str, AgentSpec] = {
    spec.name: spec
    for spec in (
        AgentSpec("logic", LogicAgent, "the logical agent: candidate tiles, best verification, scan or move"),
        AgentSpec("oracle", LogicAgent, "the logic agent told every hint's truth for free (an upper bound)",
                  sees_hint_truths=True),
        AgentSpec("random", RandomAgent, "uniformly random legal actions, never teleports (a floor)"),
    )
}


def agent_names() -> list[str]:
    return sorted(AGENTS)


def agent_spec(name: str) -> AgentSpec:
    try:
        return AGENTS[name]
    except KeyError:
        raise TreasureError(f"unknown agent {name!r}; choose from {', '.join(agent_names())}") from None


def make_agent(name: str, rng: np.random.Generator) -> Agent:
    return agent_spec(name).factory(rng)
