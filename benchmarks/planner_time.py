"""Time per action of the planning `logic` agent (and of the rules it asks first, `logic-greedy`).

Run with the project's Python:

    .venv/bin/python benchmarks/planner_time.py --size 64 --games 100
    .venv/bin/python benchmarks/planner_time.py --size 1024 --games 3
    .venv/bin/python benchmarks/planner_time.py --size 64 --games 100 --free-turn 3   # the race
    .venv/bin/python benchmarks/planner_time.py --size 64 --games 100 --switch DRAW_CHANCES=False
    .venv/bin/python benchmarks/planner_time.py --size 1024 --games 3 --free-turn 3 --cpu   # CPU time

Generates `--games` islands of the size (seed `--seed`), plays each in this
process with each agent, and times every `act` call alone (the agent's own
work, with its `explain` left out, as in a game without notes): the mean, the
median, the 99th percentile and the largest, in milliseconds. Issue 44's budget is 2 ms
an action at 64x64 and 50 ms at 1024x1024. The machine is shared: run it
twice and read the lower figures, or time by the process's CPU time
(`--cpu`), which the other jobs on the machine change much less (its
largest figures still move by a few milliseconds: caches, the collector).

Each game is played as a game's own process plays it: the warm host collects
and freezes its heap before it forks a game (sandbox/warm_host.py), so a
collection during the game walks only the game's own objects. Here the heap
is collected and frozen before each game likewise; `--no-freeze` leaves it
as it grows over the run, and then the largest action can be a collection of
this process's whole heap (at 64x64, the largest action, 7.4 ms of CPU, held
a 7.0 ms collection of the oldest generation, seen through gc.callbacks).

OpenBLAS is held to one thread here, as `treasure` holds it for every game it
plays (cli/__init__.py) and the sandbox for every agent: the verifications'
matrix products, at 1024x1024 with thousands of candidates, are the planner's
only linear algebra, and with a thread per core on a loaded 2-core machine
they took 29 to 66 ms of CPU in one action where one thread takes about 2
(round 9). A value set in the environment is kept.
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from typing import Any

for _variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy is imported
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

from treasure_cli.agents.logic import LogicAgent  # noqa: E402
from treasure_cli.agents import planner  # noqa: E402
from treasure_cli.agents.planner import PlanningAgent  # noqa: E402
from treasure_cli.agents.registry import AgentSpec  # noqa: E402
from treasure_cli.islands.generator import generate_island  # noqa: E402
from treasure_cli.play.games import play_game  # noqa: E402


def timed(cls: type[LogicAgent], times: list[float], clock: Any = time.perf_counter) -> Any:
    """A factory of agents of `cls` whose every act() adds its seconds (by `clock`) to `times`."""

    class Timed(cls):  # type: ignore[valid-type, misc]
        def act(self, obs: Any) -> Any:
            start = clock()
            action = super().act(obs)
            times.append(clock() - start)
            return action

    return Timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--style", default="island")
    parser.add_argument("--free-turn", type=int, default=None,
                        help="the turn the pirate is free (3: the race from turn 3, as planning_rows.py's free3 rows)")
    parser.add_argument("--cpu", action="store_true",
                        help="time each action by this process's CPU time, not the wall clock: what the agent "
                             "itself spent, not the time other jobs on a shared machine took from it")
    parser.add_argument("--no-freeze", action="store_true",
                        help="do not collect and freeze the heap before each game (as the warm host does for a "
                             "game's process): the collector's pauses over this process's whole heap then count")
    parser.add_argument("--switch", action="append", default=[], metavar="NAME=VALUE",
                        help="set one of agents/planner.py's constants (True, False or a number) first, "
                             "to time the planner with and without one of its ideas")
    args = parser.parse_args()
    for item in args.switch:
        name, _, value = item.partition("=")
        if not hasattr(planner, name) or not name.isupper():
            parser.error(f"--switch {item}: agents/planner.py has no constant {name}")
        old = getattr(planner, name)
        setattr(planner, name, value == "True" if isinstance(old, bool) else type(old)(value))
    print(f"{'agent':<14} {'size':>9} {'games':>5} {'actions':>7} {'mean ms':>8} {'median ms':>9} {'p99 ms':>8} {'max ms':>8}")
    for name, cls in (("logic", PlanningAgent), ("logic-greedy", LogicAgent)):
        times: list[float] = []
        spec = AgentSpec(name, timed(cls, times, time.process_time if args.cpu else time.perf_counter))
        for i in range(args.games):
            rng = np.random.default_rng([args.seed, args.size, i])
            island = generate_island(args.size, args.size, rng=rng, style=args.style, free_turn=args.free_turn)
            if not args.no_freeze:
                gc.collect()
                gc.freeze()
            play_game(island, spec, int(rng.integers(1 << 62)), map_name=f"t{i}", isolation="none",
                      keep_events=False)
        ms = np.array(times) * 1000.0
        print(f"{name:<14} {args.size:>4}x{args.size:<4} {args.games:>5} {len(ms):>7} {ms.mean():>8.3f} {np.median(ms):>9.3f} "
              f"{np.percentile(ms, 99):>8.3f} {ms.max():>8.3f}", flush=True)


if __name__ == "__main__":
    main()
