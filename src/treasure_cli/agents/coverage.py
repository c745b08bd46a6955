"""How often a random draw of each hint kind holds a tile: the pirate's draw, tile by tile.

The pirate draws a hint's parameters until its statement has the truth he
chose (RULES §7, `rules/hint_draw.py`). So the chance of hearing a set S, the
treasure at t, depends on t through c(t), the chance that one random draw of
that kind holds t in its set: a truthful draw is redrawn until it holds t
(about 1/c(t) draws), a lie until it does not (about 1/(1 − c(t))).
`belief.py` takes c(t) to be the share of plain land S covers, the same for
every tile of S. It is not: a large rectangle (kind 4) holds a tile at the
map's centre far more often than one in a corner, a direction from the centre
(13) a tile on a diagonal more often than one beside it, a tile three steps
from the sea is within k of it only when k = 3 (11), and a row hint (7) holds
every tile with the same chance whatever the land in the row.

`Coverage(island).chance(hint, number)` gives c over the map (an array), or
one number when it is the same on every land tile, or None where it is not
computed here (a kind drawn without parameters, kind 14, a plug-in kind, and
the map-sized kinds on maps of more than COVERAGE_AREA tiles): the caller then
keeps belief.py's approximation. Every figure follows the draw's own
distributions (`rules/hint_params.py`); tests/agents/test_coverage.py checks
them against counted draws.
"""

from __future__ import annotations

import numpy as np

from treasure_cli.rules.hint_kinds import Compass, Half, HintKind, Origin
from treasure_cli.rules.hint_params import _area_bounds
from treasure_cli.rules.hints import Hint, InDirection, NotHalf
from treasure_cli.rules.island import Island

COVERAGE_AREA = 1 << 14  # maps up to this many tiles (128x128) get the kinds whose chance varies by tile


def _line_chance(h: int, w: int) -> float:
    """A row (45 %), a column (45 %) or both (10 %), uniform: the chance one holds a tile."""
    pr, pc = 1.0 / h, 1.0 / w
    return 0.45 * pr + 0.45 * pc + 0.10 * (pr + pc - pr * pc)


def _rectangle_chance(h: int, w: int, kind: HintKind) -> np.ndarray:
    """The chance a rectangle of `kind`'s areas (uniform over the sizes that fit, then over the
    positions) holds each tile: for each height, the rows' chance times the summed columns'
    chance of the widths allowed with it."""
    lo, hi = _area_bounds(h * w, kind)
    heights = np.arange(1, h + 1)
    wmin = np.maximum(1, -(-lo // heights))
    wmax = np.minimum(w, hi // heights)
    count = np.maximum(0, wmax - wmin + 1)
    total = int(count.sum())
    out = np.zeros((h, w))
    if total == 0:
        return out
    # cols[k - 1, c]: the chance a width-k span at a uniform position holds column c; cumulated over k.
    ks = np.arange(1, w + 1)[:, None]
    c = np.arange(w)[None, :]
    cols = (np.minimum(c, w - ks) - np.maximum(0, c - ks + 1) + 1) / (w - ks + 1)
    cum = np.vstack([np.zeros((1, w)), np.cumsum(cols, axis=0)])  # cum[k]: widths 1..k
    used = count > 0
    by_height = np.zeros((h, w))
    by_height[used] = cum[wmax[used]] - cum[wmin[used] - 1]
    hs = heights[None, :]
    r = np.arange(h)[:, None]
    rows = (np.minimum(r, h - hs) - np.maximum(0, r - hs + 1) + 1) / (h - hs + 1)  # rows[r, k - 1]
    rows = np.where(hs <= h, rows, 0.0)
    out = rows @ by_height / total
    return np.clip(out, 0.0, 1.0)


class Coverage:
    """The chance a random draw of a kind holds each tile, on one island (kept once made)."""

    def __init__(self, island: Island) -> None:
        self.island = island
        self._maps: dict[object, np.ndarray | float] = {}
        self._prison: tuple[int, int] | None = None  # once revealed: kind 13's second origin

    def chance(self, hint: Hint, number: int) -> np.ndarray | float | None:
        """c(t) for hint `number` (given at turn `number`) as stated: the chance one draw of its
        kind has a set holding t (for a "not" kind, the complement of what it names)."""
        kind = getattr(hint, "kind", None)
        if not isinstance(kind, HintKind):
            return None  # a plug-in kind: its draw is its own
        isl = self.island
        h, w = isl.shape
        if kind is HintKind.NOT_TILES:
            land = max(1, int(np.count_nonzero(isl.land)))
            return 1.0 - (1 + min(12, land)) / 2.0 / land
        if kind is HintKind.IN_REGIONS or kind is HintKind.NOT_REGIONS:
            regions = max(1, len(isl.land_regions))
            least, most = (2, 5) if kind is HintKind.IN_REGIONS else (1, 3)
            named = (least + min(most, regions)) / 2.0 / regions
            return named if kind is HintKind.IN_REGIONS else 1.0 - named
        if kind is HintKind.IN_LINE:
            return _line_chance(h, w)
        if kind is HintKind.NOT_LINE:
            return 1.0 - _line_chance(h, w)
        if h * w > COVERAGE_AREA:
            return None
        after_reveal = number >= isl.reveal_turn
        key: object = (kind, after_reveal) if kind is HintKind.DIRECTION else kind
        found = self._maps.get(key)
        if found is None:
            found = self._make(kind, after_reveal, hint)
            if found is None:
                return None
            self._maps[key] = found
        return found

    def _make(self, kind: HintKind, after_reveal: bool, hint: Hint) -> np.ndarray | None:
        isl = self.island
        h, w = isl.shape
        if kind is HintKind.IN_RECTANGLE:
            return _rectangle_chance(h, w, kind)
        if kind is HintKind.NOT_RECTANGLE:
            return 1.0 - _rectangle_chance(h, w, kind)
        rows, cols = np.arange(h)[:, None], np.arange(w)[None, :]
        if kind is HintKind.NOT_HALF:
            halves = ([Half.TOP, Half.BOTTOM] if h >= 2 else []) + ([Half.LEFT, Half.RIGHT] if w >= 2 else [])
            named = sum((NotHalf.contains(half, rows, cols, (h, w)) * np.ones((h, w)) for half in halves),
                        np.zeros((h, w)))
            return 1.0 - named / max(1, len(halves))
        if kind is HintKind.DIRECTION:
            origins = [((h // 2, w // 2), Origin.CENTRE)]
            if after_reveal:
                prison = getattr(hint, "origin", None) if getattr(hint, "origin_kind", None) is Origin.PRISON else None
                prison = prison if prison is not None else self._prison
                if prison is None:
                    return None  # (the prison is known from the reveal on; not yet told here)
                origins.append((prison, Origin.PRISON))
            held = np.zeros((h, w))
            for origin, origin_kind in origins:
                for d in Compass:
                    held += InDirection.contains(d, origin, origin_kind, rows, cols, (h, w))
            return held / (len(origins) * len(Compass))
        if kind is HintKind.NEAR_SEA:
            sea = isl.sea_distance
            return np.where(sea <= 2, 1.0, np.where(sea == 3, 0.5, 0.0))
        if kind is HintKind.PAIR_BOUNDARY:
            pairs = len(isl.adjacent_pairs)
            if pairs == 0:
                return None
            reg = isl.regions.astype(np.int64)
            own = np.where(isl.land, reg, -1)
            pad = np.full((h + 2, w + 2), -1, dtype=np.int64)
            pad[1:-1, 1:-1] = np.where(isl.land, reg, -1)
            near = np.stack([pad[:-2, 1:-1], pad[2:, 1:-1], pad[1:-1, :-2], pad[1:-1, 2:]])
            near = np.where((near >= 0) & (near != own[None]), near, -1)
            near.sort(axis=0)
            distinct = (near[0] >= 0).astype(np.int64) + ((near[1:] != near[:-1]) & (near[1:] >= 0)).sum(axis=0)
            return np.where(isl.land, distinct / pairs, 0.0)
        return None  # fixed kinds (6, 10, 15: drawn once) and kind 14

    def tell_prison(self, prison: tuple[int, int] | None) -> None:
        """The prison, once revealed (kind 13's second origin)."""
        self._prison = prison
