"""How far the tournament's ETA is from the truth, on real `treasure tournament` runs (issue 40: within
30 % after the first tenth of the games).

    .venv/bin/python benchmarks/eta_accuracy.py [--shape NAME ...] [--scale 1.0] [--repeat 1] [--jobs 2] [--seed 1]
                                                [--keep-traces DIR] [--side-by-side]
    .venv/bin/python benchmarks/eta_accuracy.py --replay DIR/*.jsonl [--estimate old_progress.py]

Each shape is a small class played by the real command (`python -m treasure_cli tournament`, a fresh
store, --seed 1 unless given) in a temporary folder. The command logs every estimate it makes, after each game,
with its time (TREASURE_CLI_ETA_TRACE, cli/progress.py): the ETA the progress line would show. The
truth is the time from that estimate to the end of the last game. For a tenth, a quarter, half, three
quarters and nine tenths of the games, the script prints the error of the ETA, (ETA - truth) / truth, and, beside it, the error
of a plain rate (the time since the command started per game done, times the games left).

--replay plays kept traces again through this checkout's estimate, or through another version's
(--estimate FILE: `git show main:src/treasure_cli/grading/progress.py > old.py`): two models compared
on the same real runs, whose machine's load (the truth's noise) is then the same.

The shapes (each 10-40 s with --jobs 2 on a quiet 2-core machine; --scale 3 plays 3x the games):
  builtins  the built-in agents only (logic, logic-greedy, greedy, random), 1-20 ms a game
  files     four file agents (copies of built-ins) in the sandbox, on 32x32 maps
  slow      three file agents and one 30x slower (it works 15 ms of CPU an action)
  sizes     four file agents on maps of 32x32 and 64x64 (the 64s are played first)
  mixed     two file agents with the built-ins logic, greedy and random
  slowsizes three file agents and one 30x slower, on maps of 16x16 and 48x48
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TREASURE = [sys.executable, "-m", "treasure_cli"]
KINDS = [("greedy", "treasure_cli.agents.greedy", "GreedyAgent"),
         ("logic", "treasure_cli.agents.logic", "LogicAgent"),
         ("random", "treasure_cli.agents.random_agent", "RandomAgent"),
         ("logic-greedy", "treasure_cli.agents.logic", "LogicAgent")]
SLOW = """# a slow student: a copy of greedy that works {ms} ms of CPU an action
import time

from treasure_cli.agents.greedy import GreedyAgent


class Agent(GreedyAgent):
    def act(self, obs):
        end = time.process_time() + {ms} / 1000
        while time.process_time() < end:
            pass
        return super().act(obs)
"""
FRACTIONS = (0.10, 0.25, 0.50, 0.75, 0.90)


def maps(folder: Path, sizes: dict[int, int]) -> Path:
    """`sizes`: side -> how many maps; each size in a subfolder of folder/maps."""
    root = folder / "maps"
    for side, count in sizes.items():
        subprocess.run(TREASURE + ["generate", "--size", str(side), "--count", str(count), "--seed", str(side),
                                   "--output-dir", str(root / f"s{side}")], check=True, capture_output=True)
    return root


def students(folder: Path, count: int, slow_ms: float = 0.0) -> Path:
    """A class folder of `count` groups, copies of built-ins; with `slow_ms`, one more group that slow."""
    root = folder / "class"
    for i in range(count):
        name, module, cls = KINDS[i % len(KINDS)]
        group = root / f"group{i:02d}"
        group.mkdir(parents=True)
        (group / "agent.py").write_text(f"# a copy of {name}\nfrom {module} import {cls}\n\n\n"
                                        f"class Agent({cls}):\n    pass\n")
    if slow_ms:
        (root / "slowpoke").mkdir(parents=True)
        (root / "slowpoke" / "agent.py").write_text(SLOW.format(ms=slow_ms))
    return root


def shape_args(shape: str, folder: Path, scale: float) -> list[str]:
    """The tournament's arguments for a shape (maps and class written into `folder`)."""
    games = lambda n: str(max(1, round(n * scale)))  # noqa: E731
    if shape == "builtins":
        return ["--with", "logic,logic-greedy,greedy,random", "--maps", str(maps(folder, {64: 6})),
                "--games", games(30)]
    if shape == "files":
        return [str(students(folder, 4)), "--maps", str(maps(folder, {32: 8})), "--games", games(12)]
    if shape == "slow":
        return [str(students(folder, 3, slow_ms=15)), "--maps", str(maps(folder, {32: 6})), "--games", games(3)]
    if shape == "sizes":
        return [str(students(folder, 4)), "--maps", str(maps(folder, {32: 6, 64: 3})), "--games", games(8)]
    if shape == "mixed":
        return [str(students(folder, 2)), "--with", "logic,greedy,random", "--maps", str(maps(folder, {32: 8})),
                "--games", games(16)]
    if shape == "slowsizes":
        return [str(students(folder, 3, slow_ms=15)), "--maps", str(maps(folder, {16: 6, 48: 4})),
                "--games", games(3)]
    raise SystemExit(f"unknown shape {shape!r}")


def measure(shape: str, scale: float, jobs: int, keep: Path | None = None, run: int = 0, seed: int = 1,
            more: tuple[str, ...] = ()) -> dict:
    with tempfile.TemporaryDirectory(prefix="eta-") as tmp:
        folder = Path(tmp)
        args = shape_args(shape, folder, scale)
        trace = folder / "trace.jsonl"
        env = {**os.environ, "TREASURE_CLI_ETA_TRACE": str(trace)}
        start = time.monotonic()
        done = subprocess.run(TREASURE + ["tournament", *args, "--db", str(folder / "r.sqlite"), "--seed", str(seed),
                                          "--jobs", str(jobs), "--no-timing", *more],
                              env=env, capture_output=True, text=True, cwd=folder)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{shape}: the tournament failed:\n{done.stderr[-2000:]}")
        events = [json.loads(line) for line in trace.read_text().splitlines()]
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            lines = [json.dumps({"command_start": start})] + trace.read_text().splitlines()
            (keep / f"{shape}-{run}.jsonl").write_text("\n".join(lines) + "\n")
    return errors(shape, start, [e for e in events if "end" in e])


def errors(shape: str, start: float, points: list[dict]) -> dict:
    """The error of the ETA (and of a plain rate) at each of FRACTIONS of the games, from the `end`
    events of a run (each with its time, games done of total and ETA) and the command's start."""
    total = points[-1]["total"]
    end = points[-1]["t"]
    result: dict = {"shape": shape, "games": total, "seconds": end - start, "errors": {}, "plain": {}}
    for fraction in FRACTIONS:
        point = next(p for p in points if p["done"] >= math.ceil(fraction * total))
        truth = end - point["t"]
        plain = (point["t"] - start) * (total - point["done"]) / point["done"]
        eta = point["eta"] if point["eta"] is not None else float("nan")
        result["errors"][fraction] = (eta - truth) / truth if truth > 0 else float("nan")
        result["plain"][fraction] = (plain - truth) / truth if truth > 0 else float("nan")
    return result


def estimate_class(path: Path | None):
    """The Estimate of this checkout, or of another version's grading/progress.py (`git show
    REV:src/treasure_cli/grading/progress.py > old.py`), told only what that version takes."""
    import importlib.util
    import inspect

    if path is None:
        from treasure_cli.grading.progress import Estimate
        return Estimate
    spec = importlib.util.spec_from_file_location("other_progress", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    base = module.Estimate

    def takes(method, kw: dict) -> dict:
        names = inspect.signature(method).parameters
        return {k: v for k, v in kw.items() if k in names}

    class Other(base):  # type: ignore[misc,valid-type]
        def __init__(self, planned, clock, workers=None, apart=False):
            super().__init__(planned, clock=clock, **takes(base.__init__, {"workers": workers, "apart": apart}))

        def started(self, agent, tiles, key=None):
            super().started(agent, tiles, **takes(base.started, {"key": key}))

        def finished(self, agent, tiles, seconds, failed=False, busy=None, key=None, actions=None):
            super().finished(agent, tiles, seconds, failed,
                             **takes(base.finished, {"busy": busy, "key": key, "actions": actions}))
    return Other


def planned(plan: list[list], lines: list[dict]) -> list:
    """The games a trace's plan gave the estimate, each with its key and unit (its map and seed:
    the tournament's key less the agent's two parts). A trace kept before the plan said them
    (agent and tiles only) has them in its games' `start` events, every game of the plan handed
    over once: those are taken instead."""
    from treasure_cli.grading.progress import Planned

    if plan and len(plan[0]) == 5:  # with its island (a run under FairShare's passes)
        return [Planned(a, t, tuple(key), tuple(unit), island) for a, t, key, unit, island in plan]
    if plan and len(plan[0]) == 4:
        return [Planned(a, t, tuple(key), tuple(unit)) for a, t, key, unit in plan]
    starts = [(e["start"], e["tiles"], tuple(e["key"])) for e in lines if "start" in e and e.get("key")]
    if len(starts) != len(plan):
        return [Planned(a, t) for a, t in plan]
    return [Planned(a, t, key, key[2:]) for a, t, key in starts]


def replay(path: Path, workers: int | None = None, model: Path | None = None) -> dict:
    """A kept trace played again through the estimate of this checkout (grading/progress.py), or of
    `model`, on a fake clock at the trace's times: what that ETA would have said on that run (to
    compare two models on the same runs; the run's own numbers are what the command showed)."""
    Estimate = estimate_class(model)

    lines = [json.loads(line) for line in path.read_text().splitlines()]
    start = lines[0]["command_start"]
    now = [start]
    estimate = None
    points = []
    for e in lines[1:]:
        now[0] = e["t"]
        if "plan" in e:
            estimate = Estimate(planned(e["plan"], lines), clock=lambda: now[0], workers=e.get("workers", workers),
                                apart=e.get("apart", False))
        elif estimate is not None and "flight" in e:  # the games in flight, as the workers' board said
            if hasattr(estimate, "playing"):  # (an older estimate does not take them)
                estimate.playing([(tuple(key), seconds, actions) for key, seconds, actions in e["flight"]])
        elif estimate is not None and "start" in e:
            estimate.started(e["start"], e["tiles"], tuple(e.get("key") or ()) or None)
        elif estimate is not None and "end" in e:
            estimate.finished(e["end"], e["tiles"], e["seconds"], e["failed"], busy=e.get("busy"),
                              key=tuple(e.get("key") or ()) or None, actions=e.get("actions"))
            points.append({"t": e["t"], "done": estimate.done, "total": estimate.total, "eta": estimate.remaining()})
    return errors(path.stem, start, points)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", action="append",
                        choices=["builtins", "files", "slow", "sizes", "mixed", "slowsizes"])
    parser.add_argument("--scale", type=float, default=1.0, help="games per map x this (longer runs)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1,
                        help="the tournament's --seed: which games are played (each repeat plays the same ones)")
    parser.add_argument("--json", action="store_true", help="one JSON line per run instead of the table")
    parser.add_argument("--apart", action="store_true",
                        help="play with `tournament --apart` (the tournament's default: kept for old commands)")
    parser.add_argument("--side-by-side", action="store_true", help="play with `tournament --side-by-side`")
    parser.add_argument("--keep-traces", type=Path, metavar="DIR", help="keep each run's trace in DIR")
    parser.add_argument("--replay", type=Path, nargs="+", metavar="TRACE",
                        help="play kept traces again through this checkout's estimate (plays no game; --jobs: "
                             "the workers of a trace that does not say)")
    parser.add_argument("--estimate", type=Path, metavar="PROGRESS.py",
                        help="with --replay: the grading/progress.py of another version instead of this one")
    options = parser.parse_args()
    shapes = options.shape or ["builtins", "files", "slow", "sizes", "mixed", "slowsizes"]
    if not options.json:
        print(f"{'shape':9} {'games':>5} {'run s':>6}   ETA error at 10% / 25% / 50% / 75% / 90%   (plain rate's)")
    if options.replay:
        runs = (replay(path, options.jobs, options.estimate) for path in options.replay)
    else:
        runs = (measure(shape, options.scale, options.jobs, options.keep_traces, k, options.seed,
                        ("--apart",) if options.apart else ("--side-by-side",) if options.side_by_side else ())
                for k in range(options.repeat) for shape in shapes)
    worst, within, count, tenths, points = 0.0, 0, 0, [], 0
    for r in runs:
        worst = max(worst, abs(r["errors"][0.10]))
        within += abs(r["errors"][0.10]) <= 0.3
        count += 1
        tenths.append(abs(r["errors"][0.10]))
        points += sum(abs(r["errors"][f]) <= 0.3 for f in FRACTIONS)
        if options.json:
            print(json.dumps(r))
            continue
        errors = " / ".join(f"{100 * r['errors'][f]:+5.0f}%" for f in FRACTIONS)
        plain = " / ".join(f"{100 * r['plain'][f]:+5.0f}%" for f in FRACTIONS)
        print(f"{r['shape']:9} {r['games']:5d} {r['seconds']:6.1f}   {errors}   ({plain})", flush=True)
    if not options.json:
        print(f"worst error at 10 %: {100 * worst:.0f} %; within 30 % at 10 %: {within} of {count} runs, "
              f"median error {100 * statistics.median(tenths):.0f} %; within 30 % at every point: {points} of "
              f"{len(FRACTIONS) * count}")


if __name__ == "__main__":
    main()
