"""Seeds: every random choice of a game derives from the game's one seed.

A game draws from independent streams keyed by purpose (and turn), all made
from its seed. Keying the hints by turn keeps the pirate's truth-or-lie
sequence the same whatever the agent does, so agents are compared on the same
games.

Each stream's entropy is a keyed cryptographic hash, BLAKE2b keyed with the
seed over the purpose and keys (`entropy`), and the agent's `reset` seed is
one too (`agent_seed`). numpy's SeedSequence is a mixer, not a one-way
function: fed the raw seed, a stream an agent sees (its own seed, the truths
of verified hints) could be inverted back to the seed, and the seed fixes the
prison, the start and every hint. Through a keyed hash, one stream tells
nothing about another or about the seed.

Seeds for batches and benchmarks are `derive`d from their parts with a
stable hash (not Python's salted `hash`): a map's game seed comes from the
base seed and the map's content digest, so adding a map changes no other
game, and renaming or moving a map does not change its own.
"""

from __future__ import annotations

import hashlib
import struct

import numpy as np

from treasure_cli.rules.draws import Draws, PyDraws

SETUP, HINTS, AGENT = 0, 1, 2

_SEED_MASK = 2**63 - 1
_WORDS = struct.Struct("<8I")


def digest(seed: int, purpose: int, *keys: int) -> bytes:
    """BLAKE2b-256 keyed with the seed (mod 2**63, 8 bytes little-endian) over the
    purpose and keys, each 8 bytes little-endian (non-negative, below 2**64)."""
    parts = (purpose, *keys)
    message = struct.pack(f"<{len(parts)}Q", *parts)
    key = (seed & _SEED_MASK).to_bytes(8, "little")
    return hashlib.blake2b(message, key=key, digest_size=32).digest()


def entropy(seed: int, purpose: int, *keys: int) -> tuple[int, ...]:
    """A stream's seed: the 256 bits of `digest` as eight 32-bit words (little-endian)."""
    return _WORDS.unpack(digest(seed, purpose, *keys))


def stream(seed: int, purpose: int, *keys: int) -> np.random.Generator:
    """The numpy Generator of a stream: `default_rng(entropy(seed, purpose, *keys))`."""
    return np.random.default_rng(entropy(seed, purpose, *keys))


def draws(seed: int, purpose: int, *keys: int) -> PyDraws:  # or the compiled twin, the same methods
    """The same stream as `stream(seed, purpose, *keys)`, with cheaper scalar draws (rules/draws.py)."""
    return Draws(entropy(seed, purpose, *keys))


def derive(*parts: object) -> int:
    """A non-negative 63-bit seed from any parts, the same on every machine and run."""
    hashed = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(hashed[:8], "big") >> 1


def map_seed(base_seed: int, map_digest: str) -> int:
    """The game seed of a map in a batch (`treasure run`): from the base seed and the map's content digest."""
    return derive(base_seed, map_digest)


# The other commands' seeds, each keyed by its own label so no two commands share a game by accident.
def bench_island_seed(base: int, size: int, index: int) -> int:
    """Seed of bench island `index` of size `size`: `treasure generate --size s --seed <this>` rebuilds it."""
    return derive("bench", "island", base, size, index)


def bench_game_seed(base: int, size: int, index: int) -> int:
    """Seed of the game on bench island `index` of size `size`."""
    return derive("bench", "game", base, size, index)


def bench_map_game_seed(base: int, map_digest: str, index: int) -> int:
    """Seed of bench (or tournament) game `index` on a map file: keyed by the map's content, not its name."""
    return derive("bench", "map", base, map_digest, index)


def check_island_seed(seed: int, index: int) -> int:
    """Seed of `check-agent`'s generated island `index`."""
    return derive("check-agent", seed, index)


def check_game_seed(seed: int, index: int) -> int:
    """Seed of the game on `check-agent`'s generated island `index`."""
    return derive("check-agent-game", seed, index)


def check_map_game_seed(seed: int, map_digest: str) -> int:
    """Seed of `check-agent --maps`' game on a map file, keyed by its content."""
    return derive("check-agent-map", seed, map_digest)


def gym_island_seed(episode: int, width: int, height: int) -> int:
    """Seed of the Gymnasium env's island for an episode seed."""
    return derive("gym-island", episode, width, height)


def gym_game_seed(episode: int) -> int:
    """Seed of the Gymnasium env's game for an episode seed."""
    return derive("gym-game", episode)


def agent_seed(game_seed: int) -> int:
    """The seed an agent's `reset(seed)` is given: the first 63 bits (big-endian) of
    `digest(game_seed, AGENT)`, a hash of its own and no stream's."""
    return int.from_bytes(digest(game_seed, AGENT)[:8], "big") >> 1
