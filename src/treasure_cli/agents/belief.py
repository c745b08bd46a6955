"""A probability over the tiles that may hold the treasure.

Hard facts come from Knowledge. Unverified hints are soft evidence, because
the agent knows how the pirate speaks (RULES §7): he tells the truth with the
known rate p, then draws the hint's parameters until the statement's truth
matches, giving up after MAX_PARAM_DRAWS draws. If a random draw of this kind
contains a tile with chance q (approximated by the share of plain land that S
covers), the chance of hearing exactly S is proportional to

    p · a(q) / q              for a tile in S   (a truthful draw)
    (1 − p) · a(1 − q) / (1 − q)   for a tile not in S   (a lie)

where a(s) = 1 − (1 − s)^MAX_PARAM_DRAWS is the chance the draw succeeds
within its budget. Kinds without random parameters (6, 10, 15) carry only
p against 1 − p. The weights are kept as logarithms, updated as hints come
and go, so a turn costs one pass per new hint.
"""

from __future__ import annotations

import math

import numpy as np

from treasure_cli.rules.hint_draw import MAX_PARAM_DRAWS
from treasure_cli.rules.hints import FIXED_KINDS, HintKind
from treasure_cli.agents.knowledge import Knowledge



def _accept(s: float) -> float:
    """a(s)/s: how much a draw budget favours a set a random draw rarely matches."""
    if s <= 0.0:
        return float(MAX_PARAM_DRAWS)
    return (1.0 - (1.0 - s) ** MAX_PARAM_DRAWS) / s


def hint_log_factors(kind: HintKind, q: float, truth_rate: float) -> tuple[float, float]:
    """Log-likelihood of hearing the hint for a tile inside S and for one outside."""
    p = truth_rate
    if kind in FIXED_KINDS:
        inside, outside = p, 1.0 - p
    else:
        inside, outside = p * _accept(q), (1.0 - p) * _accept(1.0 - q)
    tiny = 1e-300
    return math.log(max(inside, tiny)), math.log(max(outside, tiny))


class Belief:
    """Posterior weights over the candidates of a Knowledge, with soft hints on or off."""

    def __init__(self, know: Knowledge, truth_rate: float, soft_hints: bool = True):
        self.know = know
        self.truth_rate = truth_rate
        self.soft_hints = soft_hints and 0.0 < truth_rate < 1.0
        island = know.island
        self._plain = island.walkable & ~island.prison
        self._plain_count = max(1, int(self._plain.sum()))
        self._log = np.zeros(island.shape, dtype=np.float64)
        self._included: dict[int, np.ndarray] = {}  # hint number -> its log-factor map

    def _sync(self) -> None:
        know = self.know
        for number in list(self._included):
            if number in know.verified:  # now a hard fact: drop the soft factor
                self._log -= self._included.pop(number)
        if not self.soft_hints:
            return
        for number in know.unverified():
            if number not in self._included:
                mask = know.open_mask(number)  # kept: the agent's verification pricing reads it next
                if mask is None:  # settled: its set is not kept
                    mask = know.hint_mask(number)
                hint = know.hints[number - 1]
                q = float((mask & self._plain).sum()) / self._plain_count
                inside, outside = hint_log_factors(hint.kind, q, self.truth_rate)  # type: ignore[arg-type]  # a built-in kind
                factor = np.where(mask, inside, outside)
                self._log += factor
                self._included[number] = factor

    def weights(self) -> np.ndarray:
        """Probabilities summing to 1 over the candidates (0 elsewhere)."""
        self._sync()
        cand = self.know.candidates
        if not cand.any():
            return np.zeros(cand.shape)
        if not self._included:  # hard facts only: uniform over the candidates
            return cand / float(cand.sum())
        top = self._log[cand].max()
        w = np.where(cand, np.exp(np.minimum(self._log - top, 0.0)), 0.0)
        return w / w.sum()  # type: ignore[no-any-return]

    def without(self, number: int, weights: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Candidate weights (at flat indices `idx`) as they would be without hint `number`'s soft factor."""
        factor = self._included.get(number)
        if factor is None:
            return weights
        f = factor.ravel()[idx]
        return weights * np.exp(-(f - f.max()))  # type: ignore[no-any-return]
