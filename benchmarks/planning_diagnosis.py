"""Where `logic` loses turns against `oracle-greedy` (issue 44's diagnosis), game by game.

Run with the project's Python:

    .venv/bin/python benchmarks/planning_diagnosis.py --games 300 --seed 11
    .venv/bin/python benchmarks/planning_diagnosis.py --rows maze --sizes 64 --dump 3

Plays the islands of `benchmarks/planning_rows.py` (the same seeds, so the
same games) in this process with `logic`, `oracle-greedy` and `oracle`, notes
on, and reads each game's actions and the candidates each note gives. On the
games both `logic` and `oracle-greedy` won, per row, the gap's parts in turns
(an action is half a turn):

* `verify`: logic's verifications (the oracle knows every truth for free);
* `large moves` and `scans`: its walking without a scan, and its scans
  (large scans and small moves), less the oracle's;
* `to <=25` and `after`: the turns to reach 25 candidates (a large scan's
  worth), and the turns from there to the find, less the oracle's;
* `reached`: the turns later than the oracle that logic first began a turn
  with at most 100, 25 and 6 candidates, and the turns it took from each of
  those to the find, less the oracle's (where in the game the gap is lost);
* the teleport: how many games each used it in, and how many turns earlier
  (negative) or later logic jumped when both did; and logic's jumps by whose
  they were (the rules' jump while the pirate is in prison, or a plan's) and
  the candidates it jumped with (up to 50, 150, more): the games, their mean
  gap, their share of the row's gap, and the large moves each agent made after
  its own jump (walking the jump did not save);
* the games 3 turns or more behind, and the share of the gap they hold;
* the games one won and the other lost (game index, both reasons and
  turns, the turn the pirate was freed, both teleport turns).

`--dump N` prints the N games logic lost most turns on: each action as
turn:kind (S large scan, m small move, M large move, V<k> verify, T
teleport) and the candidates at each turn's first note.
"""

from __future__ import annotations

import argparse
import re
import statistics
from dataclasses import dataclass, field
from typing import Any

from treasure_cli.rules.island import Island
from treasure_cli.play.bench import BenchOptions, make_tasks, task_island
from treasure_cli.play.games import play_game
from treasure_cli.rules.events import (
    AgentMoved, AgentNoted, AreaScanned, HintVerified, PirateFreed, Teleported, TurnStarted,
)

ROWS: dict[str, dict[str, Any]] = {"default": {}, "free3": {"free_turn": 3}, "maze": {"style": "maze"}}
CANDIDATES = re.compile(r"^(\d+) candidates")
PHASES = (100, 25, 6)  # candidate counts: the turn each agent first began with at most so many


@dataclass
class Trace:
    """One agent's game: its outcome, its actions by kind, and its candidates by turn."""

    won: bool
    reason: str
    turns: int
    verify: int = 0
    large_moves: int = 0
    scans: int = 0
    teleport: int | None = None   # the turn it teleported on
    jump: str = ""                # whose jump: "rules" or "plan" (from its note), with the candidates
    walked_after: int = 0         # large moves after the teleport
    freed: int | None = None      # the turn the pirate was freed on
    candidates: dict[int, int] = field(default_factory=dict)  # turn -> candidates at its first note
    actions: list[str] = field(default_factory=list)

    def turn_below(self, k: int) -> int:
        """The first turn that began with at most `k` candidates (else the last turn)."""
        return next((t for t in sorted(self.candidates) if self.candidates[t] <= k), self.turns)


def trace(island: Island, agent: str, seed: int) -> Trace:
    record, events = play_game(island, agent, seed, map_name="diagnosis", notes=True)
    assert events is not None
    t = Trace(record.won, record.reason, record.turns)
    turn = 0
    note = ""
    for e in events:
        if isinstance(e, TurnStarted):
            turn = e.turn
        elif isinstance(e, PirateFreed):
            t.freed = e.turn
        elif isinstance(e, HintVerified):
            t.verify += 1
            t.actions.append(f"{turn}:V{e.number}")
        elif isinstance(e, AgentMoved):
            if e.steps <= 2:
                t.scans += 1
                t.actions.append(f"{turn}:m")
            else:
                t.large_moves += 1
                t.walked_after += t.teleport is not None
                t.actions.append(f"{turn}:M")
        elif isinstance(e, AreaScanned) and e.size == 5:
            t.scans += 1
            t.actions.append(f"{turn}:S")
        elif isinstance(e, Teleported):
            t.teleport = turn
            t.actions.append(f"{turn}:T")
            found = CANDIDATES.match(note)
            n = int(found.group(1)) if found else 0
            whose = "rules" if "the rules' jump" in note else "plan"
            t.jump = f"{whose} {'<=50' if n <= 50 else '<=150' if n <= 150 else '>150'}"
        elif isinstance(e, AgentNoted):
            note = e.text
            found = CANDIDATES.match(e.text)
            if found and turn not in t.candidates:
                t.candidates[turn] = int(found.group(1))
    return t


def mean_se(xs: list[float]) -> str:
    if len(xs) < 2:
        return "n/a"
    return f"{statistics.mean(xs):+.2f} ± {statistics.stdev(xs) / len(xs) ** 0.5:.2f}"


def row(name: str, size: int, games: int, seed: int, dump: int) -> None:
    options = BenchOptions(agents=("logic", "oracle-greedy", "oracle"), sizes=(size,), games=games, seed=seed,
                           **ROWS[name])
    gap: list[float] = []
    new_oracle: list[float] = []
    parts: dict[str, list[float]] = {k: [] for k in ("verify", "large moves", "scans", "to <=25", "after")}
    phases: dict[int, tuple[list[float], list[float]]] = {k: ([], []) for k in PHASES}
    jumps = [0, 0]
    jump_turns: list[float] = []
    apart: list[str] = []
    worst: list[tuple[int, int, Trace, Trace]] = []
    by_jump: dict[str, list[tuple[int, int, int]]] = {}  # logic's jump -> (gap, its walk after, the oracle's)
    for task in make_tasks(options):
        island = task_island(task, options)
        mine, old, new = (trace(island, a, task.game_seed) for a in ("logic", "oracle-greedy", "oracle"))
        if mine.won != old.won:
            apart.append(f"{task.index} ({mine.reason} {mine.turns} / {old.reason} {old.turns}, freed {mine.freed}, "
                         f"teleports {mine.teleport} / {old.teleport})")
        if not (mine.won and old.won):
            continue
        d = mine.turns - old.turns
        gap.append(d)
        if new.won:
            new_oracle.append(new.turns - old.turns)
        parts["verify"].append((mine.verify - old.verify) / 2)
        parts["large moves"].append((mine.large_moves - old.large_moves) / 2)
        parts["scans"].append((mine.scans - old.scans) / 2)
        below_mine, below_old = mine.turn_below(25), old.turn_below(25)
        parts["to <=25"].append(below_mine - below_old)
        parts["after"].append((mine.turns - below_mine) - (old.turns - below_old))
        for k, (to, after) in phases.items():
            below_mine, below_old = mine.turn_below(k), old.turn_below(k)
            to.append(below_mine - below_old)
            after.append((mine.turns - below_mine) - (old.turns - below_old))
        jumps[0] += mine.teleport is not None
        jumps[1] += old.teleport is not None
        if mine.teleport is not None and old.teleport is not None:
            jump_turns.append(mine.teleport - old.teleport)
        worst.append((d, task.index, mine, old))
        by_jump.setdefault(mine.jump or "none", []).append((d, mine.walked_after, old.walked_after))
    behind = [d for d in gap if d >= 3]
    print(f"{name} {size}x{size}: {len(gap)} games both won; gap {mean_se(gap)}, "
          f"oracle - oracle-greedy {mean_se(new_oracle)}")
    print("   " + ", ".join(f"{k} {statistics.mean(v):+.2f}" for k, v in parts.items() if v))
    if gap:
        print("   reached " + ", ".join(f"<={k} {statistics.mean(to):+.2f}" for k, (to, _) in phases.items())
              + "; after it " + ", ".join(f"{mean_se(after)}" for _, after in phases.values()))
    print(f"   teleported: logic {jumps[0]}, oracle-greedy {jumps[1]}; logic's jump "
          f"{statistics.mean(jump_turns) if jump_turns else float('nan'):+.2f} turns later")
    print("   logic's jumps (whose, candidates): " + "; ".join(
        f"{k} {len(v)} games, gap {statistics.mean(x[0] for x in v):+.2f} ({sum(x[0] for x in v) / len(gap):+.2f} of it), "
        f"large moves after {statistics.mean(x[1] for x in v):.1f} / {statistics.mean(x[2] for x in v):.1f}"
        for k, v in sorted(by_jump.items())))
    print(f"   {len(behind)} games 3 turns or more behind hold {sum(behind) / max(1, len(gap)):+.2f} of the gap")
    print(f"   won by one only (logic / oracle-greedy): {'; '.join(apart) or 'none'}")
    for d, index, mine, old in sorted(worst, key=lambda w: -w[0])[:dump]:
        print(f"   game {index}, {d} turns behind\n     logic:  {' '.join(mine.actions)}\n"
              f"             candidates {mine.candidates}\n     oracle: {' '.join(old.actions)}\n"
              f"             candidates {old.candidates}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--rows", default="default,free3,maze")
    parser.add_argument("--sizes", default="32,64")
    parser.add_argument("--dump", type=int, default=0, help="print the actions of the N games logic lost most turns on")
    args = parser.parse_args()
    for name in args.rows.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            row(name, size, args.games, args.seed, args.dump)


if __name__ == "__main__":
    main()
