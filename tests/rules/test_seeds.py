"""The per-purpose streams come from the game seed through a keyed hash (rules/seeds.py).

Changing the seed, the purpose or the turn changes the stream; the agent's
`reset` seed is the documented hash; the streams look independent; and the
compiled `Draws` and the Python reference agree on the new seeding.
"""

from __future__ import annotations

import hashlib
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_cli.rules import seeds
from treasure_cli.rules.draws import PyDraws

try:
    from treasure_cli.rules._draws import Draws as CDraws
except ImportError:
    CDraws = None

SEEDS = st.integers(0, 2**63 - 1)


def first_words(seed: int, purpose: int, *keys: int, n: int = 4) -> list[int]:
    d = seeds.draws(seed, purpose, *keys)
    return [d.below(2**32 - 1) for _ in range(n)]


def test_the_entropy_is_blake2b_keyed_with_the_seed_over_purpose_and_keys():
    seed, turn = 8290414738563313264, 7
    want = hashlib.blake2b(struct.pack("<QQ", seeds.HINTS, turn), key=struct.pack("<Q", seed), digest_size=32)
    assert seeds.digest(seed, seeds.HINTS, turn) == want.digest()
    assert seeds.entropy(seed, seeds.HINTS, turn) == struct.unpack("<8I", want.digest())
    # The seed is read mod 2**63, as the game seed always was.
    assert seeds.digest(seed + 2**63, seeds.HINTS, turn) == want.digest()


@settings(max_examples=200, deadline=None)
@given(SEEDS)
def test_the_agent_seed_is_the_documented_hash(seed):
    digest = hashlib.blake2b(struct.pack("<Q", seeds.AGENT), key=seed.to_bytes(8, "little"), digest_size=32).digest()
    assert seeds.agent_seed(seed) == int.from_bytes(digest[:8], "big") >> 1
    assert 0 <= seeds.agent_seed(seed) < 2**63


@settings(max_examples=200, deadline=None)
@given(SEEDS, st.integers(1, 10_000))
def test_changing_the_seed_purpose_or_turn_changes_the_stream(seed, turn):
    hint = first_words(seed, seeds.HINTS, turn)
    assert hint != first_words(seed, seeds.HINTS, turn + 1)
    assert hint != first_words(seed ^ 1, seeds.HINTS, turn)
    assert hint != first_words(seed, seeds.SETUP, turn)
    assert first_words(seed, seeds.SETUP) != first_words(seed ^ 1, seeds.SETUP)
    assert first_words(seed, seeds.SETUP) != first_words(seed, seeds.HINTS, 0)
    # A turn key is not the same as no key, nor a longer key list as a shorter one.
    assert seeds.entropy(seed, seeds.HINTS) != seeds.entropy(seed, seeds.HINTS, 0)
    assert seeds.entropy(seed, seeds.HINTS, turn) != seeds.entropy(seed, seeds.HINTS, turn, 0)


def test_the_same_seed_gives_the_same_streams():
    assert first_words(12345, seeds.HINTS, 3) == first_words(12345, seeds.HINTS, 3)
    assert seeds.agent_seed(12345) == seeds.agent_seed(12345)


def test_the_streams_bits_look_independent_of_each_other():
    """Bit balance: across 2,000 seeds each bit of the agent seed, of the setup stream's
    first word and of hint 1's first word is set about half the time, and so is each bit
    of the XOR of two streams (a stream does not tell another's bits)."""
    n = 2000
    agent = np.array([seeds.agent_seed(s) for s in range(n)], dtype=np.uint64)
    setup = np.array([seeds.draws(s, seeds.SETUP).below(2**32 - 1) for s in range(n)], dtype=np.uint64)
    hint1 = np.array([seeds.draws(s, seeds.HINTS, 1).below(2**32 - 1) for s in range(n)], dtype=np.uint64)
    hint2 = np.array([seeds.draws(s, seeds.HINTS, 2).below(2**32 - 1) for s in range(n)], dtype=np.uint64)
    columns = {"agent": agent & np.uint64(2**32 - 1), "setup": setup, "hint1": hint1,
               "agent^setup": (agent & np.uint64(2**32 - 1)) ^ setup, "agent^hint1": (agent & np.uint64(2**32 - 1)) ^ hint1,
               "hint1^hint2": hint1 ^ hint2, "setup^hint1": setup ^ hint1}
    # 32 bits x 7 columns; a bit of a fair coin over 2,000 draws is within 5.5 sigma (±123) of 1,000.
    for name, values in columns.items():
        for bit in range(32):
            ones = int(((values >> np.uint64(bit)) & np.uint64(1)).sum())
            assert abs(ones - n / 2) < 5.5 * (n ** 0.5) / 2, (name, bit, ones)
    # Consecutive seeds give unrelated agent seeds: no two of the 2,000 agree.
    assert len(set(agent.tolist())) == n


@pytest.mark.skipif(CDraws is None, reason="treasure_cli.rules._draws not built")
@settings(max_examples=300, deadline=None)
@given(SEEDS, st.sampled_from([seeds.SETUP, seeds.HINTS]), st.lists(st.integers(0, 2**20), max_size=2),
       st.lists(st.one_of(st.just(-1), st.integers(0, 2**32 - 1)), min_size=1, max_size=40))
def test_the_compiled_draws_and_the_python_reference_agree_on_the_keyed_seeding(seed, purpose, keys, ops):
    words = seeds.entropy(seed, purpose, *keys)
    c, py, numpy_ = CDraws(words), PyDraws(words), seeds.stream(seed, purpose, *keys)
    for top in ops:
        if top < 0:
            assert c.random() == py.random() == numpy_.random()
        else:
            assert c.below(top) == py.below(top) == int(numpy_.integers(0, top + 1))
    assert c.sample(600, 17) == py.sample(600, 17)


@settings(max_examples=100, deadline=None)
@given(SEEDS, st.integers(1, 500))
def test_seeds_draws_is_the_stream_s_draws(seed, turn):
    d, g = seeds.draws(seed, seeds.HINTS, turn), seeds.stream(seed, seeds.HINTS, turn)
    assert [d.random() for _ in range(3)] == g.random(3).tolist()


def test_one_games_agent_seed_and_hint_truths_do_not_predict_anothers():
    # Bench's game seeds of one map, game after game: what an agent learns in one game (its own
    # seed, the truths it verifies) agrees with the next game's only as often as chance would.
    from treasure_cli.rules.seeds import bench_map_game_seed as map_game_seed

    games = [map_game_seed(1, "0123456789abcdef", i) for i in range(2000)]
    agents = [seeds.agent_seed(g) for g in games]
    same_bits = sum(63 - bin(a ^ b).count("1") for a, b in zip(agents, agents[1:])) / (63 * 1999)
    assert abs(same_bits - 0.5) < 0.01
    truths = [[seeds.draws(g, seeds.HINTS, turn).random() < 0.5 for turn in range(2, 10)] for g in games]
    same_truths = sum(x == y for a, b in zip(truths, truths[1:]) for x, y in zip(a, b)) / (8 * 1999)
    assert abs(same_truths - 0.5) < 0.03
    # Nor does a game's own agent seed tell its hint truths: its low bits match them at chance.
    match = sum(bool(a >> k & 1) == t for a, row in zip(agents, truths) for k, t in enumerate(row)) / (8 * 2000)
    assert abs(match - 0.5) < 0.03


def test_every_seed_is_derived_in_rules_seeds():
    """One place per name: outside rules/seeds.py no module hashes its own seed (seeds.derive)."""
    from pathlib import Path

    import treasure_cli

    package = Path(treasure_cli.__file__).parent
    users = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                   if p.name != "seeds.py" and "derive(" in p.read_text())
    assert users == []
