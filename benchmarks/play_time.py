"""Milliseconds of play per bench game: `play_game` alone, on islands made as the bench makes them.

    .venv/bin/python benchmarks/play_time.py [--sizes 32,64] [--games 1000] [--agent logic] [--passes 3]

For each size: the bench's islands (`iter_tasks` and `task_island`, masks
precomputed) are generated first, untimed, then every game is played once per
pass with `keep_events=False`, as `treasure bench` plays it; each pass gets
freshly generated islands, so nothing an island keeps from one game (its hint
and pirate tables) helps the next pass. Prints the mean ms per game of each
pass, in wall time and in the process's CPU time (steadier on a shared
machine: time spent waiting for a core is not counted), and a digest of the
games' outcomes, which must not change when only speed does. One process,
one core.
"""

from __future__ import annotations

import argparse
import hashlib
import time

from treasure_cli.play.bench import BenchOptions, iter_tasks, task_island
from treasure_cli.play.games import play_game


def play_pass(size: int, games: int, agent: str) -> tuple[float, float, str]:
    """(wall ms per game, CPU ms per game, outcome digest) of one pass over fresh islands."""
    options = BenchOptions(agents=(agent,), sizes=(size,), games=games)
    tasks = [task for _, task in iter_tasks(options)]
    islands = [task_island(task, options) for task in tasks]  # untimed, as in the bench
    outcomes = []
    start, cpu = time.perf_counter(), time.process_time()
    for task, island in zip(tasks, islands):
        record, _ = play_game(island, agent, task.game_seed, map_name=f"bench-{size}x{size}-{task.index}",
                              keep_events=False, index=task.index, island_seed=task.island_seed)
        outcomes.append((record.outcome, record.reason, record.turns))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return 1000.0 * seconds / games, 1000.0 * cpu / games, hashlib.sha256(repr(outcomes).encode()).hexdigest()[:12]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="32,64")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--agent", default="logic")
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    print("| size | games | wall ms per game (each pass) | CPU ms per game (each pass) | outcomes |")
    print("|---|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        runs = [play_pass(size, args.games, args.agent) for _ in range(args.passes)]
        assert len({digest for *_, digest in runs}) == 1, "the same games gave other outcomes"
        wall, cpu = (" ".join(f"{run[i]:.3f}" for run in runs) for i in (0, 1))
        print(f"| {size} | {args.games} | {wall} | {cpu} | {runs[0][2]} |")


if __name__ == "__main__":
    main()
