from __future__ import annotations

import numpy as np
from helpers import island_from_grid

from treasure_cli.rules import events as ev
from treasure_cli.agents.knowledge import Knowledge

ROWS = [
    "0 0 0 0 0 0 0",
    "0 1 1 1 1 1 0",
    "0 1 1M 1 1 1 0",
    "0 1P 1 1 1 1 0",
    "0 0 0 0 0 0 0",
]


def test_starts_with_plain_land_and_scans_rule_out_tiles():
    isl = island_from_grid(ROWS, (1, 5)).public()
    k = Knowledge(isl)
    assert k.count == 15 - 2  # 15 land tiles, one mountain, one prison
    k.update(ev.AreaScanned(1, (1, 1), 3, False))
    assert not k.candidates[0:3, 0:3].any()
    assert k.count == 13 - 3  # (1,1), (1,2), (2,1); (2,2) is a mountain


def test_pirate_moves_keep_only_tiles_on_his_shortest_paths():
    isl = island_from_grid(ROWS, (1, 5)).public()
    k = Knowledge(isl, tie_break=False)
    k.update(ev.PrisonRevealed(2, (3, 1)))
    k.update(ev.PirateMoved(3, (3, 1), (3, 3)))
    # Every tile t left satisfies dist(prison, t) == 2 + dist((3, 3), t).
    d_p = isl.walk_distance([(3, 1)])
    d_q = isl.walk_distance([(3, 3)])
    assert np.array_equal(k.candidates, isl.walkable & ~isl.prison & (d_q >= 0) & (d_p == d_q + 2))
    assert k.candidates[1, 5] and not k.candidates[1, 1]


def test_the_tie_break_pins_the_column_where_he_turned():
    rows = ["0 0 0 0 0 0 0 0 0"] + ["0 1 1 1 1 1 1 1 0"] * 4 + ["0 0 0 0 0 0 0 0 0"]
    rows[1] = "0 1P 1 1 1 1 1 1 0"
    isl = island_from_grid(rows, (4, 3)).public()
    loose, tight = Knowledge(isl, tie_break=False), Knowledge(isl)
    for k in (loose, tight):
        k.update_all([ev.PirateMoved(3, (1, 1), (1, 3)), ev.PirateMoved(4, (1, 3), (3, 3))])
        k.game_goes_on()
    # Shortest paths alone: anything south-east of him.
    assert {tuple(p) for p in np.argwhere(loose.candidates)} == {
        (r, c) for r in (3, 4) for c in range(3, 8)
    } - {(3, 3)}
    # He kept going east while east got closer, so the treasure is in the column where he turned.
    assert {tuple(p) for p in np.argwhere(tight.candidates)} == {(4, 3)}


def test_a_corner_move_keeps_both_possible_routes():
    rows = ["0 0 0 0 0 0 0"] + ["0 1 1 1 1 1 0"] * 4 + ["0 0 0 0 0 0 0"]
    rows[1] = "0 1P 1 1 1 1 0"
    isl = island_from_grid(rows, (3, 2)).public()
    k = Knowledge(isl)
    k.update(ev.PirateMoved(3, (1, 1), (2, 2)))  # E then S, or S then E
    k.game_goes_on()
    # E first happens when E is closer (t east of him); the rule then turns S only
    # when E stops getting closer, i.e. t in column 2, below him.
    # S first happens only when E is not closer, i.e. t in column 1 — but then he
    # would never step E. So only column 2 remains, less the tile he stands on.
    assert {tuple(p) for p in np.argwhere(k.candidates)} == {(3, 2), (4, 2)}


def test_candidates_are_replaced_never_changed_in_place(monkeypatch):
    # The logic agent keeps what it derived from a candidates array while Knowledge
    # holds the same array (and the gym encoder copies the plane only then).
    from treasure_cli.agents.logic import LogicAgent
    from treasure_cli.islands.generator import generate_island
    from helpers import play_spec

    seen: list[tuple[np.ndarray, np.ndarray]] = []
    act = LogicAgent.act

    def watched(self, obs):
        action = act(self, obs)
        seen.append((self.know.candidates, self.know.candidates.copy()))
        return action

    monkeypatch.setattr(LogicAgent, "act", watched)
    for seed in range(12):
        island = generate_island(20, 20, free_turn=2 + seed % 3, rng=np.random.default_rng(seed))
        for agent in ("logic", "logic-soft-hints"):
            play_spec(island, agent, seed)
    assert len(seen) > 100
    assert all(np.array_equal(kept, copy) for kept, copy in seen)
