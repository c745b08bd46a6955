"""A baseline shaped like a typical student solution: simple rules, no inference.

Before the pirate is free, each action is the first that applies of:
verify the oldest unverified hint; large-scan if the 5x5 square around holds
a candidate tile; travel (long moves first) toward the densest 5x5 window of
candidates. Candidates are ruled out only by hint 1, verified hints and empty
scans: the agent draws nothing from the pirate's walk or the prison, does not
weigh hints by probability and never plans two actions ahead. Once the pirate
is free it teleports onto his tile (its one teleport) and then keeps moving
the way he last moved with small, scanning moves; when that way is blocked it
falls back to the candidate search.

It exists so `treasure bench` can show how much the logic agent's inference
is worth over the obvious approach, and it must stay a plain baseline: do
not make it smarter.
"""

from __future__ import annotations

import numpy as np

from treasure_cli.rules import events as ev
from treasure_cli.rules.actions import (
    LARGE_SCAN_SIZE, Action, LargeScan, Move, Teleport, Verify, move_target, scan_square,
)
from treasure_cli.rules.observation import Observation
from treasure_cli.rules.grid import Direction, Pos, bfs_distance, manhattan_from, window_sum
from treasure_cli.agents.knowledge import Knowledge

# The only events the baseline learns from. Knowledge would also narrow the
# candidates with the prison's reach and the pirate's shortest-path walk;
# leaving those events out keeps that inference away from this agent.
_LEARNS_FROM = (
    ev.AgentPlaced, ev.TurnStarted, ev.HintGiven, ev.HintVerified,
    ev.AgentMoved, ev.Teleported, ev.AreaScanned,
)


class GreedyAgent:
    def __init__(self) -> None:
        self.know: Knowledge | None = None
        self.pirate_dir: Direction | None = None
        self._target: Pos | None = None
        self._to_target: np.ndarray | None = None
        self._reach: np.ndarray | None = None  # tiles walkable-connected to the agent
        self._cover_of: np.ndarray | None = None  # the candidate array _reachable was made from
        self._reachable = np.zeros((0, 0), dtype=np.int64)  # candidates per 5x5 window, reachable tiles

    def act(self, obs: Observation) -> Action:
        if self.know is None:
            self.know = Knowledge(obs.island)
        for event in obs.news:
            if isinstance(event, _LEARNS_FROM):
                self.know.update(event)
            elif isinstance(event, ev.PirateMoved):
                self.pirate_dir = _last_direction(event.src, event.dst, self.pirate_dir)
            if isinstance(event, ev.Teleported):
                self._reach = None  # a new place may be a new walkable piece

        if obs.pirate_free and obs.pirate is not None:
            if not obs.teleport_used:
                return Teleport(obs.pirate)
            follow = self._follow(obs)
            if follow is not None:
                return follow
        return self._search(obs)

    # -- after the release: chase along the pirate's heading ---------------
    def _follow(self, obs: Observation) -> Action | None:
        if self.pirate_dir is None:
            return None
        for steps in (2, 1):  # small moves, so every step also scans
            move = Move(self.pirate_dir, steps)
            if move_target(obs.island.walkable, obs.position, move) is not None:
                return move
        return None

    # -- before the release (and as the fallback) --------------------------
    def _search(self, obs: Observation) -> Action:
        know = self.know
        assert know is not None
        unverified = know.unverified()
        if unverified:
            return Verify(unverified[0])
        cand = know.candidates
        pos = obs.position
        if cand[scan_square(pos, LARGE_SCAN_SIZE)].any():
            return LargeScan()
        walk = obs.island.walkable
        if self._reach is None or not self._reach[pos]:
            self._reach, self._cover_of = bfs_distance(walk, [pos]) >= 0, None
        # Knowledge replaces its candidate array on every change, so identity
        # tells whether the densities must be recomputed (costly on big maps).
        if self._cover_of is not cand:
            self._cover_of, self._reachable = cand, np.where(self._reach, window_sum(cand, 2), 0)
        reachable = self._reachable
        peak = int(reachable.max())
        if peak == 0:
            if not obs.teleport_used and cand.any():  # candidates only off this walkable piece
                return Teleport(_first(cand & walk))
            return LargeScan()  # nothing left to look for; stay legal
        # Keep the current goal while it is still a densest window, so the
        # agent does not flip between equally good spots.
        t = self._target
        if t is None or reachable[t] != peak:
            dense = reachable == peak
            dist = np.where(dense, manhattan_from(walk.shape, pos), np.iinfo(np.int64).max)
            t = _first(dist == dist.min())
        return self._step_toward(walk, pos, t)

    def _step_toward(self, walk: np.ndarray, pos: Pos, target: Pos) -> Action:
        if target != self._target or self._to_target is None:
            self._target, self._to_target = target, bfs_distance(walk, [target])
        dist = self._to_target
        best: Move | None = None
        best_d = int(dist[pos])
        for direction in Direction:
            for steps in (4, 3, 2, 1):  # long moves first: they cover ground fastest
                dst = move_target(walk, pos, Move(direction, steps))
                if dst is not None and 0 <= dist[dst] < best_d:
                    best, best_d = Move(direction, steps), int(dist[dst])
        # Only reached when already on the target, whose window holds candidates
        # (so a scan was chosen before); kept so the agent can never stall illegally.
        return best if best is not None else LargeScan()


def _first(mask: np.ndarray) -> Pos:
    flat = int(np.flatnonzero(mask)[0])
    return (flat // mask.shape[1], flat % mask.shape[1])


def _last_direction(src: Pos, dst: Pos, previous: Direction | None) -> Direction | None:
    """The pirate's heading after a move of up to 2 tiles (possibly round a corner).

    A corner move does not say which leg came last. He keeps his heading when
    he can, so a turn most likely came after a leg in the old heading: take
    the other leg then, and the vertical one when neither matches.
    """
    dr, dc = dst[0] - src[0], dst[1] - src[1]
    legs = []
    if dr:
        legs.append(Direction.S if dr > 0 else Direction.N)
    if dc:
        legs.append(Direction.E if dc > 0 else Direction.W)
    if not legs:
        return previous
    if len(legs) == 2 and previous in legs:
        return legs[1] if legs[0] == previous else legs[0]
    return legs[0]
