"""The logical agent.

Knowledge keeps the tiles that can still hold the treasure (hint 1, verified
hints, empty scans, the prison, the pirate's rule-bound walk); Belief turns
them into probabilities. Each action the agent compares, in one currency —
expected actions still needed —

* verifying a hint: what splitting the candidates by its answer saves;
* the best scan plan for the rest of this turn (up to two actions, e.g. a
  large move then a large scan), found by exact union coverage of squares;
* travelling toward the richest spot within reach, teleporting when it is
  far and the candidates are concentrated, or when the race with the pirate
  is on.

Once the pirate is free each tile's mass is raised by how soon he would reach
it, so the tiles he is about to step on are searched first. All whole-map
work is a few vectorised passes over the candidates' bounding box, so the
cost per action shrinks as the candidates do.
"""

from __future__ import annotations

import dataclasses
from functools import cached_property

import numpy as np

from treasure_cli.rules.actions import Action, LargeScan, Move, Teleport, Verify
from treasure_cli.agents.belief import Belief
from treasure_cli.rules.events import TileSet
from treasure_cli.rules.observation import Note, Observation
from treasure_cli.rules.grid import Pos, bfs_distance, pack_bits
from treasure_cli.agents.knowledge import Knowledge
from treasure_cli.agents.mass_kernel import (
    PAD, best_cover, best_window, bounding_box, count_both, integral, legal_moves,
)

SCAN_RATE = 12.0            # tiles a sweep clears per action, roughly (prices a verification)
TELEPORT_MIN_DISTANCE = 10  # closer than this, walking is as good
URGENCY = 3.0               # extra weight for tiles the free pirate reaches next turn
TRAVEL_DISCOUNT = 8.0       # tiles of distance that halve a spot's appeal
_PAD = PAD                  # the largest scan radius
_FLOAT64 = np.dtype(np.float64)


@dataclasses.dataclass(frozen=True)
class Features:
    """Switches for measuring what each idea adds (`treasure bench`, docs/agent.md)."""

    soft_hints: bool = False  # measured: no gain, so off by default
    tie_break: bool = True
    plan_two: bool = False    # measured: no clear gain for 4x the cost of an action, so off
    race: bool = True


_DEFAULT_FEATURES = Features()  # frozen: every agent may share it
_LARGE_SCAN = LargeScan()  # the agent's default plan, a frozen value: made once

Square = tuple[Pos, int]  # centre and radius


def _box(p: np.ndarray) -> tuple[slice, slice]:
    """The rows and columns holding all of `p`'s weight (not all zero), grown by the largest scan radius."""
    top, bottom, left, right = bounding_box(p)  # type: ignore[misc]  # p has weight
    h, w = p.shape
    return (slice(max(top - _PAD, 0), min(bottom + _PAD, h)),
            slice(max(left - _PAD, 0), min(right + _PAD, w)))


class _Mass:
    """Mass of scan squares and rectangles in O(1), over the box that holds all the mass.

    One integral image of the box (padded by the largest scan radius) gives
    the mass of every 3x3 and 5x5 window and of any rectangle; outside the
    box (grown by the radius) every window is empty. A window's mass is read
    from four corners of the image where it is asked for; the richest large
    scan is searched over the whole box (`mass_kernel.best_cover`) only when
    something looks for it.
    """

    def __init__(self, p: np.ndarray, walk: np.ndarray, box: tuple[slice, slice]):
        """`p`: weights (bool, int or float, not all zero) inside `box` (see `_box`);
        masses come out as shares of their sum."""
        self.box = box
        self.r0, self.c0 = box[0].start, box[1].start
        self.h, self.w = box[0].stop - self.r0, box[1].stop - self.c0
        if p.dtype.kind != "b" and p.dtype != _FLOAT64:  # (a dtype against a type converts the type)
            p = p.astype(np.float64)  # (whole numbers: the same sums)
        # The integral image: a zero first row and column, then the box padded by _PAD zeros.
        self.cs = np.empty((self.h + 2 * _PAD + 1, self.w + 2 * _PAD + 1))
        integral(p, self.r0, self.c0, self.h, self.w, self.cs)
        self._walk = walk
        self._top: tuple[Pos, float] | None = None

    @cached_property
    def cover(self) -> np.ndarray:
        """What a large scan sees from each tile of the box (0 where one cannot stand);
        for reading (the agent's own searches go through `best_cover`)."""
        cs, h, w = self.cs, self.h, self.w
        lo, hi = 0, 2 * _PAD + 1  # the corners of the 5x5 windows
        # a - b - c + d, in that order (as `_window` adds up one window), in one buffer.
        window = np.subtract(cs[hi: hi + h, hi: hi + w], cs[lo: lo + h, hi: hi + w])
        window -= cs[hi: hi + h, lo: lo + w]
        window += cs[lo: lo + h, lo: lo + w]
        return np.where(self._walk[self.box], window, 0.0)

    @property
    def cover_max(self) -> float:
        """The most mass one large scan sees."""
        return self.richest((0, 0), None)[1]

    def _window(self, r: int, c: int, k: int) -> float:
        """Mass of the (2k+1)x(2k+1) window centred on box tile (r, c)."""
        cs = self.cs
        lo, hi = _PAD - k, _PAD + k + 1
        return cs.item(r + hi, c + hi) - cs.item(r + lo, c + hi) - cs.item(r + hi, c + lo) + cs.item(r + lo, c + lo)  # type: ignore[no-any-return]

    def rect(self, r0: int, r1: int, c0: int, c1: int) -> float:
        """Mass of map rows r0..r1, cols c0..c1 inclusive."""
        r0, r1 = max(r0 - self.r0, 0), min(r1 - self.r0, self.h - 1)
        c0, c1 = max(c0 - self.c0, 0), min(c1 - self.c0, self.w - 1)
        if r0 > r1 or c0 > c1:
            return 0.0
        cs, a, b = self.cs, _PAD, _PAD + 1
        return float(cs[r1 + b, c1 + b] - cs[r0 + a, c1 + b] - cs[r1 + b, c0 + a] + cs[r0 + a, c0 + a])

    def best_small_scan(self, small: list[tuple[Move, int, int]], value: float,
                        first: Action) -> tuple[float, Action]:
        """The first of the `small` moves (move, row, col) whose 3x3 scan sees more than
        `value` + 1e-12 and more than each earlier one did, and what it sees; else
        (`value`, `first`)."""
        i, value = best_window(self.cs, self.r0, self.c0, 1, small, value)
        return value, (small[i][0] if i >= 0 else first)

    def square(self, sq: Square) -> float:
        (r, c), k = sq
        r, c = r - self.r0, c - self.c0
        if 0 <= r < self.h and 0 <= c < self.w:
            return self._window(r, c, k)
        return 0.0

    def union(self, a: Square, b: Square) -> float:
        (ra, ca), ka = a
        (rb, cb), kb = b
        top, bottom = max(ra - ka, rb - kb), min(ra + ka, rb + kb)
        left, right = max(ca - ka, cb - kb), min(ca + ka, cb + kb)
        both = self.rect(top, bottom, left, right) if top <= bottom and left <= right else 0.0
        return self.square(a) + self.square(b) - both

    def richest(self, pos: Pos, discount: float | None) -> tuple[Pos, float]:
        """The first tile (row-major) whose large scan sees the most mass, divided by
        1 + (distance from `pos`, a tile of the map) / discount if a discount is given;
        that tile and the mass it sees."""
        if not discount and self._top is not None:
            return self._top
        r, c, seen = best_cover(self.cs, self._walk, self.r0, self.c0, pos[0], pos[1], discount or 0.0)
        if not discount:
            self._top = (r, c), seen
        return (r, c), seen


class _Moves:
    """The legal moves from one tile (N, E, S, W; 1 to 4 steps), in the forms the agent's loops read."""

    __slots__ = ("all", "small")

    def __init__(self, walk: np.ndarray, pos: Pos):
        self.all: list[tuple[Move, Pos]] = legal_moves(walk, pos)  # (move, destination)
        # (move.steps <= 2 is Move.small without a property call per move)
        self.small = [(move, r, c) for move, (r, c) in self.all if move.steps <= 2]


def _nearest_step(moves: _Moves, target: Pos) -> tuple[Move | None, int]:
    """The move whose destination is nearest `target` (Manhattan; a small move on a tie,
    then the first in move order) and that distance; (None, 0) if there is no move."""
    tr, tc = target
    best, best_key = None, 0
    for move, (r, c) in moves.all:
        # Orders as (distance, 0 for a small move and 1 for a large one): of two moves that
        # bring the agent as near, the small one (it scans on the way).
        key = 2 * (abs(r - tr) + abs(c - tc)) + (move.steps > 2)
        if best is None or key < best_key:  # strict: the first of equals stays
            best, best_key = move, key
    return best, best_key // 2


def _after(pos: Pos, move: Move) -> Pos:
    """Where `move` from `pos` lands."""
    dr, dc = move.direction.value
    return (pos[0] + dr * move.steps, pos[1] + dc * move.steps)


def _n_eff(p: np.ndarray) -> float:
    """Effective number of candidate tiles: 1 / Σp² (n for a uniform spread)."""
    s = float((p * p).sum())
    return 1.0 / s if s > 0 else 0.0


class LogicAgent:
    def __init__(self, features: Features | None = None, **switches: bool):
        """`switches` are Features fields, e.g. LogicAgent(race=False)."""
        features = features or _DEFAULT_FEATURES
        # (dataclasses.replace costs more than the rest of this __init__: only when asked)
        self.features = dataclasses.replace(features, **switches) if switches else features
        # Made by the first act(), which every other method follows (None only before it).
        self.know: Knowledge = None  # type: ignore[assignment]
        self.belief: Belief = None  # type: ignore[assignment]
        self._target: Pos | None = None
        self._to_target: np.ndarray = None  # type: ignore[assignment]  # set with _target_field
        self._target_field: Pos | None = None  # the target `_to_target` was computed for
        self._field_partial = False  # that field stops a few steps past where the agent stood
        self._move_cache: dict[Pos, _Moves] = {}
        self._walk: np.ndarray = None  # type: ignore[assignment]  # set with self.know
        # What depends on the candidates alone, kept while Knowledge keeps the same array
        # (it makes a new one whenever they change): often a move's scan finds none.
        self._cand: np.ndarray | None = None
        self._count = 0
        self._cand_box: tuple[slice, slice] | None = None
        self._cand_mass: _Mass | None = None
        self._split_counts: dict[int, int] = {}  # hint number -> candidates in its set
        self._chose: Action | None = None  # the last action, and why (explain() words them)
        self._why: tuple[str, float, float] | None = None
        self._urgency_out: np.ndarray | None = None  # _urgency's output, reused
        # Tiles left by a walking-field step since the count of candidates last changed:
        # a straight-line step back to one of them undoes that walk (see _travel_or_scan).
        self._walked_from: set[Pos] = set()
        self._walked_count = -1
        self._noted: tuple[np.ndarray, TileSet] | None = None  # explain()'s tiles, packed, and their array

    # ------------------------------------------------------------------ act
    def act(self, obs: Observation) -> Action:
        action = self._chose = self._act(obs)
        return action

    def _act(self, obs: Observation) -> Action:
        self._why = None  # what explain() words, if asked: (reason, verify's gain, scan's gain)
        self._observe(obs)
        return self._rules(obs)

    def _observe(self, obs: Observation) -> None:
        """Fold the observation's news into the knowledge (once an action), and renew what
        depends on the candidates if they changed."""
        if self.know is None:
            self.know = Knowledge(obs.island, tie_break=self.features.tie_break)
            self.belief = Belief(self.know, obs.truth_rate, soft_hints=self.features.soft_hints)
            self._walk = obs.island.walkable  # the same every action (an island property is a call)
        know = self.know
        know.observe(obs)
        if know.candidates is not self._cand:
            self._cand = know.candidates
            self._count = int(np.count_nonzero(self._cand))
            self._cand_box = self._cand_mass = None
            self._split_counts.clear()

    def _rules(self, obs: Observation, verify_ok: bool = True) -> Action:
        """The action by logic's fixed order of rules, the knowledge up to date; with
        `verify_ok` False never a verification (the hints are still counted and settled)."""
        know = self.know
        n = self._count
        if n == 0:  # cannot happen with sound knowledge; stay legal anyway
            self._why = ("no candidate left", 0.0, 0.0)
            return LargeScan()
        if self.belief.soft_hints:
            p = self.belief.weights()
            box = _box(p)
            idx = np.flatnonzero(p)
            pc = p.ravel()[idx]
            n_eff = _n_eff(pc)
            verify, gain_verify = self._best_verification(idx, pc, n_eff / SCAN_RATE)
        else:  # with hard facts only every candidate weighs the same: work on the mask itself
            p = know.candidates  # (self._cand, as _observe left it)
            if self._cand_box is None:
                self._cand_box = _box(p)
            box = self._cand_box
            n_eff = float(n)
            verify, gain_verify = self._best_split(box, n)
        if not verify_ok:
            verify, gain_verify = None, 0.0
        j_now = n_eff / SCAN_RATE
        racing = self.features.race and know.pirate_free
        if verify is not None and not racing and not self.belief.soft_hints:
            # A scan sees at most 25 of the n equally likely tiles: if even that is
            # worth less than the verification, skip pricing the scans.
            c_max = min(1.0, 25.0 / n)
            if gain_verify >= max(j_now * (1.0 - (1.0 - c_max) ** 2), 1.0):
                self._why = ("no scan can beat it", gain_verify, 0.0)
                return verify
        walk = self._walk
        pos = obs.position
        if n != self._walked_count:
            self._walked_from.clear()
            self._walked_count = n
        if racing:
            mass = _Mass(self._urgency(p, box), walk, box)
        elif p is self._cand:
            if self._cand_mass is None:
                self._cand_mass = _Mass(p, walk, box)
            mass = self._cand_mass
        else:
            mass = _Mass(p, walk, box)

        scan_value, scan_first, scan_actions = self._best_scan_plan(walk, pos, mass, obs.actions_left)
        if scan_value >= 1.0 - 1e-9:
            self._why = ("this plan finds the treasure for sure", gain_verify, 0.0)
            return scan_first  # this plan finds the treasure for sure
        gain_scan = j_now * (1.0 - (1.0 - scan_value) ** 2) / scan_actions if scan_value > 0 else 0.0
        if verify is not None and gain_verify >= max(gain_scan, 1.0):
            self._why = ("", gain_verify, gain_scan)
            return verify
        teleport = self._teleport(obs, pos, n_eff, mass, scan_value)
        self._why = ("", gain_verify if verify is not None else 0.0, gain_scan)
        if teleport is not None:
            return teleport
        if verify is not None and gain_verify > gain_scan and gain_verify > 0.25:
            return verify
        return self._travel_or_scan(walk, pos, mass, scan_first, scan_value)

    def explain(self) -> Note | None:
        """Why the last action: the candidates, and what the chosen option and the best other
        kind were expected to save (in actions). Worded only when notes are recorded.

        (One f-string a case: it runs once an action, right after the action's
        own work, where every Python step costs several times what it costs warm.)"""
        if self._why is None or self.know is None:
            return None
        reason, gain_verify, gain_scan = self._why
        n = self._count
        chose = self._chose
        if type(chose) is Verify:
            inside = self._split_counts.get(chose.number)
            if inside is not None:
                text = (f"{n} candidates; verify {chose.number}, splits them {inside}/{n - inside}, "
                        f"saves {gain_verify:.1f} actions; ")
            else:
                text = f"{n} candidates; verify {chose.number}, saves {gain_verify:.1f} actions; "
            text += reason if reason else f"best scan saves {gain_scan:.1f}"
            return Note(text, self._candidate_tiles())
        if reason:
            text = f"{n} candidates; {_describe(chose)}: {reason}"
        else:
            other = f"best verification saves {gain_verify:.1f}" if gain_verify else "no verification helps"
            if type(chose) is Teleport:
                text = (f"{n} candidates; teleport to ({chose.target[0]}, {chose.target[1]}): where a scan sees "
                        f"the most candidates; a scan here saves {gain_scan:.1f}; {other}")
            elif type(chose) is Move:
                text = (f"{n} candidates; move {chose.direction._name_} {chose.steps}: toward more candidates; "
                        f"a scan here saves {gain_scan:.1f}; {other}" if chose.steps > 2 else
                        f"{n} candidates; move {chose.direction._name_} {chose.steps} and scan 3x3: "
                        f"saves {gain_scan:.1f} actions; {other}")
            else:
                text = f"{n} candidates; {_describe(chose)}: saves {gain_scan:.1f} actions; {other}"
        return Note(text, self._candidate_tiles())

    def _candidate_tiles(self) -> TileSet:
        """The candidates packed for a note, once per candidate array (most actions change none)."""
        cand = self.know.candidates
        noted = self._noted
        if noted is None or noted[0] is not cand:
            noted = self._noted = (cand, TileSet(pack_bits(cand)))  # (a bool array: TileSet.of's checks not needed)
        return noted[1]

    # ------------------------------------------------------------ pieces
    def _urgency(self, p: np.ndarray, box: tuple[slice, slice]) -> np.ndarray:
        """Weight tiles by how soon the free pirate reaches them: inside `box`, which holds all
        of `p`'s weight. Outside the box the array holds whatever an earlier call left:
        `_Mass`, its one reader, reads the box only. (A new zeroed map per call was most of
        this method's cost on a snake, whose box is the whole island for thousands of turns.)"""
        know = self.know
        left = know.pirate_distance(box)  # (exact where p weighs: on candidates)
        turns = np.maximum(np.ceil(np.maximum(left, 0) / 2.0), 1.0)
        out = self._urgency_out
        if out is None or out.shape != p.shape:
            out = self._urgency_out = np.empty(p.shape)
        np.multiply(p[box], 1.0 + URGENCY / turns, out=out[box])
        return out

    def _moves(self, walk: np.ndarray, pos: Pos) -> _Moves:
        moves = self._move_cache.get(pos)
        if moves is None:
            moves = self._move_cache[pos] = _Moves(walk, pos)
        return moves

    def _best_scan_plan(self, walk: np.ndarray, pos: Pos, mass: _Mass, actions_left: int) -> tuple[float, Action, int]:
        """The plan for the rest of this turn that covers the most mass: (mass, first action, actions)."""
        here = (pos, 2)
        best_value, best_first = mass.best_small_scan(self._moves(walk, pos).small, mass.square(here), _LARGE_SCAN)
        best = (best_value, best_first, 1)
        if actions_left < 2 or not self.features.plan_two:
            return best
        firsts: list[tuple[Action, Pos, Square | None]] = [(LargeScan(), pos, here)]
        firsts += [(move, dst, (dst, 1) if move.small else None) for move, dst in self._moves(walk, pos).all]
        one = best[0]
        for first, mid, covered in firsts:
            seconds = [(mid, 2)] + [((r, c), 1) for _, r, c in self._moves(walk, mid).small]
            for square in seconds:
                if covered is None or (covered[0] == square[0] and covered[1] <= square[1]):
                    value = mass.square(square)  # nothing scanned first, or the second square holds the first
                else:
                    value = mass.union(covered, square)
                if value > best[0] + 1e-12 and value > one * 1.5:  # two actions must beat one clearly
                    best = (value, first, 2)
        return best

    def _best_verification(self, idx: np.ndarray, pc: np.ndarray, j_now: float) -> tuple[Action | None, float]:
        """The unverified hint whose answer saves the most expected actions, net of its own.

        Works on the candidates only (`idx`, their weights `pc`).
        """
        know, belief = self.know, self.belief
        best, best_gain = None, -1.0
        for number in know.open_hints():  # (a settled hint's answer follows from the candidates)
            mask = know.open_mask(number)
            s = mask.ravel()[idx]  # type: ignore[union-attr]  # an open hint's mask is kept
            base = belief.without(number, pc, idx)
            in_s, out_s = base * s, base * ~s
            t_in, t_out = float(in_s.sum()), float(out_s.sum())
            if t_in <= 0 or t_out <= 0:
                continue  # the answer is already known from the other facts
            m = float(pc[s].sum())  # chance the hint is true, all evidence counted
            after = m * _n_eff(in_s / t_in) + (1 - m) * _n_eff(out_s / t_out)
            gain = j_now - after / SCAN_RATE
            if gain > best_gain:
                best, best_gain = Verify(number), gain
        return best, best_gain

    def _best_split(self, box: tuple[slice, slice], n: int) -> tuple[Action | None, float]:
        """`_best_verification` for equal weights: the effective counts are plain counts."""
        know = self.know
        cand, (rows, cols) = know.candidates, box
        counts = self._split_counts  # for these candidates
        j_now = n / SCAN_RATE
        best, best_gain = None, -1.0  # the hint number: its Verify is made once, at the end
        for number in know.open_hints():  # (a settled hint's answer follows from the candidates)
            n_in = counts.get(number)
            if n_in is None:
                mask = know.open_mask(number)
                n_in = count_both(cand, mask, rows.start, rows.stop, cols.start, cols.stop)
                if n_in in (0, n):
                    know.settle(number)
                    continue
                counts[number] = n_in
            gain = j_now - (n_in * n_in + (n - n_in) ** 2) / n / SCAN_RATE
            if gain > best_gain:
                best, best_gain = number, gain
        return (None if best is None else Verify(best)), best_gain

    def _teleport(self, obs: Observation, pos: Pos, n_eff: float, mass: _Mass,
                  scan_value: float) -> Action | None:
        """Jump to the richest 5x5 window when it is far and worth the one teleport.

        In the race with a free pirate "far" is anything a small move cannot
        reach, once that window holds clearly more than a scan here would see.
        """
        if obs.teleport_used:
            return None
        target, seen = mass.richest(pos, None)
        far = abs(target[0] - pos[0]) + abs(target[1] - pos[1])
        if self.know.pirate_free and self.features.race:
            if not (far > 2 and seen > 1.5 * scan_value):
                return None
            if self._in_walking_reach(obs, target):
                return Teleport(target)
            # A maze or corridor where the jump could strand the agent: keep the teleport
            # until the candidates are concentrated, as when there is no race (below).
        if far <= TELEPORT_MIN_DISTANCE:
            return None
        if seen >= 0.25 or n_eff <= 40:
            return Teleport(target)
        return None

    def _in_walking_reach(self, obs: Observation, target: Pos) -> bool:
        """Whether every candidate is a walk from `target` the agent could make in half the
        turns left, at a large move's 4 tiles an action: only then is the one teleport spent
        on the race. On an open island that always holds (a walk across is ~W+H tiles, the
        limit 4·(W+H) turns); in a maze or along a corridor a jump to the pirate's side may
        leave the far candidates out of reach for good (issue 23)."""
        budget = 4 * (obs.max_turns - obs.turn)  # tiles: half the turns left, at 8 a turn
        know = self.know
        # Cached: the richest window stays put for many turns while the candidates shift
        # (4 targets in a 513x513 snake's 4,000 calls), and the box holds every candidate.
        box = self._cand_box if self._cand_box is not None else np.s_[:, :]
        field = know.distance_from(target)[box]
        cand = know.candidates[box]
        if ((field < 0) & cand).any():
            return True  # candidates off the target's piece: walking tells nothing about them
        return int(field[cand].max()) <= budget

    def _travel_or_scan(self, walk: np.ndarray, pos: Pos, mass: _Mass, scan_first: Action, scan_value: float) -> Action:
        """Scan here if it is half as good as the best spot in reach, else head for that spot."""
        if scan_value > 0 and scan_value * 2 >= mass.cover_max:
            return scan_first  # no spot anywhere is twice as good as scanning here
        target, target_mass = mass.richest(pos, TRAVEL_DISCOUNT)
        if scan_value > 0 and scan_value * 2 >= target_mass:
            return scan_first
        moves = self._moves(walk, pos)
        if target != self._target:
            # Straight-line progress first; a walking-distance field only once that is
            # blocked, and then kept for this target so the agent cannot dither. Nor
            # back to a tile it left along such a field with the same candidates: on a
            # corridor two windows near the far candidates take turns as the richest,
            # each step toward one undoing the walk toward the other (a 97x97 snake's
            # game was lost so, back and forth for 680 turns).
            best, d = _nearest_step(moves, target)
            if (best is not None and d < abs(pos[0] - target[0]) + abs(pos[1] - target[1])
                    and _after(pos, best) not in self._walked_from):
                return best
            self._target = target
        if self._target_field != target or (self._field_partial and self._to_target[pos] < 0):
            # Search out from the target just past the agent: the moves from here need no more.
            # (If the search never met the agent it ran to the end: the target is out of reach.)
            self._to_target = bfs_distance(walk, [target], until=pos, extra=4)
            self._target_field = target
            self._field_partial = bool(self._to_target[pos] >= 0)
        dist = self._to_target
        here = int(dist[pos])
        reachable = [(int(dist[dst]), 0 if move.small else 1, move) for move, dst in moves.all if dist[dst] >= 0]
        if not reachable:
            return scan_first
        d, _, move = min(reachable, key=lambda x: x[:2])
        if d >= here:
            return scan_first
        self._walked_from.add(pos)
        return move


def _describe(action: Action | None) -> str:
    """An action in a few words, for a note. (By exact type, as logic makes them; `_name_`,
    not the enum's `name` property, which costs a Python call.)"""
    if type(action) is Move:
        return f"move {action.direction._name_} {action.steps}" + (" and scan 3x3" if action.steps <= 2 else "")
    if type(action) is LargeScan:
        return "scan 5x5"
    if type(action) is Verify:
        return f"verify {action.number}"
    if type(action) is Teleport:
        return f"teleport to ({action.target[0]}, {action.target[1]})"
    return "?"
