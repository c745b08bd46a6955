"""The built-in hint kinds by name (RULES §7), and what the pirate knows when he gives a hint.

The kinds' numbers, the enums of their parameters, which kinds are fixed or
rare and their weights, and `HintContext`: what hints.py (the kinds' sets and
sentences), hint_params.py (their parameter draws) and hint_draw.py (the
pirate's choice among them) all name, so it sits below the three.
"""

from __future__ import annotations

import dataclasses
import enum

from treasure_cli.rules.grid import Pos
from treasure_cli.rules.quick_init import quick_init

__all__ = ["HintKind", "FIXED_KINDS", "RARE_KINDS", "KIND_WEIGHTS", "Compass", "Half", "Origin", "HintContext"]


class HintKind(enum.IntEnum):
    """Hint kinds; the numbers are the rows of the RULES §7 table."""

    NOT_TILES = 1
    IN_REGIONS = 2
    NOT_REGIONS = 3
    IN_RECTANGLE = 4
    NOT_RECTANGLE = 5
    NEARER_THAN_PRISON = 6
    IN_LINE = 7
    NOT_LINE = 8
    PAIR_BOUNDARY = 9
    ANY_BOUNDARY = 10
    NEAR_SEA = 11
    NOT_HALF = 12
    DIRECTION = 13
    BETWEEN_SQUARES = 14
    MOUNTAIN_REGIONS = 15


# Kinds whose statement has no random parameters: redrawing cannot change its truth.
FIXED_KINDS = frozenset({HintKind.NEARER_THAN_PRISON, HintKind.ANY_BOUNDARY, HintKind.MOUNTAIN_REGIONS})


class Compass(enum.Enum):
    """The eight directions of kind 13; the value is the word in the sentence."""

    N = "N"
    S = "S"
    E = "E"
    W = "W"
    NE = "NE"
    NW = "NW"
    SE = "SE"
    SW = "SW"


class Half(enum.Enum):
    TOP = "top"
    BOTTOM = "bottom"
    LEFT = "left"
    RIGHT = "right"


class Origin(enum.Enum):
    """Where a kind-13 direction starts; the value is the sentence's wording."""

    CENTRE = "map centre"
    PRISON = "prison"


RARE_KINDS: frozenset[HintKind] = frozenset({HintKind.IN_LINE, HintKind.NOT_HALF, HintKind.BETWEEN_SQUARES})
KIND_WEIGHTS: dict[HintKind, float] = {k: 0.5 if k in RARE_KINDS else 1.0 for k in HintKind}  # rare kinds 0.5


@quick_init
@dataclasses.dataclass(frozen=True)
class HintContext:
    """What the pirate knows when he gives a hint."""

    turn: int               # t, 1-based
    prison: Pos             # the pirate's prison
    agent: Pos              # the agent's position when the hint is given
    prison_revealed: bool   # t >= r: enables kind 6 and the prison origin of kind 13
