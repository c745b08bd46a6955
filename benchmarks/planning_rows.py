"""The planning table of issue 44: `logic` against `oracle`, old (greedy rules) and new (planned).

Run with the project's Python:

    .venv/bin/python benchmarks/planning_rows.py                              # seed 11, 300 games a size
    .venv/bin/python benchmarks/planning_rows.py --seeds 11,23 --games 300 --jobs 2
    .venv/bin/python benchmarks/planning_rows.py --agents logic,oracle --rows default,maze

Each row is one `treasure bench --json` run (children of this process, so the
numbers are the command line's own) on the islands of one shape and size:
`default` (the generator's defaults), `free3` (`--free-turn 3`, the pirate out
early) and `maze` (`--style maze`), at 32x32 and 64x64. Every agent plays the
same islands with the same game seeds, so two agents' turns can be compared
game by game: the `gap` columns are the mean, over the games both agents won,
of `turns(agent) - turns(reference)` (default reference: `oracle-greedy`,
today's oracle before planning, the bound the issue measures against), and
`± se` its standard error (the spread of the paired differences over the
square root of their number): on 300 games a row it is 0.05 to 0.2 turns,
so a change of a tenth of a turn on one row is not yet a result.
Win % is over all games, mean turns over the games won, as in `treasure bench`.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

ROWS = {
    "default": [],
    "free3": ["--free-turn", "3"],
    "maze": ["--style", "maze"],
}
TREASURE = str(Path(sys.executable).parent / "treasure")


def bench(agents: list[str], sizes: str, games: int, seed: int, jobs: int, extra: list[str],
          isolation: str = "auto") -> dict[str, object]:
    """One `treasure bench --json` run, parsed (its exit status 1 only says a game failed: kept)."""
    command = [TREASURE, "bench", "--agents", ",".join(agents), "--sizes", sizes, "--games", str(games),
               "--seed", str(seed), "--jobs", str(jobs), "--json", "--agent-isolation", isolation, *extra]
    out = subprocess.run(command, capture_output=True, text=True, check=False)
    if not out.stdout.strip():
        sys.exit(f"{' '.join(command)} printed nothing: {out.stderr}")
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def table(data: dict[str, object], agents: list[str], reference: str, label: str) -> list[str]:
    """One line per size and agent: wins, mean turns, the paired gap to `reference`."""
    games: list[dict[str, object]] = data["games"]  # type: ignore[assignment]
    by: dict[tuple[str, str, int], dict[str, object]] = {(g["agent"], g["size"], g["index"]): g  # type: ignore[misc]
                                                          for g in games}
    lines = []
    for size in sorted({str(g["size"]) for g in games}, key=lambda s: int(s.split("x")[0])):
        for agent in agents:
            mine = [g for g in games if g["agent"] == agent and g["size"] == size]
            won = [g for g in mine if g["outcome"] == "WIN"]
            turns = sum(int(g["turns"]) for g in won) / len(won) if won else float("nan")  # type: ignore[call-overload]
            diffs = []
            for g in won:
                other = by.get((reference, size, int(g["index"])))  # type: ignore[call-overload]
                if other is not None and other["outcome"] == "WIN":
                    diffs.append(int(g["turns"]) - int(other["turns"]))  # type: ignore[call-overload]
            gap = sum(diffs) / len(diffs) if diffs else float("nan")
            se = (math.sqrt(sum((d - gap) ** 2 for d in diffs) / (len(diffs) - 1) / len(diffs))
                  if len(diffs) > 1 else float("nan"))
            ms = [float(s["median_ms_turn"]) for s in data["stats"]  # type: ignore[attr-defined]
                  if s["agent"] == agent and s["size"] == size and s.get("median_ms_turn") is not None]
            lines.append(f"{label:<8} {size:<7} {agent:<14} {len(mine):>5} {100 * len(won) / max(len(mine), 1):>6.1f} "
                         f"{turns:>10.2f} {gap:>+10.2f} {se:>6.2f} {ms[0] if ms else float('nan'):>8.3f}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", default="logic-greedy,logic,oracle-greedy,oracle")
    parser.add_argument("--reference", default="oracle-greedy", help="the agent the gap columns compare with")
    parser.add_argument("--rows", default="default,free3,maze")
    parser.add_argument("--sizes", default="32,64")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seeds", default="11")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--agent-isolation", default="auto",
                        help="for agents that are not built in (none: a file agent of your own, in-process)")
    args = parser.parse_args()
    agents = args.agents.split(",")
    if args.reference not in agents:
        agents.append(args.reference)
    for seed in (int(s) for s in args.seeds.split(",")):
        print(f"seed {seed}, {args.games} games a size")
        print(f"{'row':<8} {'size':<7} {'agent':<14} {'games':>5} {'win %':>6} {'mean turns':>10} "
              f"{'gap':>10} {'± se':>6} {'ms/turn':>8}")
        for row in args.rows.split(","):
            data = bench(agents, args.sizes, args.games, seed, args.jobs, ROWS[row], args.agent_isolation)
            print("\n".join(table(data, agents, args.reference, row)), flush=True)


if __name__ == "__main__":
    main()
