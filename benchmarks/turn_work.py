"""The referee's own work in each turn, by treasure tile, with the plain and the even hint draw.

    .venv/bin/python benchmarks/turn_work.py [--size 32] [--tiles 8] [--games 20] [--turns 30]
        [--runs 3] [--clock cpu|wall]

What benchmarks/reply_timing.py measures through an agent's pipe, at its source:
the same island with its treasure moved among `--tiles` tiles, the same seeds
on each, and for every turn the engine's work from the action that ends it
to the next question's news encoded (Game.step, wire.encode_event), the
fastest of `--runs` plays, without any pace. Also the candidate hints tested
each turn (rules/hint_draw.py), counted. `--clock cpu` (the default) times
the process's own CPU time, which a pause of the machine does not add to.
The test by tile is reply_timing's "games shuffled": each turn against the
same turn of the same seed on the other tiles, whole games shuffled among the
tiles. With the even draw (paced games) the count must not depend on the tile.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from treasure_cli.formats import wire
from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.actions import LargeScan
from treasure_cli.rules.game import Game
from treasure_cli.rules.hint_draw import _Drawer
from treasure_cli.rules.island import Island

sys.path.insert(0, str(Path(__file__).parent))
from reply_timing import Row, _by_game  # noqa: E402  (the same test as the reply-timing benchmark)

TESTED = [0]


def _counting() -> None:
    """Count every candidate tested against the treasure (_Drawer.tester's functions)."""
    tester = _Drawer.tester

    def counting(self: _Drawer, kind: Any, treasure: Any) -> Callable[[tuple[Any, ...]], bool]:
        test = tester(self, kind, treasure)

        def counted(args: tuple[Any, ...]) -> bool:
            TESTED[0] += 1
            return test(args)
        return counted

    _Drawer.tester = counting  # type: ignore[method-assign]


def _play(island: Island, seed: int, turns: int, even: bool, clock: Callable[[], float]) -> dict[int, tuple[float, int]]:
    """Each turn's work (seconds) and candidates tested, by the turn's number (not the first)."""
    public = island.public()
    game = Game(island, seed, max_turns=turns, even=even)
    game.walk_path()
    game.start()
    game.observe()
    out: dict[int, tuple[float, int]] = {}
    turn = game.turn
    while not game.over:
        TESTED[0] = 0
        began = clock()
        game.step(LargeScan())
        if not game.over:
            for event in game.observe().news:
                wire.encode_event(event, public, True)
        took = clock() - began
        if game.turn != turn and not game.over:
            out[game.turn] = (took, TESTED[0])
            turn = game.turn
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=32)
    parser.add_argument("--tiles", type=int, default=8)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--island-seed", type=int, default=5)
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    args = parser.parse_args()
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    _counting()
    # The tiles reply_timing.py moves the treasure to, for the same island.
    island = generate_island(args.size, args.size, rng=np.random.default_rng(args.island_seed))
    tiles = np.argwhere(island.walkable & ~island.prison & (island.walk_pieces == island.walk_pieces[island.treasure]))
    picks = np.random.default_rng(0).choice(len(tiles), args.tiles, replace=False)
    islands = [dataclasses.replace(island, treasure=(int(r), int(c))) for r, c in tiles[picks]]

    print(f"{args.size}x{args.size} island, treasure on {args.tiles} tiles, {args.games} games each, at most "
          f"{args.turns} turns, each turn the fastest of {args.runs} plays ({args.clock} time)")
    print()
    print("| hint draw | turns | candidates a turn, by tile | work median (us) | by tile: medians (us) "
          "| p, games shuffled |")
    print("|---|---|---|---|---|---|")
    for even in (False, True):
        work: dict[tuple[int, int, int], float] = {}
        tested: dict[tuple[int, int, int], int] = {}
        for run in range(args.runs):
            for seed in range(args.games):
                for i in np.random.default_rng(seed * 7 + run).permutation(len(islands)):  # no tile always first
                    for turn, (took, count) in _play(islands[int(i)], seed, args.turns, even, clock).items():
                        key = (int(i), seed, turn)
                        work[key] = min(work.get(key, took), took)
                        tested[key] = count
        rows = [Row(i, took, False, i + seed * len(islands), seed, turn) for (i, seed, turn), took in work.items()]
        counts = [np.mean([n for (i, _, _), n in tested.items() if i == tile]) for tile in range(len(islands))]
        medians = [np.median([r.delay for r in rows if r.tile == tile]) * 1e6 for tile in range(len(islands))]
        print(f"| {'even' if even else 'plain'} | {len(rows)} | {min(counts):.1f} to {max(counts):.1f} | "
              f"{np.median([r.delay for r in rows]) * 1e6:.1f} | {min(medians):.1f} to {max(medians):.1f} | "
              f"{_by_game(rows, len(islands)):.3g} |")


if __name__ == "__main__":
    main()
