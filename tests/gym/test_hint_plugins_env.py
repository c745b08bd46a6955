"""The Gymnasium env takes plugin hint kinds (docs/hints.md): their tile sets are the hint planes."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import ROOT

gymnasium = pytest.importorskip("gymnasium")

from treasure_cli.gym import ENV_ID  # noqa: E402
from treasure_cli.rules.plugin_kinds import TileSetHint  # noqa: E402

KINDS = str(ROOT / "examples" / "hints" / "kinds.py")


def test_plugin_hints_reach_the_observation_as_hint_masks():
    env = gymnasium.make(ENV_ID, size=16, hints=KINDS, hint_weights="builtin=0", raw_observation=True)
    obs, info = env.reset(seed=3)
    seen = 0
    for _ in range(40):
        raw = info["observation"]
        island = raw.island
        for k, hint in enumerate(raw.hints):
            assert np.array_equal(obs["hints"][k].astype(bool), hint.mask(island))
            seen += isinstance(hint, TileSetHint)  # a plugin kind, as every agent gets it
        legal = np.flatnonzero(info["action_mask"])
        obs, _, terminated, truncated, info = env.step(int(legal[-1]))
        if terminated or truncated:
            break
    assert seen >= 1
