"""An agent that reads the raw Observation, with no Knowledge: every field it uses is shown.

    treasure run input/ out/ --agent examples/raw_observation.py:RawObservation
"""

import numpy as np

from treasure_cli import LargeScan, Move, Verify, legal_actions


class RawObservation:
    def reset(self, seed):
        self.rng = np.random.default_rng(seed)  # called before each game: reproducible draws

    def act(self, obs):
        island = obs.island  # the public map: regions, mountain, prison, walkable (no treasure)
        # Tiles that may hold the treasure: plain land not yet scanned ...
        possible = island.walkable & ~island.prison & ~obs.scanned
        # ... inside every verified hint that is true, outside every one that is false.
        for number, truth in obs.verified.items():
            tiles = obs.hints[number - 1].mask(island)
            possible &= tiles if truth else ~tiles
        for number in range(1, len(obs.hints) + 1):
            if number not in obs.verified and obs.actions_left == 2:
                return Verify(number)  # the first action of a turn checks the newest hint
        r, c = obs.position
        if possible[max(r - 2, 0):r + 3, max(c - 2, 0):c + 3].any():
            return LargeScan()
        # Walk toward a random possible tile; once free, the pirate (obs.pirate) heads for the treasure.
        goal = obs.pirate if obs.pirate_free and obs.pirate is not None else None
        if goal is None:
            rows, cols = np.nonzero(possible)
            if not rows.size:
                return LargeScan()
            i = int(self.rng.integers(rows.size))
            goal = (int(rows[i]), int(cols[i]))
        moves = [a for a in legal_actions(obs, teleports=False) if isinstance(a, Move)]
        if not moves:
            return LargeScan()
        return min(moves, key=lambda m: abs(goal[0] - r - m.direction.dr * m.steps)
                   + abs(goal[1] - c - m.direction.dc * m.steps))
