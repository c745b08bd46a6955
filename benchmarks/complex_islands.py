"""`treasure run` on islands whose walking distances are long: snakes, thin corridors, mazes.

Run with the project's Python:

    .venv/bin/python benchmarks/complex_islands.py                       # the default shapes
    .venv/bin/python benchmarks/complex_islands.py --shapes snake:129,thin:30000 --max-turns 10

Shapes (`kind:size`):

- `snake:N`  an N x N island whose walkable land is one corridor one tile wide,
  folded row after row (walls of mountains between the rows): the pirate's
  walk from the prison at one end to the treasure at the other is ~N²/2 tiles.
- `thin:W`   a W x 3 island: one walkable row between two rows of sea, the
  prison at the west end, the treasure at the east end.
- `maze:N`   `treasure generate --style maze` at N x N.

The maps are written here, apart from the generator (except `maze`), as
other programs would write them. Each map is run once per repeat by
`treasure run MAP OUT` in a child process; the row gives the median wall
seconds and the largest peak resident memory of the child (getrusage), the
result and the turns. `--max-turns` applies to every row (default: the
game's own 4·(W+H)).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np  # (the makers'; the parent stays small: the maps are made in children)

DEFAULT_SHAPES = "snake:129,snake:257,snake:513,thin:30000,thin:1000000,maze:64,maze:256"
COLUMNS = ("map", "tiles", "result", "turns", "run s (median)", "peak MB")


def snake_island(n: int):
    """An n x n island: sea border, rows 1, 3, 5... walkable, joined at alternate ends."""
    from treasure_cli.rules.island import Island

    regions = np.zeros((n, n), dtype=np.int32)
    regions[1:-1, 1:-1] = 1
    # Four land regions in horizontal bands, so region hints mean something.
    band = max(1, (n - 2) // 4)
    for k in range(4):
        regions[1 + k * band: n - 1 if k == 3 else 1 + (k + 1) * band, 1:-1] = k + 1
    mountain = np.zeros((n, n), dtype=bool)
    rows = list(range(1, n - 1, 2))
    for i, r in enumerate(rows[:-1]):  # the wall below row r, open at one end
        if r + 1 >= n - 1:
            break
        mountain[r + 1, 1:-1] = True
        mountain[r + 1, n - 2 if i % 2 == 0 else 1] = False
    if n % 2 == 0:  # the last inner row has no row below to join: make it wall
        mountain[n - 2, 1:-1] = True
    prison = np.zeros((n, n), dtype=bool)
    prison[1, 1] = True
    last = rows[-1] if rows[-1] < n - 1 and not mountain[rows[-1], 1] else rows[-2]
    end_col = n - 2 if (rows.index(last)) % 2 == 0 else 1
    return Island(regions, mountain, prison, 2, 3, (last, end_col))  # the pirate walks from turn 3


def thin_island(w: int):
    """A w x 3 island: sea above and below one walkable row."""
    from treasure_cli.rules.island import Island

    regions = np.zeros((3, w), dtype=np.int32)
    regions[1] = 1 + np.arange(w) * 4 // w  # four regions along the row
    mountain = np.zeros((3, w), dtype=bool)
    prison = np.zeros((3, w), dtype=bool)
    prison[1, 0] = True
    return Island(regions, mountain, prison, 2, 3, (1, w - 1))


def maze_island(n: int, seed: int = 1):
    from treasure_cli.islands.generator import generate_island

    return generate_island(n, n, style="maze", rng=np.random.default_rng(seed))


MAKERS = {"snake": snake_island, "thin": thin_island, "maze": maze_island}


def make_map(kind: str, size: int, folder: Path) -> Path:
    """The map's file, made once in a child process: a child forked from a parent that
    built a big map would start with the parent's memory counted in its peak."""
    path = folder / f"{kind}_{size}.txt"
    if not path.exists():
        subprocess.run([sys.executable, __file__, "--make", f"{kind}:{size}", "--cache", str(folder)], check=True)
    return path


def run_once(map_path: Path, out: Path, max_turns: int | None, agent: str) -> tuple[float, float, dict]:
    """One `treasure run` in a child: wall seconds, peak MB of the child, its JSON row."""
    cmd = [sys.executable, "-m", "treasure_cli", "run", str(map_path), str(out), "--json", "--agent", agent]
    if max_turns is not None:
        cmd += ["--max-turns", str(max_turns)]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stdout = proc.stdout.read()
    stderr = proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak_mb = usage.ru_maxrss / 1024  # KB on Linux
    try:
        row = json.loads(stdout)
    except json.JSONDecodeError:
        row = {"error": (stderr or stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]}
    return wall, peak_mb, row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", default=DEFAULT_SHAPES, help="kind:size,... (snake, thin, maze)")
    ap.add_argument("--max-turns", type=int, default=None)
    ap.add_argument("--thin-max-turns", type=int, default=10,
                    help="--max-turns for thin corridors when --max-turns is not given (default 10)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--agent", default="logic")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "treasure-complex-islands")
    ap.add_argument("--make", metavar="KIND:SIZE", help=argparse.SUPPRESS)  # the child that writes one map
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    if args.make:
        from treasure_cli.formats.map_file import write_map

        kind, size = args.make.split(":")
        write_map(MAKERS[kind](int(size)), args.cache / f"{kind}_{size}.txt")
        return
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for spec in args.shapes.split(","):
        kind, size = spec.split(":")
        path = make_map(kind, int(size), args.cache)
        turns_cap = args.max_turns if args.max_turns is not None else (args.thin_max_turns if kind == "thin" else None)
        walls, peaks, row = [], [], {}
        with tempfile.TemporaryDirectory() as out:
            for _ in range(args.repeat):
                wall, peak, row = run_once(path, Path(out), turns_cap, args.agent)
                walls.append(wall)
                peaks.append(peak)
        game = row[0] if isinstance(row, list) and row else row
        result = "?"
        if isinstance(game, dict):
            result = game.get("error") or game["outcome"] + ("" if game["reason"] == "found" else f" ({game['reason']})")
        shape = f"{kind} {size}x{size}" if kind != "thin" else f"thin {size}x3"
        if turns_cap is not None:
            shape += f", --max-turns {turns_cap}"
        tiles = int(size) * (3 if kind == "thin" else int(size))
        print(f"| {shape} | {tiles:,} | {result} | {game.get('turns', '?') if isinstance(game, dict) else '?'} | "
              f"{statistics.median(walls):.2f} | {max(peaks):.0f} |", flush=True)


if __name__ == "__main__":
    main()
