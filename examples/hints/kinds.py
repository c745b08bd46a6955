"""Two hint kinds that are not built in, for `--hints examples/hints/kinds.py` (docs/hints.md).

    treasure run input/ out/ --hints examples/hints/kinds.py --hint-weights builtin=0
"""

from __future__ import annotations

import dataclasses

import numpy as np

from treasure_cli import HintContext, HintDraws, Island, PluginHint


def _near(mask: np.ndarray, k: int) -> np.ndarray:
    """Tiles at Manhattan distance <= k of a tile of `mask`: k one-step growths."""
    out = mask.copy()
    for _ in range(k):
        grown = out.copy()
        grown[1:] |= out[:-1]
        grown[:-1] |= out[1:]
        grown[:, 1:] |= out[:, :-1]
        grown[:, :-1] |= out[:, 1:]
        out = grown
    return out


@dataclasses.dataclass(frozen=True)
class NearMountain(PluginHint):
    """The treasure is (or is not) within k steps of a mountain, counting steps as N/E/S/W moves."""

    k: int
    near: bool

    name = "near-mountain"
    weight = 1.0

    @classmethod
    def available(cls, island: Island, ctx: HintContext) -> bool:
        return bool(island.mountain.any())

    @classmethod
    def draw(cls, island: Island, ctx: HintContext, rng: HintDraws) -> NearMountain:
        return cls(1 + rng.below(5), rng.random() < 0.5)  # k uniform in 1..6

    def tile_set(self, island: Island) -> np.ndarray:
        grown = _near(island.mountain, self.k)  # (a mountain never holds the treasure: not in either set)
        return island.walkable & grown if self.near else island.walkable & ~grown

    def statement(self) -> str:
        steps = f"{self.k} step{'s' if self.k > 1 else ''}"
        if self.near:
            return f"the treasure is within {steps} of a mountain"
        return f"the treasure is more than {steps} from every mountain"


@dataclasses.dataclass(frozen=True)
class RegionNumber(PluginHint):
    """The treasure's region number leaves `rest` when divided by `divisor` (2: even or odd)."""

    divisor: int
    rest: int

    name = "region-number"
    weight = 1.0

    @classmethod
    def available(cls, island: Island, ctx: HintContext) -> bool:
        return len(island.land_regions) >= 2

    @classmethod
    def draw(cls, island: Island, ctx: HintContext, rng: HintDraws) -> RegionNumber:
        divisor = 2 + rng.below(2)  # 2, 3 or 4
        return cls(divisor, rng.below(divisor - 1))

    def tile_set(self, island: Island) -> np.ndarray:
        return island.land & (island.regions % self.divisor == self.rest)

    def statement(self) -> str:
        if self.divisor == 2:
            return f"the treasure is in a region with an {('even', 'odd')[self.rest]} number"
        return f"the treasure is in a region whose number leaves {self.rest} when divided by {self.divisor}"
