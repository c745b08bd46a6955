"""A tiny deterministic "trained policy" for the tests: loaded by `--agent tests/gym/policy_example.py:make_agent`."""

from __future__ import annotations

import numpy as np

from treasure_cli.gym import PolicyAgent


def policy(obs: dict, mask: np.ndarray) -> int:
    """Prefer the legal action whose index scores best on the candidates and the turn (any fixed rule will do)."""
    legal = np.flatnonzero(mask)
    score = (legal * 7919 + int(obs["candidates"].sum()) * 31 + int(obs["turn"]) * 17) % 101
    return int(legal[np.argmax(score)])


def make_agent() -> PolicyAgent:
    return PolicyAgent(policy)
