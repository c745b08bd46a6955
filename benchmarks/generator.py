"""Milliseconds per generated island, numpy steps and compiled steps (islands/generator.py).

    .venv/bin/python benchmarks/generator.py [--sizes 32,64] [--islands 1000] [--rounds 5]

The islands are the bench's (`island_seed(1, size, i)`, square, default
options), each from its own `np.random.default_rng(seed)` as the bench makes
them (the Generator's creation is included). The two ways run in
alternating rounds, so both see the same machine load; the table gives the
median and the best round. Both make the same islands
(tests/islands/test_generator_compiled.py).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from treasure_cli.islands import generator
from treasure_cli.rules.seeds import bench_island_seed as island_seed


def per_island_ms(size: int, seeds: list[int], steps) -> float:
    start = time.perf_counter()
    for seed in seeds:
        generator._generate(size, size, None, None, None, None, None, np.random.default_rng(seed), steps)
    return (time.perf_counter() - start) / len(seeds) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="32,64")
    parser.add_argument("--islands", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ways = [("numpy", generator.PYTHON_STEPS)]
    if generator.COMPILED_STEPS is not None:
        ways.append(("compiled", generator.COMPILED_STEPS))
    print("| size | steps | ms per island (median) | best |")
    print("|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        seeds = [island_seed(1, size, i) for i in range(args.islands)]
        times: dict[str, list[float]] = {name: [] for name, _ in ways}
        for _name, steps in ways:  # warm-up: imports, caches
            per_island_ms(size, seeds[:5], steps)
        for _ in range(args.rounds):
            for name, steps in ways:
                times[name].append(per_island_ms(size, seeds, steps))
        for name, _ in ways:
            print(f"| {size} | {name} | {statistics.median(times[name]):.3f} | {min(times[name]):.3f} |")


if __name__ == "__main__":
    main()
