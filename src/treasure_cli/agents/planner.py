"""The planning agent (`logic`, issue 44): its search chosen by the turns each plan is expected to leave.

`LogicAgent` (now `logic-greedy`) picks its action by a fixed order of rules.
This agent keeps its knowledge (the candidate tiles) and asks the same
question first: is a verification, or the teleport, worth more than any scan?
(`LogicAgent._rules`: the value of a hint's answer in actions of search saved,
its teleport rules, and its race against the free pirate.) When the answer is
a search action, the agent plans the turn instead of following the rules'
walk: every plan of the turn's remaining actions (a large scan, each legal
move, then the best second scan from where it lands; or the teleport to the
richest window and its scans there) is scored by the turns it is expected to
leave, in the game's own currency:

* the belief: the candidates weighted by what the unverified hints say about
  how the pirate draws (`belief.py`; verified hints, scans, the prison and the
  pirate's walk are hard facts), and once the pirate is free by how soon he
  reaches each tile (`LogicAgent._urgency`);
* a plan whose scans cover a share c of that weight ends the game this turn
  with chance c; else n·(1 − c) candidates are left;
* what follows the turn is priced by `future_turns(n)`: the turns a game with n
  candidates still takes, measured on played games (a new hint comes each
  turn, so about one turn less each time n halves), plus, once the teleport
  is spent, what it was worth (`TELEPORT_VALUE`) and the walk to the
  candidates that a turn's spare action cannot cover (`_walk_turns`).

So the agent scans here when that is worth more than walking, walks toward
candidates only as far as the walk saves turns, and keeps its teleport while
a jump would leave far candidates to walk to.
"""

from __future__ import annotations

import math

import numpy as np

from treasure_cli.agents.belief import Belief
from treasure_cli.agents.logic import _LARGE_SCAN, Features, LogicAgent, _box, _describe, _Mass
from treasure_cli.rules.actions import Action, LargeScan, Teleport, Verify
from treasure_cli.rules.grid import Pos
from treasure_cli.rules.observation import Note, Observation

# Turns a game still takes with n equally likely candidates and the teleport kept, at n = 2^0,
# 2^1, ...: the means over logic-greedy's won games on 32x32 and 64x64 islands, mazes left out
# (seed 7, 900 games), smoothed. One more turn for each doubling past the table.
_FUTURE = (1.0, 1.15, 1.3, 1.7, 2.1, 2.6, 3.2, 4.0, 4.8, 5.7, 6.6, 7.6, 8.6, 9.6)
TELEPORT_VALUE = 0.8   # turns the teleport kept for later is worth (what spending it costs)
WALK_PER_TURN = 8.0    # tiles two large moves walk in a turn
SPARE_WALK = 4.0       # tiles a turn's spare action walks while hints are verified


def future_turns(n: float) -> float:
    """Turns still to play from a turn's start with `n` equally likely candidates, the teleport kept."""
    if n <= 1.0:
        return 1.0
    x = math.log2(n)
    last = len(_FUTURE) - 1
    if x >= last:
        return _FUTURE[last] + (x - last)
    i = int(x)
    return _FUTURE[i] + (x - i) * (_FUTURE[i + 1] - _FUTURE[i])


class PlanningAgent(LogicAgent):
    """`logic`: LogicAgent's knowledge and value of information; its search planned by expected turns."""

    def __init__(self, features: Features | None = None, **switches: bool):
        super().__init__(features, **switches)
        self._weighed: list[tuple[str, float]] = []  # (plan's first action, expected turns) for explain()
        self._planned = False                       # the last action was the planner's (else the rules')
        self._soft: Belief | None = None             # the weights that steer the search
        self._weights: np.ndarray | None = None      # their values over the candidates' box
        self._weights_key: tuple[np.ndarray, int, int] | None = None  # candidates, hints, verified
        self._weights_mass: _Mass | None = None      # their masses, kept with them
        self._dist_cand: np.ndarray | None = None    # the candidates _dist_target was found for
        self._dist_target: Pos | None = None         # the window the walking term measures to
        self._spread = 0.0                           # mean walk from that window to the candidates

    # ------------------------------------------------------------------ act
    def _act(self, obs: Observation) -> Action:
        self._why = None
        self._planned = False
        self._observe(obs)
        n = self._count
        if n == 0:  # cannot happen with sound knowledge; stay legal anyway
            self._why = ("no candidate left", 0.0, 0.0)
            return LargeScan()
        # The rules first: a verification, or the teleport, when they are worth more than any scan.
        ruled = self._rules(obs)
        if type(ruled) is Verify or type(ruled) is Teleport:
            return ruled
        if self._why is not None and self._why[0] == "this plan finds the treasure for sure":
            return ruled
        self._why = None
        self._planned = True
        if self._cand is not self._dist_cand:
            self._dist_cand, self._dist_target = self._cand, None
        cand = self.know.candidates  # (self._cand, as _observe left it)
        if self._cand_box is None:
            self._cand_box = _box(cand)
        box = self._cand_box
        walk, pos = self._walk, obs.position
        if self._soft is None:
            self._soft = Belief(self.know, obs.truth_rate, soft_hints=True)
        key = (cand, len(self.know.hints), len(self.know.verified))
        weights = self._weights
        if weights is None:
            weights = self._weights = np.empty(cand.shape)
        if self._weights_key is None or self._weights_key[0] is not cand or self._weights_key[1:] != key[1:]:
            self._soft.weights_in(box, weights)  # (only the box is read, by _Mass and _urgency)
            self._weights_key = key
            self._weights_mass = None
        if self.features.race and self.know.pirate_free:
            mass = _Mass(self._urgency(weights, box), walk, box)
        else:
            if self._weights_mass is None:
                self._weights_mass = _Mass(weights, walk, box)
            mass = self._weights_mass

        tp_free = not obs.teleport_used
        options: list[tuple[float, str, Action, int]] = []  # (expected turns after this one, label, action, order)
        for value, label, action in self._scan_options(walk, pos, mass, n, tp_free, obs.actions_left >= 2):
            options.append((value, label, action, 0))
        if tp_free:
            target, _ = mass.richest(pos, None)
            if target != pos:
                options.append((self._teleport_value(walk, target, mass, n, obs.actions_left >= 2),
                                f"teleport to ({target[0]}, {target[1]})", Teleport(target), 1))
        options.sort(key=lambda o: (o[0], o[3]))  # stable: the first of equals in move order
        best_value, _, best, _ = options[0]
        self._weighed = [(label, 1.0 + value) for value, label, _, _ in options[:4]]
        self._why = ("", 1.0 + best_value, 0.0)
        return best

    # ------------------------------------------------------------ values
    def _future(self, n_left: float, tp_free: bool, pos: Pos) -> float:
        """Turns after this one with `n_left` candidates, the agent at `pos`: the candidates'
        own turns, and once the teleport is spent, its worth and the walk no spare action covers."""
        f = future_turns(n_left)
        if tp_free:
            return f
        return f + TELEPORT_VALUE + self._walk_turns(pos, f)

    def _walk_turns(self, pos: Pos, f: float) -> float:
        """Turns of walking from `pos` to the candidates beyond what `f` turns' spare actions walk:
        the walk to the candidates' richest window, and on from there (their mean walk from it)."""
        target = self._walk_goal()
        d = float(self.know.distance_from(target)[pos])
        if d < 0:  # another piece of land: only the teleport reaches it (spent), so very far
            d = 2.0 * float(abs(pos[0] - target[0]) + abs(pos[1] - target[1]))
        d += self._spread
        return max(0.0, d - SPARE_WALK * (f - 1.0)) / WALK_PER_TURN

    def _walk_goal(self) -> Pos:
        """The richest 5x5 window of the candidates, and (kept with them) the mean walk from it to them."""
        if self._dist_target is None:
            cand, box = self._cand, self._cand_box
            assert cand is not None and box is not None
            if self._cand_mass is None:
                self._cand_mass = _Mass(cand, self._walk, box)
            target, _ = self._cand_mass.richest((0, 0), None)
            reach = self.know.distance_from(target)[box][cand[box]]
            reach = reach[reach >= 0]
            self._spread = float(reach.mean()) if reach.size else 0.0
            self._dist_target = target
        return self._dist_target

    def _scan_options(self, walk: np.ndarray, pos: Pos, mass: _Mass, n: int, tp_free: bool,
                      two: bool) -> list[tuple[float, str, Action]]:
        """Every action from here that scans or moves, with the expected turns it leaves after
        this one: with two actions left, followed by the best second scan from where it lands."""
        moves = self._moves(walk, pos)
        firsts: list[tuple[Action, Pos, tuple[Pos, int] | None]] = [(_LARGE_SCAN, pos, (pos, 2))]
        firsts += [(move, dst, (dst, 1) if move.steps <= 2 else None) for move, dst in moves.all]
        out = []
        for first, mid, covered in firsts:
            c1 = mass.square(covered) if covered is not None else 0.0
            value = (1 - c1) * self._future(n * (1 - c1), tp_free, mid)
            if two:
                seconds = [(mid, 2)] + [((r, c), 1) for _, r, c in self._moves(walk, mid).small]
                for square in seconds:
                    if covered is None or (covered[0] == square[0] and covered[1] <= square[1]):
                        c2 = mass.square(square)  # nothing scanned first, or the second square holds the first
                    else:
                        c2 = mass.union(covered, square)
                    if c2 > c1:
                        value = min(value, (1 - c2) * self._future(n * (1 - c2), tp_free, square[0]))
            out.append((value, _describe(first), first))
        return out

    def _teleport_value(self, walk: np.ndarray, target: Pos, mass: _Mass, n: int, two: bool) -> float:
        """Expected turns after this one if the agent teleports to `target` now and scans there
        (a large scan, and with two actions left the best small move's scan after it)."""
        c1 = mass.square((target, 2))
        value = (1 - c1) * self._future(n * (1 - c1), False, target)
        if two:
            for _, r, c in self._moves(walk, target).small:
                c2 = mass.union((target, 2), ((r, c), 1))
                value = min(value, (1 - c2) * self._future(n * (1 - c2), False, (r, c)))
        return value

    # ------------------------------------------------------------ notes
    def explain(self) -> Note | None:
        """The rules' note when they chose (a verification, the teleport, a sure scan); else the
        candidates, the plan's first action and the expected turns (this one counted) of the
        plans weighed, the best first."""
        if not self._planned:
            return super().explain()
        if self._why is None or self.know is None:
            return None
        weighed = ", ".join(f"{label} {turns:.2f}" for label, turns in self._weighed)
        text = f"{self._count} candidates; {_describe(self._chose)}; expected turns: {weighed}"
        return Note(text, self._candidate_tiles())
