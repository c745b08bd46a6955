"""What playing an agent out of process costs: per action, per process start, per tournament.

    .venv/bin/python benchmarks/agent_isolation.py [--size 32] [--games 100] [--starts 10] [--levels process,sandbox]
                                                   [--db-games 2] [--db-maps 10]

1. Per action: the built-in `logic` agent plays `--games` bench islands of
   `--size` in this process, then the same agent given as a file spec
   (src/treasure_cli/agents/planner.py:PlanningAgent) plays the same games at each
   level; each action is timed in the referee, from the observation handed
   over to the action back. The games must be the same (their digest is
   printed); the median overhead per action is the difference of the medians.
   A second table splits the actions by their place: a game's first, a
   turn's first (new hints), a turn's second.
2. Start: a warm host started `--starts` times, and four games' processes forked by each
   (the agent loaded, hello answered): each game has a fresh process.
3. Tournament: `bench --db` of three file agents (copies of the logic agent
   file) on `--db-maps` generated maps of `--size`, `--db-games` games each,
   with two jobs, in process (isolation none) and at each level; games per second.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.map_file import write_map
from treasure_cli.sandbox import process as agent_process
from treasure_cli.play.bench import BenchOptions, iter_tasks, task_island
from treasure_cli.grading.conformance import Timed
from treasure_cli.sandbox.seat import seat
from treasure_cli.sandbox.launch import agent_launch
from treasure_cli.play.loop import play_agent
from treasure_cli.sandbox.levels import AgentLimits
from treasure_cli.grading.tournament import run_tournament
from treasure_cli.rules.game import Game

LOGIC_FILE = Path(__file__).resolve().parent.parent / "src" / "treasure_cli" / "agents" / "planner.py"  # `logic`


PLACES = ("a game's first", "a turn's first", "a turn's second")


class Placed(Timed):
    """Timed, noting each action's place in its game (PLACES): the first runs cold in a fresh
    process, a turn's first reads the turn's new hints."""

    def __init__(self, agent, times: list[float], places: list[str]):
        super().__init__(agent, times)
        self.places, self.first = places, True

    def act(self, obs):
        self.places.append(PLACES[0] if self.first else PLACES[1] if obs.actions_left == 2 else PLACES[2])
        self.first = False
        return super().act(obs)


def per_action(spec: str, level: str, islands, tasks) -> tuple[list[float], list[str], str]:
    """Each action's seconds and place, and a digest of the games' events."""
    times: list[float] = []
    places: list[str] = []
    played = []
    for task, island in zip(tasks, islands):
        with seat(spec, level, AgentLimits(), None, None) as taken:
            taken.begin(island.public())  # as play_game does: the game's process, before its time
            game = Game(island, task.game_seed, agent_name="agent", hint_truths_public=taken.hint_truths)
            events = list(play_agent(game, Placed(taken.agent, times, places)))
            taken.game_over(game)
        played.append(repr(events))
    return times, places, hashlib.sha256("".join(played).encode()).hexdigest()[:12]


def starts(level: str, n: int) -> tuple[list[float], list[float]]:
    """The agent's process started and answering hello, `n` times: the warm host's start (once per
    agent and worker), and each game's process (forked by it, the agent loaded, hello answered)."""
    launch = agent_launch(f"{LOGIC_FILE}:PlanningAgent", level)
    hosts, games = [], []
    for _ in range(n):
        process = agent_process.AgentProcess(launch, AgentLimits(), "logic")
        hosts.append(process.start_seconds)
        for _ in range(4):
            began = time.perf_counter()
            process.begin_game(time.monotonic() + 60)
            games.append(time.perf_counter() - began)
            process.end_game()
        process.close()
    return hosts, games


def tournament(level: str, folder: Path, size: int, maps: int, games: int) -> float:
    maps_dir = folder / "maps"
    if not maps_dir.exists():
        maps_dir.mkdir()
        for i in range(maps):
            write_map(generate_island(size, size, rng=np.random.default_rng(1000 + i)), maps_dir / f"MAP_{i:02d}.txt")
    specs = []
    for name in ("ann", "bob", "cyd"):
        copy = folder / f"{name}.py"
        shutil.copyfile(LOGIC_FILE, copy)
        specs.append(f"{copy}:PlanningAgent")
    options = BenchOptions(agents=tuple(specs), maps=tuple(str(p) for p in sorted(maps_dir.iterdir())),
                           games=games, seed=1, isolation=level)
    db = folder / f"{level}.sqlite"
    db.unlink(missing_ok=True)
    result = run_tournament(options, db, jobs=2)
    agent_process.close_all()
    return result.played / result.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=32)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--levels", default="process,sandbox")
    parser.add_argument("--db-games", type=int, default=2)
    parser.add_argument("--db-maps", type=int, default=10)
    args = parser.parse_args()
    levels = args.levels.split(",")

    options = BenchOptions(agents=("logic",), sizes=(args.size,), games=args.games)
    tasks = [task for _, task in iter_tasks(options)]
    islands = [task_island(task, options) for task in tasks]
    base, base_places, digest = per_action("logic", "none", islands, tasks)
    print(f"| agent ({args.games} games at {args.size}x{args.size}) | actions | median µs per action "
          f"| overhead µs | games |")
    print("|---|---|---|---|---|")
    print(f"| logic, built in, in process | {len(base)} | {1e6 * statistics.median(base):.0f} | - | {digest} |")
    by_place = {"in process": (base, base_places)}
    for level in levels:
        per_action(f"{LOGIC_FILE}:PlanningAgent", level, islands[:3], tasks[:3])  # start and warm the process
        times, places, got = per_action(f"{LOGIC_FILE}:PlanningAgent", level, islands, tasks)
        by_place[level] = (times, places)
        over = 1e6 * (statistics.median(times) - statistics.median(base))
        print(f"| logic (planner.py) as a file, {level} | {len(times)} | {1e6 * statistics.median(times):.0f} "
              f"| {over:.0f} | {got} |")
    agent_process.close_all()
    print()
    print("| median µs of an action by its place | " + " | ".join(by_place) + " |")
    print("|---|" + "---|" * len(by_place))
    for place in PLACES:
        cells = [[t for t, p in zip(*got) if p == place] for got in by_place.values()]
        print(f"| {place} | " + " | ".join(f"{1e6 * statistics.median(c):.0f}" if c else "-" for c in cells) + " |")
    print()
    print("| level | a game's process starts, median ms (min-max) | the warm host starts (once per agent and worker) |")
    print("|---|---|---|")
    for level in levels:
        hosts, games = starts(level, args.starts)
        print(f"| {level} | {1000 * statistics.median(games):.1f} ({1000 * min(games):.1f}-{1000 * max(games):.1f}) "
              f"| {1000 * statistics.median(hosts):.0f} ({1000 * min(hosts):.0f}-{1000 * max(hosts):.0f}) |")
    print()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rates = {level: tournament(level, folder, args.size, args.db_maps, args.db_games)
                 for level in ["none", *levels]}
    print(f"| bench --db, 3 file agents, {args.db_maps} maps x {args.db_games} games, --jobs 2 "
          f"| games/s | vs in process |")
    print("|---|---|---|")
    for level, rate in rates.items():
        print(f"| {level} | {rate:.3g} | {rate / rates['none']:.2f} |")


if __name__ == "__main__":
    main()
