"""Sets of tiles as Python ints, for the hot loops that combine many whole-map sets.

Bit i of a set is the tile at flat index i of the grid padded with one
blocked tile on every side (the layout `grid.bfs_distance` uses), so the four
neighbours of a set are four shifts (±1, ±padded width) with no edge checks:
a step off the map lands on a padding bit, never on a tile of another row,
and ANDing with any set of inside tiles drops it. Why ints: on maps of a few thousand tiles one
`&`, `|` or shift of an int is one C loop over 64-bit words (tens of
nanoseconds), while every numpy call on a small array costs microseconds of
fixed overhead. Conversions to and from (H, W) bool arrays happen only at the
edges (`from_mask`, `to_mask`).
"""

from __future__ import annotations

import numpy as np

from treasure_cli.rules.grid import Pos


class BitGrid:
    """The bit layout of one map shape."""

    def __init__(self, shape: tuple[int, int]):
        h, w = shape
        self.shape = (h, w)
        self.stride = w + 2  # the padded width: one row up or down is a shift by this much
        self.size = (h + 2) * self.stride
        self.nbytes = (self.size + 7) // 8

    def index(self, pos: Pos) -> int:
        """The bit of an inside tile."""
        return (pos[0] + 1) * self.stride + pos[1] + 1

    def from_mask(self, mask: np.ndarray) -> int:
        """The set of the True tiles of an (H, W) bool array."""
        h, w = self.shape
        padded = np.zeros((h + 2, self.stride), dtype=bool)
        padded[1:-1, 1:-1] = mask
        return int.from_bytes(np.packbits(padded, bitorder="little").tobytes(), "little")

    def to_mask(self, bits: int) -> np.ndarray:
        """A fresh, writable (H, W) bool array of a set of inside tiles."""
        h, w = self.shape
        raw = np.frombuffer(bits.to_bytes(self.nbytes, "little"), dtype=np.uint8)
        flat = np.unpackbits(raw, count=self.size, bitorder="little").view(bool)
        return flat.reshape(h + 2, self.stride)[1:-1, 1:-1].copy()  # type: ignore[no-any-return]

    def spread(self, bits: int) -> int:
        """Every 4-neighbour of the set, padding bits included: AND it with a set of inside tiles."""
        s = self.stride
        return (bits << 1) | (bits >> 1) | (bits << s) | (bits >> s)

    def layers(self, start: Pos, open_bits: int, stop: Pos | None = None) -> list[int]:
        """Walking-distance layers from `start` over the set `open_bits`: layers[k] holds
        the tiles k steps away (`start` is layer 0, open or not, as a BFS source). Ends
        with the layer that holds `stop`, or when no tile is left."""
        goal = 0 if stop is None else 1 << self.index(stop)
        frontier = seen = 1 << self.index(start)
        out = [frontier]
        while not frontier & goal:
            frontier = self.spread(frontier) & open_bits & ~seen
            if not frontier:
                break
            seen |= frontier
            out.append(frontier)
        return out
