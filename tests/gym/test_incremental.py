"""The env's observation is kept up to date step by step; here it is rebuilt from scratch and compared.

The reference below folds the whole public history into a fresh `Knowledge` and
recomputes every plane and the mask at every step, the slow way, so any
shortcut of the incremental encoder (a plane not refreshed, an array shared
and then changed, a stale mask) shows up as a difference.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from treasure_cli.agents.knowledge import Knowledge  # noqa: E402
from treasure_cli.gym import TreasureIslandEnv, legal_actions  # noqa: E402
from treasure_cli.rules import events as ev  # noqa: E402
from treasure_cli.rules.actions import scan_square  # noqa: E402


def from_scratch(env: TreasureIslandEnv, raw, asked: list[int]) -> tuple[dict, np.ndarray]:
    """The observation and mask now, from the env's whole event history (`raw`: the engine's
    Observation, None once the game is over; `asked`: how many events there were each time
    the agent was asked to act, as `Knowledge.observe` is fed by an agent)."""
    island, mh = env.public, env.max_hints
    seen = [ev.public_view(e) for e in env.events]
    know = Knowledge(island)
    start = 0
    for end in asked:
        know.update_all(s for s in seen[start:end] if s is not None)
        know.game_goes_on()
        start = end
    know.update_all(s for s in seen[start:] if s is not None)
    seen = [s for s in seen if s is not None]
    scanned = np.zeros(island.shape, dtype=np.int8)
    hints = np.zeros((mh, *island.shape), dtype=np.int8)
    state = np.zeros(mh, dtype=np.int64)
    for e in seen:
        if isinstance(e, ev.AreaScanned):
            scanned[scan_square(e.centre, e.size)] = 1
        elif isinstance(e, ev.HintGiven) and e.number <= mh:
            hints[e.number - 1] = e.hint.mask(island)
            state[e.number - 1] = 1 if e.truthful is None else (2 if e.truthful else 3)
        elif isinstance(e, ev.HintVerified) and e.number <= mh:
            state[e.number - 1] = 2 if e.truthful else 3
    obs = {
        "candidates": know.candidates.astype(np.int8), "scanned": scanned,
        "walkable": island.walkable.astype(np.int8), "mountain": island.mountain.astype(np.int8),
        "prison": island.prison.astype(np.int8), "hints": hints, "hint_state": state,
        "regions": island.regions.astype(np.int32),
        "position": np.array(know.position, dtype=np.int64),
        "prison_pos": np.array(know.prison if know.prison is not None else (-1, -1), dtype=np.int64),
        "pirate": np.array(know.pirate if know.pirate is not None else (-1, -1), dtype=np.int64),
        "turn": min(know.turn, env.max_turns),
        "actions_left": 0 if raw is None else raw.actions_left,
        "teleport_available": int(not know.teleport_used),
    }
    mask = np.zeros(env.action_space.n, dtype=np.int8)
    if raw is not None:
        assert know.position == raw.position and know.turn == raw.turn
        assert np.array_equal(scanned.astype(bool), raw.scanned)
        legal = {env.encode(a) for a in legal_actions(raw)} - {None}
        mask[sorted(legal)] = 1
    return obs, mask


def same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def arrays(obs: dict, info: dict) -> list[np.ndarray]:
    return [v for v in obs.values() if isinstance(v, np.ndarray)] + [info["action_mask"]]


def assert_same_obs(obs: dict, ref: dict, where: str) -> None:
    assert obs.keys() == ref.keys(), where
    for key in ref:
        if isinstance(ref[key], int):
            assert type(obs[key]) is int and obs[key] == ref[key], f"{where}: {key}"
        else:
            assert same(obs[key], ref[key]), f"{where}: {key}"


@pytest.mark.parametrize("size, max_hints, grid", [(8, 32, 16), (13, 3, 5), (20, 6, 16), (24, 32, 7)])
def test_the_incremental_observation_is_the_one_rebuilt_from_the_history(size, max_hints, grid):
    env = TreasureIslandEnv(size=(size, size - 2), raw_observation=True, max_hints=max_hints,
                            teleport_grid=grid, shaping=0.5)
    twin = TreasureIslandEnv(size=(size, size - 2), max_hints=max_hints, teleport_grid=grid, shaping=0.5)
    steps = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        tobs, tinfo = twin.reset(seed=seed)
        asked = [len(env.events)]
        kept = []  # every observation and mask of the episode, with a copy taken when it was given
        done = False
        while True:
            where = f"seed {seed}, turn {obs['turn']}"
            ref, ref_mask = from_scratch(env, None if done else info["observation"], asked)
            assert_same_obs(obs, ref, where)
            assert same(info["action_mask"], ref_mask), where
            assert same(env.action_masks(), ref_mask), where
            assert_same_obs(tobs, ref, where + " (without raw observations)")
            assert same(tinfo["action_mask"], ref_mask), where
            if kept:  # every array is new data: none shares memory with the previous step's
                before = arrays(kept[-1][0], {"action_mask": kept[-1][1]})
                assert not any(np.shares_memory(a, b) for a in arrays(obs, info) for b in before), where
            kept.append((obs, info["action_mask"], {k: np.array(v, copy=True) for k, v in obs.items()},
                         ref_mask.copy()))
            if done:
                break
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, reward, terminated, truncated, info = env.step(action)
            tobs, treward, tterm, ttrunc, tinfo = twin.step(action)
            assert (reward, terminated, truncated) == (treward, tterm, ttrunc)
            done = terminated or truncated
            if not done:
                asked.append(len(env.events))
            steps += 1
        # what a learner kept of earlier steps has not changed since
        for i, (old_obs, old_mask, copy, mask_copy) in enumerate(kept):
            assert_same_obs(old_obs, copy, f"seed {seed}, kept step {i}")
            assert same(old_mask, mask_copy), f"seed {seed}, kept mask {i}"
    assert steps > 50
