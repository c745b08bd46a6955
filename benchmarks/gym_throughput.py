"""Env steps per second of TreasureIslandEnv under a random masked policy (docs/gymnasium.md).

    .venv/bin/python benchmarks/gym_throughput.py [--steps N] [--sizes 32 128]

Two settings per size: one fixed island (generated once, as `map=` an Island:
the cost of the game and the observation), and a new island every reset
(`map=None`: includes generating the island, ~5-15 ms a reset). Resets are
counted in the time. One process, one core.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from treasure_cli.islands.generator import generate_island
from treasure_cli.gym import TreasureIslandEnv


def measure(env: TreasureIslandEnv, steps: int, seed: int = 0) -> tuple[float, int]:
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    episodes = 0
    start = time.perf_counter()
    for _ in range(steps):
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(legal[rng.integers(legal.size)]))
        if terminated or truncated:
            episodes += 1
            _, info = env.reset()
    return steps / (time.perf_counter() - start), episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[32, 128])
    args = parser.parse_args()
    print(f"{'size':>8} {'island':>10} {'steps/s':>10} {'episodes':>9}")
    for size in args.sizes:
        fixed = generate_island(size, size, rng=np.random.default_rng(size))
        for label, env in (("fixed", TreasureIslandEnv(fixed)), ("new/reset", TreasureIslandEnv(size=size))):
            rate, episodes = measure(env, args.steps)
            print(f"{size:>4}x{size:<3} {label:>10} {rate:>10,.0f} {episodes:>9}")


if __name__ == "__main__":
    main()
