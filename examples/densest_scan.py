"""An agent to start from: keep the candidate tiles with Knowledge, then scan where they are densest.

    treasure check-agent examples/densest_scan.py:DensestScan
    treasure run input/ out/ --agent examples/densest_scan.py:DensestScan
"""

import numpy as np

from treasure_cli import Knowledge, LargeScan, Move, Teleport, Verify, legal_actions


def densest_window(candidates, walkable):
    """The walkable tile whose 5x5 scan would cover the most candidate tiles, and that count."""
    padded = np.pad(candidates.astype(np.int32), 2)
    sums = padded.cumsum(0).cumsum(1)
    sums = np.pad(sums, ((1, 0), (1, 0)))
    h, w = candidates.shape
    cover = sums[5:5 + h, 5:5 + w] - sums[:h, 5:5 + w] - sums[5:5 + h, :w] + sums[:h, :w]
    cover = np.where(walkable, cover, -1)
    r, c = np.unravel_index(int(np.argmax(cover)), cover.shape)
    return (int(r), int(c)), int(cover[r, c])


class DensestScan:
    def __init__(self):
        self.know = None

    def act(self, obs):
        if self.know is None:
            self.know = Knowledge(obs.island)
        self.know.observe(obs)  # news since the last action; the game goes on
        cand = self.know.candidates
        unverified = self.know.unverified()
        if unverified and cand.sum() > 25:  # a verification halves a large search on average
            return Verify(unverified[0])
        r, c = obs.position
        if cand[max(r - 2, 0):r + 3, max(c - 2, 0):c + 3].any():
            return LargeScan()
        target, _ = densest_window(cand, obs.island.walkable)
        distance = abs(target[0] - r) + abs(target[1] - c)
        if not obs.teleport_used and distance > 8:
            return Teleport(target)
        moves = [a for a in legal_actions(obs, teleports=False) if isinstance(a, Move)]
        best = min(moves, default=None, key=lambda m: abs(target[0] - (r + m.direction.dr * m.steps))
                   + abs(target[1] - (c + m.direction.dc * m.steps)))
        if best is None:
            return LargeScan()
        return best
