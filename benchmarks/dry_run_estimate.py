"""What `tournament --dry-run` assumes a game costs when the store knows nothing of an agent
(grading/estimate.py: DEFAULT_SECONDS, OVERHEAD_SECONDS), measured.

    .venv/bin/python benchmarks/dry_run_estimate.py [--sizes 16,32,64] [--maps 3] [--games 2,8] [--level sandbox]

For each size it writes `--maps` maps (`treasure generate --seed 1`), and plays two real
tournaments on them (`--games` the two counts, a fresh store each) with one worker (`--jobs 1`)
of one submission: a Python file agent that is the built-in `logic` planner (a student's agent
of middling cost, in a process of its own like every submission), at `--level`. The difference
of the two runs' wall times over the difference of their games is what one more game costs a
worker (start-up of its process and the referee's work included; the run's own start-up, the
same in both, cancels out, and is printed apart). It also prints the mean of the store's
`seconds` for those games (the game's own time: what a store's history holds), and the
difference, the per-game overhead the estimate adds to a history's mean.
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENT = "from treasure_cli.agents.planner import PlanningAgent\n\n\nclass Agent(PlanningAgent):\n    pass\n"


def treasure(*args: str) -> None:
    exe = Path(sys.executable).with_name("treasure")
    done = subprocess.run([str(exe), *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"treasure {' '.join(args)} failed:\n{done.stdout}{done.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="16,32,64")
    parser.add_argument("--maps", type=int, default=3)
    parser.add_argument("--games", default="2,8")
    parser.add_argument("--level", default="sandbox", choices=["sandbox", "process", "none"])
    args = parser.parse_args()
    few, many = (int(g) for g in args.games.split(","))
    print(f"{'size':>5}  {'s/game':>7}  {'store s/game':>12}  {'overhead s':>10}  {'run start-up s':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        agent = Path(tmp) / "class" / "mid"
        agent.mkdir(parents=True)
        (agent / "agent.py").write_text(AGENT)
        for size in (int(s) for s in args.sizes.split(",")):
            maps = Path(tmp) / f"s{size}"
            treasure("generate", "--size", str(size), "--count", str(args.maps), "--seed", "1", "--output-dir", str(maps))
            walls, games, mean = [], [], 0.0
            for count in (few, many):
                db = Path(tmp) / f"s{size}-{count}.sqlite"
                began = time.perf_counter()
                treasure("tournament", str(agent), "--maps", str(maps), "--games", str(count), "--jobs", "1",
                         "--db", str(db), "--agent-isolation", args.level)
                walls.append(time.perf_counter() - began)
                with sqlite3.connect(db) as store:
                    played, mean = store.execute("SELECT COUNT(*), AVG(seconds) FROM games").fetchone()
                games.append(played)
            per_game = (walls[1] - walls[0]) / (games[1] - games[0])
            start = walls[0] - per_game * games[0]
            print(f"{size:>5}  {per_game:>7.3f}  {mean:>12.3f}  {per_game - mean:>10.3f}  {start:>14.2f}")


if __name__ == "__main__":
    main()
