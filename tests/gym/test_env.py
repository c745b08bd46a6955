"""The Gymnasium environment: the checker, spaces, masks, seeds, errors, logs and rendering."""

from __future__ import annotations

import importlib
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

gymnasium = pytest.importorskip("gymnasium")

import treasure_cli  # noqa: E402
from treasure_cli.errors import IllegalActionError  # noqa: E402
from treasure_cli.formats.game_record import parse_log  # noqa: E402
from treasure_cli.islands.generator import generate_island  # noqa: E402
from treasure_cli.gym import ENV_ID, TreasureIslandEnv, legal_actions  # noqa: E402
from treasure_cli.rules.actions import LargeScan, Teleport, Verify  # noqa: E402
from treasure_cli.view.sources import open_log  # noqa: E402


def rollout(env, seed, policy_seed=0, limit=10_000):
    """Play one episode with a random masked policy; every (obs, reward, terminated, truncated, info)."""
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    steps = [(obs, 0.0, False, False, info)]
    for _ in range(limit):
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        steps.append((obs, reward, terminated, truncated, info))
        if terminated or truncated:
            return steps
    raise AssertionError("the episode did not end")


def test_check_env_passes_on_the_registered_env():
    from gymnasium.utils.env_checker import check_env

    # check_env steps with unmasked samples, so the illegal ones must end the episode, not raise
    env = gymnasium.make(ENV_ID, size=12, illegal_action="lose", render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        check_env(env.unwrapped)


def test_make_builds_the_env_with_its_size():
    env = gymnasium.make(ENV_ID, size=32)
    obs, info = env.reset(seed=3)
    assert obs["walkable"].shape == (32, 32)
    assert info["action_mask"].shape == (env.action_space.n,)
    assert env.action_space.n == 32 + 16 + 1 + 16 * 16


def test_the_public_legal_actions_is_the_one_of_the_env():
    assert legal_actions is treasure_cli.legal_actions


def test_the_mask_marks_exactly_the_legal_actions_the_space_can_express():
    env = TreasureIslandEnv(size=10, raw_observation=True, max_hints=4)
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        while True:
            legal = {env.encode(a) for a in legal_actions(info["observation"])} - {None}
            assert set(np.flatnonzero(info["action_mask"]).tolist()) == legal
            checked += 1
            _, _, term, trunc, info = env.step(int(rng.choice(sorted(legal))))
            if term or trunc:
                break
    assert checked > 20


def test_an_illegal_action_raises_and_leaves_the_episode_as_it_was():
    env = TreasureIslandEnv(size=16)
    obs, info = env.reset(seed=5)
    verify_2 = env.encode(Verify(2))  # only hint 1 is known, and it is verified
    assert info["action_mask"][verify_2] == 0
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(verify_2)
    with pytest.raises(IllegalActionError):
        env.step(env.action_space.n)  # outside the space
    after, _, _, _, _ = env.step(env.encode(LargeScan()))  # the episode goes on
    assert after["turn"] == 1 and after["actions_left"] == 1


def test_illegal_action_lose_ends_the_episode_with_minus_one():
    env = TreasureIslandEnv(size=16, illegal_action="lose")
    env.reset(seed=5)
    _, reward, terminated, truncated, info = env.step(env.encode(Verify(2)))
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert "hint 2" in info["illegal_action"] or "Verify(number=2)" in info["illegal_action"]


def test_the_teleport_is_an_action_of_its_own_and_then_closed():
    env = TreasureIslandEnv(size=8)
    obs, info = env.reset(seed=2)
    base = env.codec.teleport_base
    cell = int(np.flatnonzero(info["action_mask"][base:])[-1])
    target = env.codec.targets[cell]
    obs, _, _, _, info = env.step(base + cell)
    assert tuple(obs["position"]) == target
    assert obs["actions_left"] == 2 and obs["teleport_available"] == 0  # still the turn's first action
    assert not info["action_mask"][base:].any()
    assert isinstance(env.decode(base + cell), Teleport)


def test_same_seed_same_episode_other_seed_other_episode():
    a = rollout(TreasureIslandEnv(size=20), seed=11)
    b = rollout(TreasureIslandEnv(size=20), seed=11)
    assert len(a) == len(b)
    for (oa, ra, ta, ua, ia), (ob, rb, tb, ub, ib) in zip(a, b):
        assert (ra, ta, ua) == (rb, tb, ub)
        assert oa.keys() == ob.keys()
        for key in oa:
            assert np.array_equal(oa[key], ob[key]), key
        assert np.array_equal(ia["action_mask"], ib["action_mask"])
    c = rollout(TreasureIslandEnv(size=20), seed=12)
    assert not np.array_equal(a[0][0]["walkable"], c[0][0]["walkable"])


def test_reset_without_seed_continues_the_seeded_sequence():
    e1, e2 = TreasureIslandEnv(size=12), TreasureIslandEnv(size=12)
    e1.reset(seed=7)
    e2.reset(seed=7)
    seeds1 = [e1.reset()[0]["regions"] for _ in range(3)]
    seeds2 = [e2.reset()[0]["regions"] for _ in range(3)]
    assert all(np.array_equal(x, y) for x, y in zip(seeds1, seeds2))
    assert not np.array_equal(seeds1[0], seeds1[1])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), size=st.integers(8, 64), policy_seed=st.integers(0, 100),
       max_hints=st.integers(1, 40), grid=st.integers(1, 20))
def test_random_masked_rollouts_never_raise_and_stay_in_the_spaces(seed, size, policy_seed, max_hints, grid):
    env = TreasureIslandEnv(size=(size, max(8, size - 3)), max_hints=max_hints, teleport_grid=grid)
    steps = rollout(env, seed, policy_seed)
    for obs, reward, _, _, info in steps:
        assert obs in env.observation_space
        assert info["action_mask"].shape == (env.action_space.n,)
        assert reward in (-1.0, 0.0, 1.0)
    *_, (obs, reward, terminated, truncated, info) = steps
    assert reward == (1.0 if info["outcome"] == "WIN" else -1.0)
    assert truncated == (info["reason"] == "timeout") and terminated != truncated
    assert not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_shaping_is_off_by_default_and_rewards_ruling_tiles_out_when_on():
    plain = rollout(TreasureIslandEnv(size=16), seed=4)
    assert all(r == 0.0 for _, r, *_ in plain[:-1])
    shaped = rollout(TreasureIslandEnv(size=16, shaping=1.0), seed=4)
    assert any(0 < r < 1 for _, r, *_ in shaped[:-1])


def test_observation_tracks_the_game(tmp_path):
    env = TreasureIslandEnv(size=16, raw_observation=True)
    obs, info = env.reset(seed=10)  # a game the first large scan does not end
    raw = info["observation"]
    assert tuple(obs["position"]) == raw.position
    assert obs["scanned"].sum() == 0 and obs["hint_state"][0] == 2  # hint 1 known true
    assert np.array_equal(obs["hints"][0], raw.hints[0].mask(raw.island))
    obs, *_ , info = env.step(env.encode(LargeScan()))
    assert np.array_equal(obs["scanned"].astype(bool), info["observation"].scanned)
    assert not (obs["candidates"] & obs["scanned"]).any()


def test_write_log_gives_a_log_replay_reads(tmp_path):
    env = TreasureIslandEnv(size=16, render_mode="ansi")
    steps = rollout(env, seed=3)
    frame = env.render()
    assert isinstance(frame, str) and "\x1b[" not in frame and "turn" in frame.lower()
    path = env.write_log(tmp_path / "LOG_gym.txt")
    events = parse_log(path.read_text())
    assert events == env.events
    replay = open_log(path)  # finds the generated map written beside the log
    assert replay.last_step() > 0
    assert events[-1].outcome.value == steps[-1][-1]["outcome"]


def test_write_log_refuses_an_unfinished_game(tmp_path):
    env = TreasureIslandEnv(size=16)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="finished"):
        env.write_log(tmp_path / "x.txt")


def test_importing_without_gymnasium_says_how_to_install(monkeypatch):
    for name in [m for m in sys.modules if m == "treasure_cli.gym" or m.startswith("treasure_cli.gym.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "gymnasium", None)  # makes `import gymnasium` fail
    with pytest.raises(ImportError, match=r"pip install 'treasure-cli\[gym\]'"):
        importlib.import_module("treasure_cli.gym")


def test_a_fixed_map_given_a_free_turn_before_turn_1_is_refused():
    island = generate_island(12, 10, rng=np.random.default_rng(1))
    with pytest.raises(ValueError, match="1 or more"):
        TreasureIslandEnv(island, free_turn=0)
