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

from treasure_cli.agents.belief import hint_log_factors
from treasure_cli.agents.logic import _LARGE_SCAN, Features, LogicAgent, _box, _describe, _Mass
from treasure_cli.agents.mass_kernel import count_both
from treasure_cli.rules.actions import Action, LargeScan, Teleport, Verify
from treasure_cli.rules.grid import Pos, bfs_distance
from treasure_cli.rules.observation import Note, Observation

# Turns a game still takes with n equally likely candidates and the teleport kept, at n = 2^0,
# 2^1, ...: the means over logic-greedy's won games on 32x32 and 64x64 islands, mazes left out
# (seed 7, 900 games), smoothed. One more turn for each doubling past the table.
_FUTURE = (1.0, 1.15, 1.3, 1.7, 2.1, 2.6, 3.2, 4.0, 4.8, 5.7, 6.6, 7.6, 8.6, 9.6)
TELEPORT_VALUE = 0.8   # turns the teleport kept for later is worth (what spending it costs)
WALK_PER_TURN = 8.0    # tiles two large moves walk in a turn
PLAN_MAX_CANDIDATES = 1 << 14  # more candidates than this (only on maps over 128x128): the rules' search
FIELD_AREA = 1 << 18   # tiles a walking search may cover (~12 ms at most)
FIELD_MARGIN = 16      # tiles around the candidates' box that a search on a big map may use
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
        self._log: np.ndarray | None = None          # log-weights of the tiles by the hints heard (map-sized)
        self._heard = 0                              # hints folded into _log
        self._weights: np.ndarray | None = None      # the search's weights, over the candidates' box
        self._weights_key: tuple[np.ndarray, int] | None = None  # (candidates, hints heard) they are for
        self._weights_mass: _Mass | None = None      # their masses, kept with them
        self._plain: np.ndarray | None = None        # plain land (walkable, no prison): where hints are drawn
        self._plain_count = 0
        self._dist_cand: np.ndarray | None = None    # the candidates _dist_target was found for
        self._dist_target: Pos | None = None         # the window the walking term measures to
        self._spread = 0.0                           # mean walk from that window to the candidates
        self._field: np.ndarray | None = None        # walking distances from it (a part of the map, or none)
        self._field_origin: Pos = (0, 0)             # the map tile of the field's first row and column

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
        if n > PLAN_MAX_CANDIDATES:
            return ruled  # a scan finds it with a chance under 1/600: where to look hardly matters yet
        self._why = None
        self._planned = True
        if self._cand is not self._dist_cand:
            self._dist_cand, self._dist_target = self._cand, None
        cand = self.know.candidates  # (self._cand, as _observe left it)
        if self._cand_box is None:
            self._cand_box = _box(cand)
        box = self._cand_box
        walk, pos = self._walk, obs.position
        weights = self._weights
        if weights is None or self._log is None:
            weights = self._weights = np.empty(cand.shape)
            self._log = np.zeros(cand.shape)
        key = (cand, len(self.know.hints))
        if self._weights_key is None or self._weights_key[0] is not cand or self._weights_key[1] != key[1]:
            self._hear(obs.truth_rate)
            self._soft_weights(box, weights)  # (only the box is read, by _Mass and _urgency)
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

    # ------------------------------------------------------------ belief
    def _hear(self, truth_rate: float) -> None:
        """Fold each new hint, heard but not verified, into the log-weights: how likely the
        pirate was to say it if the treasure lies in its set, and if not (`belief.py`).

        A hint verified (or settled) later is never taken out: its factor is then the same on
        every candidate left, so the weights among them do not change, and a map-sized factor
        per hint need not be kept (at 1024x1024 that was 8 MB a hint)."""
        know, log = self.know, self._log
        assert log is not None
        if not 0.0 < truth_rate < 1.0:
            self._heard = len(know.hints)  # every hint's truth is certain: nothing soft to say
            return
        island = know.island
        plain = island.walkable & ~island.prison if self._plain is None else self._plain
        self._plain = plain
        plain_count = max(1, self._plain_count or int(np.count_nonzero(plain)))
        self._plain_count = plain_count
        h, w = log.shape
        while self._heard < len(know.hints):
            self._heard += 1
            number = self._heard
            mask = know.open_mask(number)  # None once verified or settled: nothing to weigh
            if mask is None or number in know.verified:
                continue
            q = count_both(mask, plain, 0, h, 0, w) / plain_count
            inside, outside = hint_log_factors(know.hints[number - 1].kind, q, truth_rate)  # type: ignore[arg-type]
            log += outside
            log[mask] += inside - outside

    def _soft_weights(self, box: tuple[slice, slice], out: np.ndarray) -> None:
        """The candidates' weights (the largest 1) into `out` over `box`, which holds them all."""
        cand = self.know.candidates[box]
        assert self._log is not None
        log = self._log[box]
        top = float(log[cand].max()) if cand.any() else 0.0
        np.exp(np.minimum(log - top, 0.0), out=out[box])
        out[box] *= cand

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
        far = float(abs(pos[0] - target[0]) + abs(pos[1] - target[1]))
        field, (r0, c0) = self._field, self._field_origin
        d = -1.0
        if field is not None and 0 <= pos[0] - r0 < field.shape[0] and 0 <= pos[1] - c0 < field.shape[1]:
            d = float(field[pos[0] - r0, pos[1] - c0])
            if d < 0:  # another piece of land: only the teleport reaches it (spent), so very far
                d = 2.0 * far
        if d < 0:  # no walking field here (see _walk_goal): the straight line
            d = far
        d += self._spread
        return max(0.0, d - SPARE_WALK * (f - 1.0)) / WALK_PER_TURN

    def _walk_goal(self) -> Pos:
        """The richest 5x5 window of the candidates, and (kept with them) the walking distances
        from it and their mean over the candidates.

        The walk is searched over the whole map up to FIELD_AREA tiles (every bench size),
        on bigger maps over the candidates' box grown by FIELD_MARGIN while that is small
        enough, else measured in straight lines: a whole search of a 1024x1024 map is
        ~50 ms, and while the candidates are spread that wide the walk is far below the
        turns the hints still take."""
        if self._dist_target is None:
            cand, box = self._cand, self._cand_box
            assert cand is not None and box is not None
            if self._cand_mass is None:
                self._cand_mass = _Mass(cand, self._walk, box)
            target, _ = self._cand_mass.richest((0, 0), None)
            h, w = cand.shape
            rows = slice(max(box[0].start - FIELD_MARGIN, 0), min(box[0].stop + FIELD_MARGIN, h))
            cols = slice(max(box[1].start - FIELD_MARGIN, 0), min(box[1].stop + FIELD_MARGIN, w))
            if h * w <= FIELD_AREA:
                self._field, self._field_origin = self.know.distance_from(target), (0, 0)
            elif (rows.stop - rows.start) * (cols.stop - cols.start) <= FIELD_AREA:
                local = (target[0] - rows.start, target[1] - cols.start)
                self._field = bfs_distance(self._walk[rows, cols], [local])
                self._field_origin = (rows.start, cols.start)
            else:
                self._field, self._field_origin = None, (0, 0)
            inside = cand[box]
            if self._field is not None:
                r0, c0 = self._field_origin
                reach = self._field[box[0].start - r0: box[0].stop - r0, box[1].start - c0: box[1].stop - c0][inside]
                reach = reach[reach >= 0]
                self._spread = float(reach.mean()) if reach.size else 0.0
            else:  # mean straight-line distance, from the candidates' rows and columns
                n = max(int(np.count_nonzero(inside)), 1)
                by_row, by_col = inside.sum(axis=1), inside.sum(axis=0)
                dr = np.abs(np.arange(box[0].start, box[0].stop) - target[0])
                dc = np.abs(np.arange(box[1].start, box[1].stop) - target[1])
                self._spread = float((by_row * dr).sum() + (by_col * dc).sum()) / n
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
        candidates, the plan's first action, its expected turns (this one counted), what it saves
        on the next best plan, and the expected turns of the plans weighed, the best first."""
        if not self._planned:
            if self._why is not None and self._why[0] == "this plan finds the treasure for sure":
                text = f"{self._count} candidates; {_describe(self._chose)}: 1.00 turns, saves every later turn: it finds the treasure for sure"
                return Note(text, self._candidate_tiles())
            return super().explain()
        if self._why is None or self.know is None:
            return None
        weighed = self._weighed
        (_, best), rest = weighed[0], weighed[1:]
        against = f"saves {rest[0][1] - best:.2f} on {rest[0][0]}" if rest else "saves 0.00: no other plan"
        listed = ", ".join(f"{label} {turns:.2f}" for label, turns in weighed)
        text = f"{self._count} candidates; {_describe(self._chose)}: {best:.2f} turns, {against}; expected turns: {listed}"
        return Note(text, self._candidate_tiles())
