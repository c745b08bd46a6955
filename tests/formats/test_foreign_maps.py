"""Maps unlike ours (as other programs write them): no sea border, scattered
regions, many mountains, early release. Every agent must still play legally,
and the logic agent must never rule out the treasure."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from helpers import play

from treasure_cli.rules import events as ev
from treasure_cli.agents.registry import agent_names
from treasure_cli.errors import MapFormatError
from treasure_cli.agents.knowledge import Knowledge
from treasure_cli.formats.map_file import parse_map
from treasure_cli.play.games import build_game


def foreign_map_text(seed: int) -> str:
    """A map drawn tile by tile at random, in a loose but accepted layout."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(4, 20)), int(rng.integers(4, 20))
    regions = rng.integers(0, int(rng.integers(2, 9)), size=(h, w))  # scattered, not 4-connected
    kinds = rng.choice(["", "M", "P"], size=(h, w), p=[0.75, 0.15, 0.10])
    kinds[regions == 0] = ""
    land = np.argwhere((regions > 0) & (kinds == ""))
    tr, tc = land[int(rng.integers(len(land)))] if len(land) else (0, 0)
    r, f = int(rng.integers(1, 5)), int(rng.integers(1, 6))
    rows = [";".join(f"  {regions[i, j]}{' ' if rng.random() < 0.5 else ''}{kinds[i, j]}" for j in range(w)) + ";"
            for i in range(h)]
    return f"\r\n{w},{h}\r\n{r}\r\n{f}\r\n{int(rng.integers(1, 12))}\r\n{tr} {tc}\r\n" + "\r\n".join(rows) + "\r\n\r\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.sampled_from(agent_names()))
def test_agents_play_foreign_maps_legally(map_seed, game_seed, agent):
    try:
        island = parse_map(foreign_map_text(map_seed), "foreign.txt", warnings=[])
    except MapFormatError:
        return  # e.g. no prison reaches the treasure: rejected with a message, as it should be
    game, player = build_game(island, agent, game_seed)
    events = play(game, player)  # raises on any illegal action
    assert isinstance(events[-1], ev.GameEnded)
    know = Knowledge(island.public(), tie_break=True)
    for e in events:
        seen = ev.public_view(e, game.hint_truths_public)
        if seen is not None:
            know.update(seen)
            assert know.candidates[island.treasure]


def test_some_foreign_maps_are_valid():
    valid = 0
    for seed in range(40):
        try:
            parse_map(foreign_map_text(seed), "foreign.txt", warnings=[])
            valid += 1
        except MapFormatError:
            pass
    assert valid >= 10  # the property test above is not vacuous
