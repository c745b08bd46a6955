"""Seeds: every random choice of a game derives from the game's one seed.

A game draws from independent streams keyed by purpose (and turn), all made
from its seed. Keying the hints by turn keeps the pirate's truth-or-lie
sequence the same whatever the agent does, so agents are compared on the same
games. Batch seeds mix the base seed with the map's file name (a stable hash,
not Python's salted `hash`), so adding a map changes no other map's log.
"""

from __future__ import annotations

import hashlib

import numpy as np

SETUP, HINTS, AGENT = 0, 1, 2


def stream(seed: int, purpose: int, *keys: int) -> np.random.Generator:
    return np.random.default_rng([seed & (2**63 - 1), purpose, *keys])


def map_seed(base_seed: int, map_name: str) -> int:
    digest = hashlib.sha256(f"{base_seed}:{map_name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1  # a non-negative 63-bit int
