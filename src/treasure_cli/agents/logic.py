"""The logical agent.

Knowledge keeps the tiles that can still hold the treasure (hint 1, verified
hints, empty scans, the prison, the pirate's rule-bound walk); Belief turns
them into probabilities, counting unverified hints as soft evidence. Each
action the agent compares, in one currency — expected actions still needed —

* verifying a hint: what the split of the probability mass is worth;
* the best scan plan for the rest of this turn (up to two actions, e.g. a
  large move then a large scan), found by exact union coverage of squares;
* travelling toward the densest reachable mass, teleporting when it is far
  and concentrated, or when the pirate is free and the race is on.

Once the pirate is free each tile's mass is raised by how soon he would
reach it, so the tiles he is about to step on are searched first.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from treasure_cli.actions import Action, LargeScan, Move, Teleport, Verify, legal_moves
from treasure_cli.belief import Belief
from treasure_cli.game import Observation
from treasure_cli.grid import Pos, bfs_distance, manhattan_from, window_sum
from treasure_cli.knowledge import Knowledge

SCAN_RATE = 12.0            # tiles a sweep clears per action, roughly (sets the value of a verification)
TELEPORT_MIN_DISTANCE = 10  # closer than this, walking is as good
URGENCY = 3.0               # extra weight for tiles the free pirate reaches next turn


@dataclasses.dataclass(frozen=True)
class Features:
    """Switches for measuring what each idea adds (`treasure bench`)."""

    soft_hints: bool = True
    tie_break: bool = True
    plan_two: bool = True
    race: bool = True


def _overlap(a: tuple[Pos, int], b: tuple[Pos, int]) -> tuple[int, int, int, int] | None:
    """The rectangle where two squares (centre, radius) meet, or None."""
    (r1, c1), k1 = a
    (r2, c2), k2 = b
    r0, r1_ = max(r1 - k1, r2 - k2), min(r1 + k1, r2 + k2)
    c0, c1_ = max(c1 - k1, c2 - k2), min(c1 + k1, c2 + k2)
    return (r0, r1_, c0, c1_) if r0 <= r1_ and c0 <= c1_ else None


class _Mass:
    """Probability mass of squares and rectangles in O(1): window sums and an integral image."""

    def __init__(self, p: np.ndarray):
        self.h, self.w = p.shape
        self.cs = np.zeros((self.h + 1, self.w + 1))
        self.cs[1:, 1:] = p.cumsum(0).cumsum(1)
        self.window = {1: window_sum(p, 1), 2: window_sum(p, 2)}

    def rect(self, r0: int, r1: int, c0: int, c1: int) -> float:
        """Mass of rows r0..r1, cols c0..c1 inclusive, clipped to the map."""
        r0, c0 = max(r0, 0), max(c0, 0)
        r1, c1 = min(r1, self.h - 1), min(c1, self.w - 1)
        if r0 > r1 or c0 > c1:
            return 0.0
        cs = self.cs
        return float(cs[r1 + 1, c1 + 1] - cs[r0, c1 + 1] - cs[r1 + 1, c0] + cs[r0, c0])

    def square(self, sq: tuple[Pos, int]) -> float:
        return float(self.window[sq[1]][sq[0]])

    def union(self, a: tuple[Pos, int], b: tuple[Pos, int]) -> float:
        both = _overlap(a, b)
        return self.square(a) + self.square(b) - (self.rect(*both) if both else 0.0)


def _n_eff(p: np.ndarray) -> float:
    """Effective number of candidate tiles: 1 / Σp² (n for a uniform spread)."""
    s = float((p * p).sum())
    return 1.0 / s if s > 0 else 0.0


class LogicAgent:
    def __init__(self, rng: np.random.Generator, features: Features = Features()):
        self.rng = rng
        self.features = features
        self.know: Knowledge | None = None
        self.belief: Belief | None = None
        self._target: Pos | None = None
        self._to_target: np.ndarray | None = None
        self._move_cache: dict[Pos, list[tuple[Move, Pos]]] = {}

    # ------------------------------------------------------------------ act
    def act(self, obs: Observation) -> Action:
        if self.know is None:
            self.know = Knowledge(obs.island, tie_break=self.features.tie_break)
            self.belief = Belief(self.know, obs.truth_rate, soft_hints=self.features.soft_hints)
        know = self.know
        know.update_all(obs.news)
        know.game_goes_on()
        p = self.belief.weights()
        if not p.any():  # cannot happen with sound knowledge; stay legal anyway
            return LargeScan()
        walk = obs.island.walkable
        pos = obs.position
        urgent = self._urgency(p) if self.features.race and know.pirate_free else p
        mass = _Mass(urgent / urgent.sum())

        scan_value, scan_first, scan_actions = self._best_scan_plan(walk, pos, mass, obs.actions_left)
        if scan_value >= 1.0 - 1e-9:
            return scan_first  # this plan finds the treasure for sure

        j_now = _n_eff(p) / SCAN_RATE
        gain_scan = j_now * (1.0 - (1.0 - scan_value) ** 2) / scan_actions if scan_value > 0 else 0.0
        verify, gain_verify = self._best_verification(p, j_now)
        if verify is not None and gain_verify >= max(gain_scan, 1.0):
            return verify

        cover = np.where(walk, mass.window[2], 0.0)  # mass a large scan would see from each tile
        teleport = self._teleport(obs, pos, p, cover)
        if teleport is not None:
            return teleport
        if verify is not None and gain_verify > gain_scan and gain_verify > 0.25:
            return verify
        return self._travel_or_scan(walk, pos, cover, scan_first, scan_value)

    # ------------------------------------------------------------ pieces
    def _urgency(self, p: np.ndarray) -> np.ndarray:
        """Weight tiles by how soon the free pirate reaches them."""
        know = self.know
        left = know.distance_from(know.pirate)
        turns = np.maximum(np.ceil(np.maximum(left, 0) / 2.0), 1.0)
        return p * (1.0 + URGENCY / turns)

    def _moves(self, walk, pos: Pos) -> list[tuple[Move, Pos]]:
        moves = self._move_cache.get(pos)
        if moves is None:
            moves = self._move_cache[pos] = legal_moves(walk, pos)
        return moves

    def _best_scan_plan(self, walk, pos: Pos, mass: _Mass, actions_left: int) -> tuple[float, Action, int]:
        """The plan for the rest of this turn that covers the most mass: (mass, first action, actions)."""
        here = (pos, 2)
        best = (mass.square(here), LargeScan(), 1)
        firsts: list[tuple[Action, Pos, tuple[Pos, int] | None]] = [(LargeScan(), pos, here)]
        for move, dst in self._moves(walk, pos):
            covered = (dst, 1) if move.small else None
            firsts.append((move, dst, covered))
            if covered and mass.square(covered) > best[0] + 1e-12:
                best = (mass.square(covered), move, 1)
        if actions_left < 2 or not self.features.plan_two:
            return best
        one = best[0]
        for first, mid, covered in firsts:
            seconds = [(mid, 2)] + [(dst, 1) for move, dst in self._moves(walk, mid) if move.small]
            for square in seconds:
                if covered is None:
                    value = mass.square(square)
                elif covered == square or (covered[0] == square[0] and covered[1] <= square[1]):
                    value = mass.square(square)  # the second square contains the first
                else:
                    value = mass.union(covered, square)
                if value > best[0] + 1e-12 and value > one * 1.5:  # two actions must beat one clearly
                    best = (value, first, 2)
        return best

    def _best_verification(self, p: np.ndarray, j_now: float) -> tuple[Action | None, float]:
        """The unverified hint whose answer saves the most expected actions, net of its own."""
        know, belief = self.know, self.belief
        best, best_gain = None, -1.0
        for number in know.unverified():
            s = know.masks[number - 1]
            base = belief.without(number, p)
            in_s, out_s = base * s, base * ~s
            t_in, t_out = float(in_s.sum()), float(out_s.sum())
            if t_in <= 0 or t_out <= 0:
                continue  # the answer is already known from the other facts
            m = float(p[s].sum())  # chance the hint is true, all evidence counted
            after = m * _n_eff(in_s / t_in) + (1 - m) * _n_eff(out_s / t_out)
            gain = j_now - after / SCAN_RATE
            if gain > best_gain:
                best, best_gain = Verify(number), gain
        return best, best_gain

    def _teleport(self, obs: Observation, pos: Pos, p: np.ndarray, cover: np.ndarray) -> Action | None:
        """Jump to the richest 5x5 window when it is far and worth the one teleport."""
        if obs.teleport_used:
            return None
        flat = int(np.argmax(cover))
        target = (flat // cover.shape[1], flat % cover.shape[1])
        far = abs(target[0] - pos[0]) + abs(target[1] - pos[1])
        if far <= TELEPORT_MIN_DISTANCE:
            return None
        concentrated = cover[target] >= 0.25 or _n_eff(p) <= 40
        if concentrated or self.know.pirate_free:
            return Teleport(target)
        return None

    def _travel_or_scan(self, walk, pos: Pos, cover: np.ndarray, scan_first: Action, scan_value: float) -> Action:
        """Scan here if it is half as good as the best spot in reach, else head for that spot."""
        score = cover / (1.0 + manhattan_from(walk.shape, pos) / 8.0)
        flat = int(np.argmax(score))
        target = (flat // walk.shape[1], flat % walk.shape[1])
        if scan_value > 0 and scan_value * 2 >= cover[target]:
            return scan_first
        moves = self._moves(walk, pos)
        if target != self._target:
            # Straight-line progress first; a walking-distance field only once that is
            # blocked, and then kept for this target so the agent cannot dither.
            def manhattan(t: Pos) -> int:
                return abs(t[0] - target[0]) + abs(t[1] - target[1])

            best = min(moves, key=lambda m: (manhattan(m[1]), 0 if m[0].small else 1), default=None)
            if best is not None and manhattan(best[1]) < manhattan(pos):
                return best[0]
            self._target, self._to_target = target, bfs_distance(walk, [target])
        dist = self._to_target
        here = int(dist[pos])
        reachable = [(int(dist[dst]), 0 if move.small else 1, move) for move, dst in moves if dist[dst] >= 0]
        if not reachable:
            return scan_first
        d, _, move = min(reachable, key=lambda x: x[:2])
        return move if d < here else scan_first
