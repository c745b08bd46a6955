"""The whole job, map read to log written, per island size.

Run with the project's Python:

    .venv/bin/python benchmarks/whole_job.py                      # 16 64 256 1024 4096
    .venv/bin/python benchmarks/whole_job.py --sizes 16,64 --games 50

For each size it plays logic-agent games on generated maps (cached in a temp
folder: a 4096x4096 map takes a while to generate) and prints one table row
of medians per size: map read, the island's derived masks, the game, the log
formatting and atomic write, the total per game, ms per turn, and the peak
resident memory. Each size runs in its own child process so the peak of one
size does not show in another's row.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_SIZES = (16, 64, 256, 1024, 4096)
# Games per size when --games is not given: enough for a stable median, yet
# the 4096 row stays within about a minute.
DEFAULT_GAMES = {16: 200, 64: 100, 256: 20, 1024: 3, 4096: 1}
MAPS_PER_SIZE = 5  # games cycle over this many distinct maps
COLUMNS = ("size", "games", "read ms", "masks ms", "game ms", "log ms", "total ms", "turns", "ms/turn", "peak MB")


def map_paths(size: int, count: int, seed: int, cache: Path) -> list[Path]:
    """`count` generated maps of `size`, written once and reused from `cache`."""
    import numpy as np

    from treasure_cli.islands.generator import generate_island
    from treasure_cli.formats.map_file import write_map

    paths = []
    for i in range(count):
        path = cache / f"MAP_{size}_{seed + i}.txt"
        if not path.exists():
            write_map(generate_island(size, size, rng=np.random.default_rng(seed + i)), path)
        paths.append(path)
    return paths


def measure(size: int, games: int, seed: int, cache: Path) -> dict:
    """Play `games` games of one size in this process; medians in ms and the peak RSS."""
    from treasure_cli.formats.atomic import write_text_atomic
    from treasure_cli.formats.game_record import format_log
    from treasure_cli.formats.map_file import read_map
    from treasure_cli.play.games import build_game
    from treasure_cli.play.loop import play_agent

    paths = map_paths(size, min(games, MAPS_PER_SIZE), seed, cache)
    times: dict[str, list[float]] = {k: [] for k in ("read", "masks", "game", "log", "total", "per_turn")}
    turns = []
    with tempfile.TemporaryDirectory(prefix="whole-job-logs-") as out:
        for g in range(games):
            path = paths[g % len(paths)]
            t0 = time.perf_counter()
            island = read_map(path)
            t1 = time.perf_counter()
            # The island's cached masks (Island.precompute), built on their own so the table
            # shows what they cost apart from the play itself. (The game does not read the full
            # treasure distance: its pirate needs the BFS only up to his prison.)
            island.precompute()
            t2 = time.perf_counter()
            game, agent = build_game(island, "logic", seed + g, map_name=path.name)
            events = list(play_agent(game, agent))
            t3 = time.perf_counter()
            write_text_atomic(Path(out) / f"LOG_{g}.txt", format_log(events))
            t4 = time.perf_counter()
            for key, seconds in (("read", t1 - t0), ("masks", t2 - t1), ("game", t3 - t2), ("log", t4 - t3),
                                 ("total", t4 - t0)):
                times[key].append(seconds * 1e3)
            turns.append(game.result.turn)
            times["per_turn"].append((t3 - t2) * 1e3 / max(1, game.result.turn))
    row = {k: statistics.median(v) for k, v in times.items()}
    row.update(size=size, games=games, turns=statistics.median(turns),
               peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)  # KiB on Linux
    return row


def format_row(row: dict) -> str:
    cells = (f"{row['size']}", f"{row['games']}", f"{row['read']:.2f}", f"{row['masks']:.2f}", f"{row['game']:.2f}",
             f"{row['log']:.2f}", f"{row['total']:.2f}", f"{row['turns']:g}", f"{row['per_turn']:.3f}",
             f"{row['peak_mb']:.0f}")
    return "| " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                        help="comma-separated square map sizes (default: %(default)s)")
    parser.add_argument("--games", type=int, help="games per size (default: fewer for larger sizes)")
    parser.add_argument("--seed", type=int, default=1, help="first map seed and game seed (default: 1)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "treasure-whole-job-maps",
                        help="folder of generated maps, reused between runs (default: %(default)s)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # child process: measure this size only
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    if args.one is not None:
        print(json.dumps(measure(args.one, args.games, args.seed, args.cache)))
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for size in sizes:
        games = args.games if args.games is not None else DEFAULT_GAMES.get(size, 10)
        # Maps are generated here, before the child starts, so neither the
        # generator's time nor its memory shows in the row.
        map_paths(size, min(games, MAPS_PER_SIZE), args.seed, args.cache)
        child = subprocess.run(
            [sys.executable, __file__, "--one", str(size), "--games", str(games), "--seed", str(args.seed),
             "--cache", str(args.cache)],
            check=True, capture_output=True, text=True,
        )
        print(format_row(json.loads(child.stdout.strip().splitlines()[-1])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
