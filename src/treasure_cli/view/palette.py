"""Colours for agents: as many as a class has, each told apart from the others.

The colours are picked greedily from a grid of hues, lightnesses and
saturations readable on a white page: each next colour is the candidate
farthest (in CIELAB, which follows how different colours look) from all
those already picked. The first ones are therefore as far apart as
possible, and 40 colours still differ clearly (tests/view checks the
distance). Charts and the leaderboard use this one palette, so an agent
keeps its colour everywhere.
"""

from __future__ import annotations

import colorsys
import functools
import math

MOST = 64  # colours made; agents past that reuse them (a class that large reads the names)


def _lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """sRGB (0-1) to CIELAB (D65)."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def colour_distance(a: str, b: str) -> float:
    """How different two #rrggbb colours look (CIE76 delta E)."""
    return math.dist(_lab(_rgb(a)), _lab(_rgb(b)))


def _rgb(colour: str) -> tuple[float, float, float]:
    return tuple(int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]


@functools.lru_cache(maxsize=1)
def _palette() -> tuple[str, ...]:
    candidates = []
    for h in range(0, 360, 6):
        for light in (0.28, 0.38, 0.48, 0.58, 0.68):
            for sat in (0.45, 0.7, 0.95):
                rgb = colorsys.hls_to_rgb(h / 360, light, sat)
                candidates.append(("#" + "".join(f"{round(255 * c):02x}" for c in rgb), _lab(rgb)))
    picked = [min(candidates, key=lambda c: math.dist(c[1], _lab(_rgb("#1f77b4"))))]  # a blue first
    nearest = [math.dist(c[1], picked[0][1]) for c in candidates]
    while len(picked) < MOST:
        k = max(range(len(candidates)), key=nearest.__getitem__)
        picked.append(candidates[k])
        nearest = [min(d, math.dist(c[1], candidates[k][1])) for d, c in zip(nearest, candidates)]
    return tuple(c[0] for c in picked)


def agent_colour(k: int) -> str:
    """The colour of the k-th agent (0-based), as #rrggbb."""
    palette = _palette()
    return palette[k % len(palette)]


def agent_colours(n: int) -> list[str]:
    return [agent_colour(k) for k in range(n)]
