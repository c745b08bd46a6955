"""Microseconds per pirate's hint (rules/hint_draw.draw_hint) with the 15 built-in kinds, and with
the example plugin kinds (examples/hints/kinds.py) when --plugins is given.

    .venv/bin/python benchmarks/hint_draw.py [--hints 20000] [--sizes 32,64] [--plugins]

Each hint is drawn from its own stream as in a game (`Draws([seed, 1, turn])`), on a few generated
islands per size, half true, half false, before and after the prison's reveal. One process, one
core; best of 3 rounds, in the process's own CPU time (a busy machine counts less in it).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.draws import Draws
from treasure_cli.rules.hint_draw import HintContext, draw_hint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hints", type=int, default=20000)
    parser.add_argument("--sizes", default="32,64")
    parser.add_argument("--plugins", action="store_true")
    args = parser.parse_args()
    extra = {}
    if args.plugins:
        from treasure_cli.formats.hint_plugins import hint_set

        extra["kinds"] = hint_set([str(Path(__file__).parent.parent / "examples" / "hints" / "kinds.py")],
                                  "builtin=0")
    for size in (int(s) for s in args.sizes.split(",")):
        islands = [generate_island(size, size, rng=np.random.default_rng(i)) for i in range(8)]
        cases = []
        for i in range(args.hints):
            isl = islands[i % len(islands)]
            turn = 1 + i % 12
            ctx = HintContext(turn, isl.reachable_prisons[0], (size // 2, size // 2), turn >= 3)
            cases.append((isl, ctx, i % 2 == 0, [9, 1, i]))
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            for isl, ctx, truthful, key in cases:
                draw_hint(isl, isl.treasure, ctx, truthful, Draws(key), **extra)
            best = min(best, time.process_time() - start)
        print(f"{size}x{size}: {best / len(cases) * 1e6:.2f} us per hint"
              f"{' (plugin kinds only)' if args.plugins else ''}")


if __name__ == "__main__":
    main()
