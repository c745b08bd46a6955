"""Seeds: every random choice of a game derives from the game's one seed.

A game draws from independent streams keyed by purpose (and turn), all made
from its seed. Keying the hints by turn keeps the pirate's truth-or-lie
sequence the same whatever the agent does, so agents are compared on the same
games. Seeds for batches and benchmarks are `derive`d from their parts with a
stable hash (not Python's salted `hash`): a map's game seed comes from the
base seed and the map's content digest, so adding a map changes no other
game, and renaming or moving a map does not change its own.
"""

from __future__ import annotations

import hashlib

import numpy as np

from treasure_cli.rules.draws import Draws

SETUP, HINTS, AGENT = 0, 1, 2


def stream(seed: int, purpose: int, *keys: int) -> np.random.Generator:
    return np.random.default_rng([seed & (2**63 - 1), purpose, *keys])


def draws(seed: int, purpose: int, *keys: int) -> Draws:
    """The same stream as `stream(seed, purpose, *keys)`, with cheaper scalar draws (rules/draws.py)."""
    return Draws([seed & (2**63 - 1), purpose, *keys])


def derive(*parts: object) -> int:
    """A non-negative 63-bit seed from any parts, the same on every machine and run."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def map_seed(base_seed: int, map_digest: str) -> int:
    """The game seed of a map in a batch: from the base seed and the map's content digest."""
    return derive(base_seed, map_digest)


def agent_seed(game_seed: int) -> int:
    """The seed an agent's `reset(seed)` is given: its own stream of the game's seed."""
    return int(stream(game_seed, AGENT).integers(2**63))
