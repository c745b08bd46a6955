"""Agent policies. Each is built with its own random generator and sees only Observations."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from treasure_cli.agents.greedy import GreedyAgent
from treasure_cli.agents.logic import Features, LogicAgent
from treasure_cli.agents.random_agent import RandomAgent
from treasure_cli.errors import TreasureError
from treasure_cli.rules.game import Agent


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
        AgentSpec("greedy", GreedyAgent, "a typical-student baseline: verify, scan, walk to the densest spot, chase the pirate"),
        AgentSpec("random", RandomAgent, "uniformly random legal actions, never teleports (a floor)"),
    )
}


def _variant(**switches: bool) -> Callable[[np.random.Generator], Agent]:
    return lambda rng: LogicAgent(rng, dataclasses.replace(Features(), **switches))


# Ablations: the logic agent with one idea switched, to measure what each adds (docs/agent.md).
for _name, _switch in (
    ("logic-no-tie-break", {"tie_break": False}),
    ("logic-plan-two", {"plan_two": True}),
    ("logic-no-race", {"race": False}),
    ("logic-soft-hints", {"soft_hints": True}),
):
    AGENTS[_name] = AgentSpec(_name, _variant(**_switch), "ablation: the logic agent with " + ", ".join(
        f"{k}={v}" for k, v in _switch.items()))


def agent_names() -> list[str]:
    return sorted(AGENTS)


def agent_spec(name: str) -> AgentSpec:
    try:
        return AGENTS[name]
    except KeyError:
        raise TreasureError(f"unknown agent {name!r}; choose from {', '.join(agent_names())}") from None


def make_agent(name: str, rng: np.random.Generator) -> Agent:
    return agent_spec(name).factory(rng)
