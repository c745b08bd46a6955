"""The logical agent: keep the tiles that can still hold the treasure, act on them.

Each action it picks the best of: verifying the hint whose answer splits the
candidates most evenly (expected tiles ruled out: 2·f·(1−f)·n), scanning where
the most candidates are within reach, or travelling toward the densest spot
of candidates (teleporting there when it is far and worth it).
"""

from __future__ import annotations

import numpy as np

from treasure_cli.actions import Action, LargeScan, Teleport, Verify, legal_moves
from treasure_cli.game import Observation
from treasure_cli.grid import Pos, bfs_distance, manhattan_from, window_sum
from treasure_cli.knowledge import Knowledge

TELEPORT_MIN_DISTANCE = 12


class LogicAgent:
    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.know: Knowledge | None = None
        self._target: Pos | None = None
        self._to_target: np.ndarray | None = None

    def act(self, obs: Observation) -> Action:
        if self.know is None:
            self.know = Knowledge(obs.island)
        know = self.know
        know.update_all(obs.news)
        cand = know.candidates
        n = int(cand.sum())
        pos = obs.position
        walk = obs.island.walkable
        if n == 0:  # cannot happen with consistent knowledge; stay legal anyway
            return LargeScan()

        cover5 = window_sum(cand, 2)
        cover3 = window_sum(cand, 1)
        scan_value, scan_action = int(cover5[pos]), LargeScan()
        for move, dst in legal_moves(walk, pos):
            if move.small and cover3[dst] > scan_value:
                scan_value, scan_action = int(cover3[dst]), move
        if scan_value == n:
            return scan_action

        verify_value, verify_action = 0.0, None
        for number in know.unverified():
            f = float((cand & know.masks[number - 1]).sum()) / n
            value = 2.0 * f * (1.0 - f) * n
            if value > verify_value:
                verify_value, verify_action = value, Verify(number)
        if verify_action is not None and verify_value >= scan_value:
            return verify_action

        reachable = np.where(walk, cover5, 0)
        peak = int(reachable.max())
        if scan_value > 0 and scan_value * 2 >= peak:
            return scan_action

        # Travel: weigh density against distance (4 tiles an action when moving fast).
        score = reachable / (1.0 + manhattan_from(walk.shape, pos) / 4.0)
        flat = int(np.argmax(score))
        target = (flat // walk.shape[1], flat % walk.shape[1])
        far = abs(target[0] - pos[0]) + abs(target[1] - pos[1])
        if not obs.teleport_used and far > TELEPORT_MIN_DISTANCE and (
            obs.pirate_free or cover5[target] * 3 >= n
        ):
            self._target = None
            return Teleport(target)
        return self._step_toward(walk, pos, target, scan_action if scan_value else None)

    def _step_toward(self, walk: np.ndarray, pos: Pos, target: Pos, fallback: Action | None) -> Action:
        if target != self._target:
            self._target, self._to_target = target, bfs_distance(walk, [target])
        dist = self._to_target
        here = int(dist[pos])
        best, best_key = None, None
        for move, dst in legal_moves(walk, pos):
            d = int(dist[dst])
            if d < 0:
                continue
            key = (d, 0 if move.small else 1)  # equal progress: prefer the move that scans
            if best_key is None or key < best_key:
                best, best_key = move, key
        if best is None or (best_key[0] >= here and fallback is not None):
            return fallback if fallback is not None else (best or LargeScan())
        return best
