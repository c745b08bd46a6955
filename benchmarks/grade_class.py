"""The time to grade a class with `treasure tournament` and its defaults (the sandbox, a fresh
process for every game, a control group for each game where the machine gives them).

    .venv/bin/python benchmarks/grade_class.py                       # 40 agents x 30 maps x 5 games
    .venv/bin/python benchmarks/grade_class.py --agents 8 --maps 6 --games 2   # a scaled-down class
    .venv/bin/python benchmarks/grade_class.py --side-by-side        # with tournament --side-by-side

The class: `--agents` Python file agents (copies of the built-ins logic, greedy and random, in
turn, each in its own file, as students' submissions would be) and `--maps` maps of 32x32,
48x48 and 64x64 in turn (made with `treasure generate`), `--games` games per map and agent:
agents x maps x games sandboxed games, in a fresh results store, with --jobs (default: every
CPU). Prints the command, its wall time, games per second, and what the full class (40 x 30 x 5,
6,000 games) would take at that rate. Everything runs in a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TREASURE = [sys.executable, "-m", "treasure_cli"]
KINDS = [("logic", "treasure_cli.agents.logic", "LogicAgent"),
         ("greedy", "treasure_cli.agents.greedy", "GreedyAgent"),
         ("random", "treasure_cli.agents.random_agent", "RandomAgent")]
SIZES = (32, 48, 64)
FULL = 40 * 30 * 5


def make_class(folder: Path, agents: int, maps: int) -> tuple[Path, Path]:
    students = folder / "students"
    students.mkdir()
    for i in range(agents):
        name, module, cls = KINDS[i % len(KINDS)]
        (students / f"student{i:02d}.py").write_text(
            f"# student {i}: a copy of {name}\nfrom {module} import {cls}\n\n\nclass Agent({cls}):\n    pass\n")
    hidden = folder / "hidden"
    hidden.mkdir()
    for i in range(maps):
        subprocess.run(TREASURE + ["generate", "--size", str(SIZES[i % len(SIZES)]), "--seed", str(i + 1),
                                   "-o", str(hidden / f"MAP_{i + 1:02d}.txt")], check=True, capture_output=True)
    return students, hidden


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", type=int, default=40)
    parser.add_argument("--maps", type=int, default=30)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--side-by-side", action="store_true",
                        help="play with `tournament --side-by-side` (the default keeps every game apart)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grade-class-") as tmp:
        folder = Path(tmp)
        students, hidden = make_class(folder, args.agents, args.maps)
        db = folder / "results.sqlite"
        command = ["tournament", str(students), "--maps", str(hidden), "--games", str(args.games),
                   "--db", str(db), "--jobs", str(args.jobs)] + (["--side-by-side"] if args.side_by_side else [])
        print("treasure " + " ".join(command).replace(str(folder) + "/", ""), flush=True)
        start = time.perf_counter()
        done = subprocess.run(TREASURE + command, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        with sqlite3.connect(db) as store:
            (games,) = store.execute("SELECT COUNT(*) FROM games").fetchone()
        failed = done.stdout.count("failed") if done.returncode else 0
        print(f"exit status {done.returncode}; {games} games in {seconds:.1f} s: "
              f"{games / seconds:.1f} games/s, {1000 * seconds / max(games, 1):.1f} ms a game"
              + (f" ({failed} lines of the table say failed)" if failed else ""))
        if done.returncode not in (0, 1):
            print(done.stderr[-2000:], file=sys.stderr)
        print(f"the full class ({FULL} games) at this rate: {FULL * seconds / max(games, 1) / 60:.1f} min "
              f"with --jobs {args.jobs} (load average now {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
