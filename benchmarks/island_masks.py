"""Microseconds per cached island mask, as a bench game's `Island.precompute` computes them.

    .venv/bin/python benchmarks/island_masks.py [--size 32] [--islands 500] [--rounds 5]

The islands are the bench's (`island_seed(1, size, i)`, made as
`play.bench.task_island` makes them, with the masks the generator hands
over). Each round gives every island a fresh copy (the same arrays, the
generator's masks primed again, nothing else cached) and times
`getattr(island, name)` for each name in precompute's order
(`TERRAIN_MASKS`, then `reachable_prisons`): a row is what that property
adds once the ones before it are cached. The table gives the median over
rounds of the mean per island, and the whole precompute.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.seeds import bench_island_seed as island_seed
from treasure_cli.rules.island import TERRAIN_MASKS, Island


def fresh_copy(island: Island) -> Island:
    """The island as the generator hands it over: its arrays, the three primed masks."""
    copy = Island(island.regions, island.mountain, island.prison, island.reveal_turn, island.free_turn,
                  island.treasure)
    copy.prime(walkable=island.walkable, walk_pieces=island.walk_pieces,
               treasure_distance=island.treasure_distance)
    return copy


def one_round(islands: list[Island], names: tuple[str, ...]) -> dict[str, float]:
    """Mean µs per island of each name, and of the whole precompute."""
    totals = dict.fromkeys(names, 0)
    clock = time.perf_counter_ns
    for island in islands:
        island = fresh_copy(island)
        for name in names:
            start = clock()
            getattr(island, name)
            totals[name] += clock() - start
    whole = 0
    for island in islands:
        island = fresh_copy(island)
        start = clock()
        island.precompute()
        whole += clock() - start
    totals["precompute"] = whole
    return {name: t / len(islands) / 1e3 for name, t in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=32)
    parser.add_argument("--islands", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    islands = [generate_island(args.size, args.size, rng=np.random.default_rng(island_seed(1, args.size, i)))
               for i in range(args.islands)]
    names = TERRAIN_MASKS + ("reachable_prisons",)
    one_round(islands[:20], names)  # warm-up
    rounds = [one_round(islands, names) for _ in range(args.rounds)]
    print(f"| mask ({args.size}x{args.size}, {args.islands} islands) | µs (median of {args.rounds}) | best |")
    print("|---|---|---|")
    for name in names + ("precompute",):
        values = [r[name] for r in rounds]
        print(f"| {name} | {statistics.median(values):.2f} | {min(values):.2f} |")


if __name__ == "__main__":
    main()
