"""How many games a class needs for ranks that hold: pairs of agents of known different strength,
told apart (or not) by the tournament's paired test at several numbers of games.

    .venv/bin/python benchmarks/games_needed.py [--count 5] [--games 12] [--sizes 32] [--draws 2000]

It writes a graded map set into a temporary folder, as docs/grading.md
recommends (`treasure generate --size S --difficulty normal|hard --count C
--seed 1`, for each size), plays a pool of games on it with `treasure bench
--maps DIR --recursive --games G --seed 5 --json` (logic, logic-greedy and
greedy: the same games for all three), then for each pair and each number of
games n draws `--draws` sets of n games out of the pool (the same games for
both agents, as a tournament plays them) and compares the two with the
tournament's own test (grading/tournament.compare: the paired sign test on
wins, then on turns to a win, p < 0.05). It prints, per pair and n, the share
of draws that rank the stronger agent above the other and the share that
rank the weaker one above (a rank that does not hold); n = the whole pool is
one draw. Only the game counts matter here, not the time.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from treasure_cli.grading.tournament import compare

AGENTS = ("logic", "logic-greedy", "greedy")  # strongest first (docs/agent.md, docs/grading.md)


def treasure(*args: str) -> str:
    exe = Path(sys.executable).with_name("treasure")
    return subprocess.run([str(exe), *args], check=False, capture_output=True, text=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5, help="maps of each difficulty and size")
    parser.add_argument("--games", type=int, default=12, help="games per map in the pool")
    parser.add_argument("--sizes", default="32", help="map sizes, comma-separated")
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--ns", default="10,15,20,30,60,100,150,250,300", help="numbers of games compared")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes.split(","):
            for difficulty in ("normal", "hard"):
                treasure("generate", "--size", size, "--difficulty", difficulty, "--count", str(args.count),
                         "--seed", "1", "--output-dir", f"{tmp}/{difficulty}-{size}")
        out = treasure("bench", "--agents", ",".join(AGENTS), "--maps", tmp, "--recursive", "--games",
                       str(args.games), "--seed", "5", "--json", "--jobs", str(args.jobs))
    # a game: its map, number and seed (bench names a map by its file name only: two MAP_01.txt)
    games: dict[str, dict[tuple, int | None]] = {a: {} for a in AGENTS}
    for g in json.loads(out)["games"]:
        games[g["agent"]][(g["map"], g["index"], g["seed"])] = g["turns"] if g["outcome"] == "WIN" else None
    pool = sorted(games[AGENTS[0]])
    print(f"pool: {len(pool)} games per agent ({args.count} normal + {args.count} hard maps of size "
          f"{args.sizes}, {args.games} games each); "
          + ", ".join(f"{a} wins {100 * sum(v is not None for v in games[a].values()) / len(pool):.1f} %"
                      for a in AGENTS))
    ns = [n for n in map(int, args.ns.split(",")) if n < len(pool)] + [len(pool)]
    rng = random.Random(1)
    print("| pair (stronger first) | " + " | ".join(f"{n} games" for n in ns) + " |")
    print("|---|" + "---|" * len(ns))
    for a, b in itertools.combinations(AGENTS, 2):
        cells = []
        for n in ns:
            draws = 1 if n == len(pool) else args.draws
            right = wrong = 0
            for _ in range(draws):
                keys = pool if n == len(pool) else rng.sample(pool, n)
                pair = compare(a, b, {k: games[a][k] for k in keys}, {k: games[b][k] for k in keys})
                right += pair.better == a
                wrong += pair.better == b
            cells.append(f"{100 * right / draws:.0f} %" + (f" ({100 * wrong / draws:.1f} % wrong)" if wrong else ""))
        print(f"| {a} > {b} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
