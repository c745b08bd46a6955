"""The planning agent (`logic`, issue 44): each action chosen by the turns its plan is expected to leave.

`LogicAgent` (now `logic-greedy`) picks its action by a fixed order of rules.
This agent keeps its knowledge (the candidate tiles) and two of its rules: a
plan of the turn that finds the treasure for sure, and the teleport while the
pirate is in prison (its jump to concentrated candidates; `LogicAgent._rules`,
asked with its own test of a verification switched off), unless the plans
price that jump JUMP_VETO turns over their best (fewer on maps under 64x64; the
walk from it to the candidates it leaves, once it is spent). Everything else is
planned, the teleport in the race against the free pirate too: every plan
of the turn's remaining actions (a large scan, each legal move, then the best
second scan from where it lands; the teleport to the richest window and its
scans there; or a hint's verification, then the best second action on each of
its answers) is scored by the turns it is expected to leave, in the game's
own currency:

* the belief: the candidates weighted by what the unverified hints say about
  how the pirate draws: each tile by its own chance of being in one draw of the
  hint's kind (`coverage.py`; `belief.py`'s share of land where that is not
  computed). Verified hints, scans, the prison and the pirate's walk are hard
  facts;
* a plan whose scans cover a share c of that weight ends the game this turn
  with chance c; else n·(1 − c) candidates are left;
* what follows the turn is priced by `future_turns(n)`: the turns a game with n
  candidates still takes, measured on played games (a new hint comes each
  turn, so about one turn less each time n halves), plus, once the teleport
  is spent, what it was worth (`TELEPORT_VALUE`) and the walk to the
  candidates that a turn's spare action cannot cover (`_walk_turns`);
* a verification is true with the chance the belief gives its set, and each
  answer leaves its side's candidates: a turn a halving of them, counted from
  the turns the game takes now (`_verify_options`, VERIFY_SLOPE);
* once the pirate is free, his deadline: a candidate he reaches in k turns is
  found within k turns or the game is lost. A plan pays LOSS_TURNS for each
  share of the weight it loses so: the tiles he steps on next turn that its
  scans leave unseen (`_due_loss`), and, the teleport spent, the candidates
  he reaches before the agent could walk from where the plan leaves it and
  scan them (`_loss`). (logic-greedy instead raises each tile's weight by how
  soon he reaches it, `LogicAgent._urgency`: that never says a candidate is
  out of reach, and the planner lost games walking away from the pirate's.)

So the agent verifies when an answer saves more turns than a scan finds,
scans here when that is worth more than walking, walks toward candidates only
as far as the walk saves turns, and keeps its teleport while a jump would
leave far candidates to walk to. When no scan of the turn can reach a
candidate and the teleport is kept, every plan is worth the same: it then walks
toward the candidates (the rules' walk) rather than scan empty ground.
"""

from __future__ import annotations

import math

import numpy as np

from treasure_cli.agents.belief import hint_log_factors
from treasure_cli.agents.coverage import Coverage
from treasure_cli.agents.logic import _LARGE_SCAN, Features, LogicAgent, _box, _describe, _Mass
from treasure_cli.agents.mass_kernel import count_both
from treasure_cli.rules.actions import Action, LargeScan, Move, Teleport, Verify
from treasure_cli.rules.grid import Pos, bfs_distance
from treasure_cli.rules.hint_draw import MAX_PARAM_DRAWS
from treasure_cli.rules.hints import FIXED_KINDS
from treasure_cli.rules.observation import Note, Observation

# Turns a game still takes with n equally likely candidates and the teleport kept, at n = 2^0,
# 2^1, ...: the means over logic-greedy's won games on 32x32 and 64x64 islands, mazes left out
# (seed 7, 900 games), smoothed. One more turn for each doubling past the table.
_FUTURE = (1.0, 1.15, 1.3, 1.7, 2.1, 2.6, 3.2, 4.0, 4.8, 5.7, 6.6, 7.6, 8.6, 9.6)
TELEPORT_VALUE = 0.8   # turns the teleport kept for later is worth (what spending it costs)
RACE_TELEPORT = 0.4    # worth more while the pirate is free and more than RACE_MANY candidates are left: spent for
RACE_MANY = 32         # a tenth of a turn with 67 to 304 left, three games of the free-turn-3 64x64 bench were lost
WALK_PER_TURN = 8.0    # tiles two large moves walk in a turn
PLAN_MAX_CANDIDATES = 1 << 14  # more candidates than this (only on maps over 128x128): the rules' search
FIELD_AREA = 1 << 18   # tiles a walking search may cover (~12 ms at most)
FIELD_MARGIN = 16      # tiles around the candidates' box that a search on a big map may use
SPARE_WALK = 4.0       # tiles a turn's spare action walks while hints are verified
VERIFY_PLANS = True    # verifications priced in expected turns, as plans (False: the rules' test, as before)
VERIFY_PAIRS = 16      # the most hints whose verifications are priced in one action (the least certain)
VERIFY_SLOPE = 1.0     # turns a halving of the candidates by a hint's answer is worth (a new hint a turn)
RULES_RACE_JUMP = False  # the rules' jump in the race against the free pirate (False: the plans price it)
IDLE_WALK = True       # no scan of the turn sees a candidate, the teleport kept: walk toward them (the rules' way)
SEEN_NONE = 1e-12      # a share of the weight this small is no candidate seen (the sums' rounding)
DEADLINE = True        # in the race, price the candidates the pirate reaches before the agent can scan them
LOSS_TURNS = 10.0      # turns a game lost to the pirate is worth: what a plan pays for each share of weight it loses
DEADLINE_AREA = 1 << 14  # maps up to this many tiles (128x128) measure the deadline's walks (else straight lines)
DEADLINE_WALKS = 16    # the most candidates whose walks are searched (the most urgent)
DRAW_CHANCES = True    # a hint's soft weight by each tile's own chance of being in a draw of its kind (coverage.py);
                       # False: by the share of land its set covers, the same for every tile (belief.py)
JUMP_VETO = 3.0        # the rules' jump while the pirate is in prison is left when the plans price it this many
                       # turns over their best (a jump that strands the agent far from the other candidates)...
JUMP_VETO_SIDE = 64    # ...on maps of this mean side or more; a third of that each time the side halves below it
EARLY_JUMP_MARGIN = 0.1  # turns the plans' own jump must beat the best other plan by, the pirate in prison and more than
EARLY_JUMP_MANY = 150    # this many candidates left: its price is an estimate, and the jump can be made only once
RACE_URGENCY = False   # the scans' weights raised by how soon the pirate reaches each tile (logic-greedy's way; the deadline prices it instead)


def _accept(s: np.ndarray | float) -> np.ndarray:
    """a(s)/s for each chance s that one draw holds a tile: the draws the pirate makes for it,
    a(s) = 1 - (1 - s)^MAX_PARAM_DRAWS the chance he finds one within his budget (belief.py)."""
    s = np.clip(np.asarray(s, dtype=np.float64), 1e-12, 1.0)
    return (1.0 - (1.0 - s) ** MAX_PARAM_DRAWS) / s  # type: ignore[no-any-return]


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
        self._log: np.ndarray | None = None          # log-weights of the tiles by the hints heard (map-sized;
                                                     # kept up to date over the candidates' box only)
        self._heard = 0                              # hints folded into _log
        self._coverage: Coverage | None = None       # each tile's chance of being in a draw, by kind
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
        self._tp_free = True                         # the teleport is kept (this action's)
        self._jumped = False                         # the last action was the rules' teleport, the plans weighed
        self._idle = False                           # the last action was a walk: no plan scanned a candidate
        self._vetoed: tuple[Pos, float] | None = None  # the rules' jump left (its target, the turns the plans give it)
        self._held_jump: float | None = None  # the turns the plans' jump would have saved, under the early margin
        self._seen = 0.0                             # the most weight a scan plan of this action sees
        self._verify_splits: dict[int, int] = {}     # hint number -> candidates in its set (this action's)
        self._verify_chance: dict[int, float] = {}   # hint number -> the chance it is true (this action's)
        # The race's deadline (this action's): the candidates the pirate reaches in two turns or more,
        # their rows, columns, turns he needs, and shares of the belief's weight; and the loss by place.
        self._deadline: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._lost: dict[tuple[Pos, bool], float] = {}
        # (which of them, the walking distances from each): the most urgent, on small maps
        self._deadline_walk: tuple[np.ndarray, np.ndarray] | None = None
        self._fields: dict[Pos, np.ndarray] = {}     # walking distances from a candidate, kept
        # The candidates he reaches at the next turn's start (this turn's scans find them or none
        # will): their share of the belief's weight, and their masses (over the candidates' box).
        self._due_share = 0.0
        self._due_mass: _Mass | None = None
        self._due_buf: np.ndarray | None = None

    # ------------------------------------------------------------------ act
    def _act(self, obs: Observation) -> Action:
        self._why = None
        self._planned = self._jumped = self._idle = False
        self._observe(obs)
        n = self._count
        if n == 0:  # cannot happen with sound knowledge; stay legal anyway
            self._why = ("no candidate left", 0.0, 0.0)
            return LargeScan()
        if n > PLAN_MAX_CANDIDATES:
            # A scan finds it with a chance under 1/600: where to look hardly matters yet.
            return self._rules(obs)
        # The rules first, for the sure cases: a plan that finds the treasure for sure, and
        # the teleport while the pirate is in prison (its jump to concentrated candidates).
        # Verifications, and the teleport in the race against the free pirate, are priced
        # below, in the plans' own currency.
        ruled = self._rules(obs, verify_ok=not VERIFY_PLANS)
        if type(ruled) is Verify:  # (only without VERIFY_PLANS: the rules' own test)
            return ruled
        if self._why is not None and self._why[0] == "this plan finds the treasure for sure":
            return ruled
        rules_teleport = ruled if type(ruled) is Teleport else None
        if rules_teleport is not None and self.know.pirate_free and not RULES_RACE_JUMP:
            rules_teleport = None  # (the rules jump as soon as a far window holds more: too early)
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
            self._hear(obs.truth_rate, box)
            self._soft_weights(box, weights)  # (only the box is read, by _Mass and _urgency)
            self._weights_key = key
            self._weights_mass = None
        if self.features.race and self.know.pirate_free and RACE_URGENCY:
            mass = _Mass(self._urgency(weights, box), walk, box)
        else:
            if self._weights_mass is None:
                self._weights_mass = _Mass(weights, walk, box)
            mass = self._weights_mass

        tp_free = self._tp_free = not obs.teleport_used
        self._deadline_for(weights, box)
        options: list[tuple[float, str, Action, int]] = []  # (expected turns after this one, label, action, order)
        for value, label, action in self._scan_options(walk, pos, mass, n, tp_free, obs.actions_left >= 2):
            options.append((value, label, action, 0))
        if tp_free:
            target, _ = mass.richest(pos, None)
            if target != pos:
                options.append((self._teleport_value(walk, target, mass, n, obs.actions_left >= 2),
                                f"teleport to ({target[0]}, {target[1]})", Teleport(target), 1))
        if VERIFY_PLANS:
            for value, label, action in self._verify_options(pos, weights, box, n, obs.actions_left >= 2):
                options.append((value, label, action, 2))
        # An early jump is priced by the same estimate as the searches, but it is the one action that
        # cannot be taken back: chosen on a hair's margin with many candidates left, it strands the
        # agent far from the rest (seed 11's default 32x32 games: 44 such jumps, 1.27 turns behind
        # oracle-greedy). So it must beat the best other plan by a margin there.
        margin = EARLY_JUMP_MARGIN if n > EARLY_JUMP_MANY and not self.know.pirate_free else 0.0
        options.sort(key=lambda o: (o[0] + (margin if o[3] == 1 else 0.0), o[3]))  # stable: the first of equals in move order
        best_value, _, best, order = options[0]
        jumps = [o[0] for o in options if o[3] == 1]
        self._held_jump = best_value - jumps[0] if jumps and jumps[0] < best_value - 1e-9 else None  # the margin chose
        self._weighed = [(label, 1.0 + value) for value, label, _, _ in options[:4]]
        self._why = ("", 1.0 + best_value, 0.0)
        self._vetoed = None
        if rules_teleport is not None and JUMP_VETO > 0 and type(rules_teleport) is Teleport:
            # The rules jump to the richest window once the candidates are concentrated, whatever
            # is left beyond it; the plans price the walk from there to the rest once it is spent
            # (in a maze, two candidates far apart: a jump to one left the other a long walk away,
            # where walking to the nearer first keeps the jump for the other).
            # The margin is smaller on small maps: 3 turns let 32x32 mazes jump and lose to the
            # pirate, who is out sooner there (1 turn: 0.3 turn a game fewer, 14 more won of 3,600
            # held-out games); at 64x64 mazes 1, 2 and 4 turns all cost turns, and at 128x128
            # islands 9 did.
            jump = self._teleport_value(walk, rules_teleport.target, mass, n, obs.actions_left >= 2)
            if jump > best_value + self._jump_veto():
                self._vetoed = (rules_teleport.target, 1.0 + jump)
                rules_teleport = None
        if IDLE_WALK and tp_free and rules_teleport is None and order == 0 and self._seen <= SEEN_NONE:
            # Every scan plan of the turn sees nothing and the teleport is kept: the plans are
            # all worth the same (the turns the candidates take; no walk is priced while a jump
            # can still save it). Scanning empty ground would wait for the hints; walk toward
            # the candidates instead, the rules' way (to the window worth most for its distance,
            # without dithering).
            self._idle = True
            return self._travel_or_scan(walk, pos, mass, _LARGE_SCAN, 0.0)
        if rules_teleport is not None and type(best) is not Verify:
            self._jumped = True  # the rules' jump, not the best plan's first action
            return rules_teleport
        return best

    def _jump_veto(self) -> float:
        """Turns over the best plan's at which the plans' price leaves the rules' jump."""
        h, w = self.know.candidates.shape
        return JUMP_VETO * math.pow(3.0, min(0.0, math.log2((h + w) / (2 * JUMP_VETO_SIDE))))

    # ------------------------------------------------------------ belief
    def _hear(self, truth_rate: float, box: tuple[slice, slice]) -> None:
        """Fold each new hint, heard but not verified, into the log-weights: how likely the
        pirate was to say it if the treasure lies in its set, and if not (`belief.py`).

        Only over `box`, the candidates' box: the candidates only ever shrink, so no later
        box reaches past it and the log-weights outside it are never read again (at
        1024x1024 two passes over the whole map were 10 to 15 ms a hint, the slowest actions).

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
            hint = know.hints[number - 1]
            inner = log[box]  # (a view: the additions land in the map-sized log)
            chance = None
            if DRAW_CHANCES:
                if self._coverage is None:
                    self._coverage = Coverage(island)
                self._coverage.tell_prison(know.prison)
                chance = self._coverage.chance(hint, number)
            if chance is not None and hint.kind not in FIXED_KINDS:
                c = chance[box] if isinstance(chance, np.ndarray) else chance
                inner += np.where(mask[box], np.log(truth_rate * _accept(c)), np.log((1.0 - truth_rate) * _accept(1.0 - c)))
                continue
            q = count_both(mask, plain, 0, h, 0, w) / plain_count
            inside, outside = hint_log_factors(hint.kind, q, truth_rate)  # type: ignore[arg-type]
            inner += outside
            inner[mask[box]] += inside - outside

    def _soft_weights(self, box: tuple[slice, slice], out: np.ndarray) -> None:
        """The candidates' weights (the largest 1) into `out` over `box`, which holds them all."""
        cand = self.know.candidates[box]
        assert self._log is not None
        log = self._log[box]
        top = float(log[cand].max()) if cand.any() else 0.0
        np.exp(np.minimum(log - top, 0.0), out=out[box])
        out[box] *= cand

    # ------------------------------------------------------------ values
    def _deadline_for(self, weights: np.ndarray, box: tuple[slice, slice]) -> None:
        """In the race: the candidates the free pirate reaches at the next turn's start, their
        share of the belief's weight and their masses (`_due_loss` reads them: this turn's scans
        find them or none will); and those he reaches later, with the turns he needs, their
        shares, and the walking distances to the most urgent (`_loss` reads them)."""
        self._lost.clear()
        self._deadline, self._due_share, self._due_mass, self._deadline_walk = None, 0.0, None, None
        know = self.know
        if not (DEADLINE and self.features.race and know.pirate_free and know.pirate is not None):
            return
        cand = know.candidates[box]
        rows, cols = np.nonzero(cand)
        left = know.pirate_distance(box)[rows, cols]
        turns = (np.maximum(left, 0) + 1) // 2          # turns he needs, this one counted: ceil(left / 2)
        w = weights[box][rows, cols]
        total = float(w.sum())
        if total <= 0:
            return
        due = turns <= 1
        if due.any():
            buf = self._due_buf
            if buf is None or buf.shape != know.candidates.shape:
                buf = self._due_buf = np.zeros(know.candidates.shape)
            inner = buf[box]
            inner.fill(0.0)
            inner[rows[due], cols[due]] = w[due]
            self._due_share = float(w[due].sum()) / total
            self._due_mass = _Mass(buf, self._walk, box)
        keep = turns >= 2
        if not keep.any():
            return
        r, c = rows[keep] + box[0].start, cols[keep] + box[1].start
        self._deadline = (r, c, turns[keep], w[keep] / total)
        # The walking distances to the DEADLINE_WALKS most urgent of them, on a map small enough
        # to search from each (a maze's walls make the straight line far too short).
        if know.candidates.size <= DEADLINE_AREA:
            first = np.argsort(turns[keep], kind="stable")[:DEADLINE_WALKS]
            fields = [self._field_from((int(r[i]), int(c[i]))) for i in first]
            self._deadline_walk = (first, np.stack(fields))

    def _field_from(self, pos: Pos) -> np.ndarray:
        """Walking distances from `pos` (-1 where no walk reaches), kept for later actions."""
        field = self._fields.get(pos)
        if field is None:
            if len(self._fields) >= 4 * DEADLINE_WALKS:
                self._fields.clear()
            field = self._fields[pos] = bfs_distance(self._walk, [pos])
        return field

    def _loss(self, pos: Pos, tp_free: bool) -> float:
        """Expected turns a plan ending at `pos` loses to the pirate's deadline: the share of the
        weight on candidates he reaches before the agent, walking from `pos`, can scan them (a
        large move and a large scan the first turn, 8 tiles a turn after it; the walk searched
        to the most urgent on small maps, else a straight line), at LOSS_TURNS. With the
        teleport kept every candidate is a turn away: none is lost so."""
        if self._deadline is None or tp_free:
            return 0.0
        lost = self._lost.get((pos, tp_free))
        if lost is None:
            rows, cols, turns, share = self._deadline
            d = (np.abs(rows - pos[0]) + np.abs(cols - pos[1])).astype(np.float64)
            if self._deadline_walk is not None:
                first, fields = self._deadline_walk
                walks = fields[:, pos[0], pos[1]].astype(np.float64)
                walks[walks < 0] = np.inf  # another piece of land: no walk reaches it
                d[first] = walks
            need = np.ceil((d + 2.0) / 8.0)  # (inf where no walk reaches: lost)
            lost = self._lost[(pos, tp_free)] = LOSS_TURNS * float(share[need >= turns].sum())
        return lost

    def _due_loss(self, first: tuple[Pos, int] | None, second: tuple[Pos, int] | None = None) -> float:
        """Expected turns lost to the pirate's next step by a plan that scans `first` and
        `second` (squares, or None): the weight he reaches next turn that they leave unseen, at
        LOSS_TURNS."""
        dm = self._due_mass
        if dm is None:
            return 0.0
        if first is None or second is None:
            one = first or second
            seen = dm.square(one) if one is not None else 0.0
        elif first[0] == second[0] and first[1] <= second[1]:
            seen = dm.square(second)
        else:
            seen = dm.union(first, second)
        return LOSS_TURNS * self._due_share * max(0.0, 1.0 - seen)

    def _future(self, n_left: float, tp_free: bool, pos: Pos) -> float:
        """Turns after this one with `n_left` candidates, the agent at `pos`: the candidates'
        own turns, and once the teleport is spent, its worth and the walk no spare action covers."""
        f = future_turns(n_left)
        if tp_free:
            return f
        kept = TELEPORT_VALUE
        if self.features.race and self.know.pirate_free and n_left > RACE_MANY:
            kept += RACE_TELEPORT  # racing with many left: the jump is the way past the pirate, later
        return f + kept + self._walk_turns(pos, f)

    def _walk_turns(self, pos: Pos, f: float) -> float:
        """Turns of walking from `pos` to the candidates beyond what `f` turns' spare actions walk:
        the walk to the candidates' richest window, and on from there (their mean walk from it)."""
        return max(0.0, self._walk_distance(pos) - SPARE_WALK * (f - 1.0)) / WALK_PER_TURN

    def _walk_distance(self, pos: Pos) -> float:
        """Tiles from `pos` to the candidates' richest window, and on to the candidates (their mean)."""
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
        return d + self._spread

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
        seen = 0.0
        for first, mid, covered in firsts:
            c1 = mass.square(covered) if covered is not None else 0.0
            seen = max(seen, c1)
            value = ((1 - c1) * self._future(n * (1 - c1), tp_free, mid) + self._loss(mid, tp_free)
                     + self._due_loss(covered))
            if two:
                seconds = [(mid, 2)] + [((r, c), 1) for _, r, c in self._moves(walk, mid).small]
                for square in seconds:
                    if covered is None or (covered[0] == square[0] and covered[1] <= square[1]):
                        c2 = mass.square(square)  # nothing scanned first, or the second square holds the first
                    else:
                        c2 = mass.union(covered, square)
                    seen = max(seen, c2)
                    if c2 > c1:
                        value = min(value, (1 - c2) * self._future(n * (1 - c2), tp_free, square[0])
                                    + self._loss(square[0], tp_free) + self._due_loss(covered, square))
            out.append((value, _describe(first), first))
        self._seen = seen
        return out

    def _teleport_value(self, walk: np.ndarray, target: Pos, mass: _Mass, n: int, two: bool) -> float:
        """Expected turns after this one if the agent teleports to `target` now and scans there
        (a large scan, and with two actions left the best small move's scan after it)."""
        c1 = mass.square((target, 2))
        value = ((1 - c1) * self._future(n * (1 - c1), False, target) + self._loss(target, False)
                 + self._due_loss((target, 2)))
        if two:
            for _, r, c in self._moves(walk, target).small:
                c2 = mass.union((target, 2), ((r, c), 1))
                value = min(value, (1 - c2) * self._future(n * (1 - c2), False, (r, c)) + self._loss((r, c), False)
                            + self._due_loss((target, 2), ((r, c), 1)))
        return value

    def _verify_options(self, pos: Pos, weights: np.ndarray, box: tuple[slice, slice],
                        n: int, two: bool) -> list[tuple[float, str, Action]]:
        """Each open hint's verification, with the expected turns it leaves after this one.

        Its answer is "inside" with the chance m, the share of the belief's weight in its
        set, and leaves the candidates of that side, their weights kept. With two actions
        left, the second is the best on that side: a scan here or a small move's (its share
        c of the side's weight found now, the rest left), another verification, or nothing
        found (a move). All over the candidates only (a vector of them), every hint and
        every pair of hints at once."""
        know = self.know
        hints = know.open_hints()
        if not hints:
            return []
        cand = self.know.candidates
        rows, cols = box
        w_map = cand.shape[1]
        sub = cand[box]
        flat_r, flat_c = np.nonzero(sub)
        flat_r += rows.start
        flat_c += cols.start
        idx = flat_r * w_map + flat_c
        kept, sets = [], []
        for number in hints:
            mask = know.open_mask(number)
            if mask is None:
                continue
            s = mask.ravel()[idx]
            inside = int(np.count_nonzero(s))
            if inside == 0 or inside == n:
                know.settle(number)
                continue
            kept.append(number)
            sets.append(s)
        if not kept:
            return []
        wc = weights.ravel()[idx]                       # the belief's weights (chance of each side)
        total = float(wc.sum())
        if len(kept) > VERIFY_PAIRS:
            # Only the hints whose answer is least certain are priced (a 1024x1024 game may
            # hold hundreds open, and pairs cost their square): an answer near 50/50 teaches
            # the most, so these are nearly always the best (not always: the sizes of the
            # sides count too).
            doubt = [abs(float(wc[s].sum()) / total - 0.5) for s in sets]
            chosen = sorted(range(len(kept)), key=lambda i: (doubt[i], i))[:VERIFY_PAIRS]
            chosen.sort()
            kept, sets = [kept[i] for i in chosen], [sets[i] for i in chosen]
        S = np.array(sets, dtype=np.float64)           # hints x candidates
        counts = S.sum(axis=1)                          # candidates inside each set
        both = S @ S.T                                  # candidates inside two sets
        win = S @ wc                                    # weight inside each set
        wboth = (S * wc) @ S.T
        m = win / total                                 # chance each hint is true
        # What an answer teaches, in turns: VERIFY_SLOPE a halving of the candidates, from the
        # turns the game takes with them all now. (The measured table's slope, a third of a turn
        # to a turn a halving, is an average over games that verified as they went: priced with
        # it, an answer was worth too little and the agent verified too late.)
        f0 = self._future(float(n), self._tp_free, pos)
        l0 = math.log2(n)

        def here(k: np.ndarray) -> np.ndarray:
            """Turns after this one with `k` candidates (an array) left by an answer: never
            fewer than one (the turn that scans the last of them)."""
            return np.maximum(f0 + VERIFY_SLOPE * (np.log2(np.maximum(k, 1.0)) - l0), 1.0)  # type: ignore[no-any-return]

        if not two:
            values = m * here(counts) + (1 - m) * here(n - counts)
        else:
            # Second action a verification j: four sides (k in/out, j in/out).
            cin, cout = counts[:, None], (n - counts)[:, None]
            cjj = np.diag(both)[None, :]
            wkk, wjj = win[:, None], win[None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                pj_in = np.where(wkk > 0, wboth / wkk, 0.0)
                pj_out = np.where(total - wkk > 0, (wjj - wboth) / (total - wkk), 0.0)
            n_ii, n_io = both, cin - both
            n_oi, n_oo = cjj - both, cout - cjj + both
            v_in = pj_in * here(n_ii) + (1 - pj_in) * here(n_io)
            v_out = pj_out * here(n_oi) + (1 - pj_out) * here(n_oo)
            np.fill_diagonal(v_in, np.inf)
            np.fill_diagonal(v_out, np.inf)
            best_in = np.minimum(v_in.min(axis=1), here(counts))  # (a move: nothing found)
            best_out = np.minimum(v_out.min(axis=1), here(n - counts))
            # Second action a scan: the scan's mass (the search's weights) on each side.
            searched = self._search_weights(weights)
            pv = wc if searched is weights else searched.ravel()[idx]
            pin = S @ pv
            ptotal = float(pv.sum())
            squares = [(pos, 2)] + [((r, c), 1) for _, r, c in self._moves(self._walk, pos).small]
            qr = np.array([q[0][0] for q in squares])[:, None]
            qc = np.array([q[0][1] for q in squares])[:, None]
            qk = np.array([q[1] for q in squares])[:, None]
            inq = ((np.abs(flat_r[None, :] - qr) <= qk) & (np.abs(flat_c[None, :] - qc) <= qk)).astype(np.float64)
            q_all = (inq @ pv)[:, None]                 # squares x 1: the weight each scan sees
            q_in = inq @ (S * pv).T                     # squares x hints: of it, inside each set
            with np.errstate(divide="ignore", invalid="ignore"):
                c_in = np.where(pin > 0, q_in / pin, 0.0)
                c_out = np.where(ptotal - pin > 0, (q_all - q_in) / (ptotal - pin), 0.0)
            c_in, c_out = np.clip(c_in, 0.0, 1.0), np.clip(c_out, 0.0, 1.0)
            best_in = np.minimum(best_in, ((1 - c_in) * here(counts * (1 - c_in))).min(axis=0))
            best_out = np.minimum(best_out, ((1 - c_out) * here((n - counts) * (1 - c_out))).min(axis=0))
            values = m * best_in + (1 - m) * best_out
        # The deadline: the agent stays (its walk's losses), and the pirate's next tiles are left
        # to the second action's scan at best.
        due = self._due_loss(None)
        if two and self._due_mass is not None:
            due = min([due, self._due_loss((pos, 2))]
                      + [self._due_loss(((r, c), 1)) for _, r, c in self._moves(self._walk, pos).small])
        values = values + self._loss(pos, self._tp_free) + due
        self._verify_splits = {number: int(c) for number, c in zip(kept, counts)}
        self._verify_chance = {number: float(c) for number, c in zip(kept, m)}
        return [(float(v), f"verify {number}", Verify(number)) for number, v in zip(kept, values)]

    def _search_weights(self, weights: np.ndarray) -> np.ndarray:
        """The weights the scans are priced with: the urgency's while racing (as `_act` left
        them over the candidates' box), else the belief's."""
        if self.features.race and self.know.pirate_free and RACE_URGENCY and self._urgency_out is not None:
            return self._urgency_out
        return weights

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
        listed = ", ".join(f"{label} {turns:.2f}" for label, turns in weighed)
        chose = self._chose
        if self._jumped and type(chose) is Teleport:
            text = (f"{self._count} candidates; {_describe(chose)}: the rules' jump to the richest window, "
                    f"far, worth the walk it saves; plans weighed, in turns: {listed}")
            return Note(text, self._candidate_tiles())
        left = ""
        if self._held_jump is not None:
            left = (f"; the teleport is kept: it would save {self._held_jump:.2f}, under the {EARLY_JUMP_MARGIN:.2f} "
                    f"an early jump must save (more than {EARLY_JUMP_MANY} candidates, the pirate in prison)")
        if self._vetoed is not None:
            (r, c), turns = self._vetoed
            left += f"; the rules' jump to ({r}, {c}) is left: it leaves {turns:.2f} turns, the rest far from it"
        if self._idle:
            toward = ("a step toward the window worth most for its distance" if type(chose) is Move
                      else "no move brings it nearer them")
            text = (f"{self._count} candidates; {_describe(chose)}: no plan of this turn scans one, each "
                    f"leaves {weighed[0][1]:.2f} turns and none saves any on another; the teleport is kept: "
                    f"{toward}; plans weighed, in turns: {listed}{left}")
            return Note(text, self._candidate_tiles())
        (_, best), rest = weighed[0], weighed[1:]
        against = f"saves {rest[0][1] - best:.2f} on {rest[0][0]}" if rest else "saves 0.00: no other plan"
        if self._held_jump is not None:  # the teleport, listed first of the others, is priced lower
            against = "the best plan but the teleport"
        text = f"{self._count} candidates; {_describe(chose)}: {best:.2f} turns, {against}; expected turns: {listed}{left}"
        if type(chose) is Verify and chose.number in self._verify_splits:
            inside = self._verify_splits[chose.number]
            text += (f"; hint {chose.number} is true with chance {self._verify_chance[chose.number]:.2f}"
                     f" and splits them {inside}/{self._count - inside}")
        return Note(text, self._candidate_tiles())
