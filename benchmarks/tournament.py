"""Throughput of a tournament (docs/tournament.md): the cost of the results store, and Dask scaling.

    .venv/bin/python benchmarks/tournament.py store   [--agents 20] [--maps 200] [--size 32] [--jobs 2]
    .venv/bin/python benchmarks/tournament.py dask    [--maps 8] [--size 256] [--games 2] [--repeat 1]
    .venv/bin/python benchmarks/tournament.py resume  [--maps 40] [--size 32]

store:  the same games (A file agents x M maps x 1 game) through plain `treasure bench --maps`
        and through `treasure bench --maps --db` (a fresh store), wall time of each command.
        The agents are copies of the built-ins written as file agents (file.py:Class), as a
        class's submissions would be.
dask:   the games of a tournament on a dask LocalCluster of 1 and of 2 worker processes
        (one thread each), games per second of each (--repeat N alternates them N times),
        and the CPU per game of the games, of the workers' Dask threads and of the
        client + scheduler process (Linux /proc).
resume: SIGKILL `treasure bench --db` half-way, run it again, count the games replayed.
Everything runs in a temporary folder; the maps are generated with `treasure generate`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TREASURE = [sys.executable, "-m", "treasure_cli"]
KINDS = [("logic", "treasure_cli.agents.logic", "LogicAgent"),
         ("greedy", "treasure_cli.agents.greedy", "GreedyAgent"),
         ("random", "treasure_cli.agents.random_agent", "RandomAgent")]


def make_maps(folder: Path, count: int, size: int) -> Path:
    maps = folder / "hidden"
    subprocess.run(TREASURE + ["generate", "--size", str(size), "--count", str(count), "--seed", "1",
                               "--output-dir", str(maps)], check=True, capture_output=True)
    return maps


def make_agents(folder: Path, count: int) -> list[str]:
    """`count` student-like file agents: copies of the built-ins, each in its own file."""
    specs = []
    (folder / "students").mkdir(exist_ok=True)
    for i in range(count):
        name, module, cls = KINDS[i % len(KINDS)]
        path = folder / "students" / f"student{i:02d}.py"
        path.write_text(f"# student {i}: a copy of {name}\nfrom {module} import {cls}\n\n\n"
                        f"class Agent({cls}):\n    pass\n")
        specs.append(f"{path}:Agent")
    return specs


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - start


def store(ns) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        maps = make_maps(folder, ns.maps, ns.size)
        agents = ",".join(make_agents(folder, ns.agents))
        common = TREASURE + ["bench", "--agents", agents, "--maps", str(maps), "--games", "1",
                             "--jobs", str(ns.jobs)]
        games = ns.agents * ns.maps
        for attempt in range(ns.repeat):
            plain = timed(common)
            db = folder / f"r{attempt}.sqlite"
            stored = timed(common + ["--db", str(db)])
            with sqlite3.connect(db) as conn:
                rows = conn.execute("SELECT count(*) FROM games").fetchone()[0]
            again = timed(common + ["--db", str(db)])  # everything recorded: plays nothing
            print(f"{games} games ({ns.agents} agents x {ns.maps} maps of {ns.size}x{ns.size}), --jobs {ns.jobs}: "
                  f"plain bench {plain:.1f} s, with --db {stored:.1f} s ({stored / plain:.2f}x, {rows} rows), "
                  f"rerun with --db {again:.1f} s")


def _cpu_seconds(pids: list[int]) -> dict[tuple[int, int], float]:
    """CPU seconds (user + system) of every thread of these processes, by (pid, tid), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"/proc/{pid}/task"):
                with contextlib.suppress(OSError):
                    fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
                    out[(pid, int(tid))] = (int(fields[11]) + int(fields[12])) / tick
    return out


def _worker_pids() -> list[int]:
    import psutil  # a dependency of distributed

    return [child.pid for child in psutil.Process().children(recursive=True)]


def dask(ns) -> None:
    """Games per second on 1 and on 2 workers, alternating, and where the CPU goes.

    With 2 cores and 2 workers, every CPU second the tournament's own process
    (client and in-process scheduler) and the workers' event loops spend per
    game is taken from the games, so the CPU split per game is printed too.
    """
    from distributed import LocalCluster

    from treasure_cli.play.bench import BenchOptions
    from treasure_cli.grading.tournament import run_tournament

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        maps = make_maps(folder, ns.maps, ns.size)
        options = BenchOptions(agents=("logic", "greedy"), maps=tuple(str(p) for p in sorted(maps.glob("*.txt"))),
                               games=ns.games)
        rates: dict[int, list[float]] = {1: [], 2: []}
        for attempt in range(ns.repeat):
            for workers in (1, 2):
                with LocalCluster(n_workers=workers, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
                    pids = [os.getpid(), *_worker_pids()]
                    before = _cpu_seconds(pids)
                    start = time.perf_counter()
                    result = run_tournament(options, folder / f"w{workers}-{attempt}.sqlite",
                                            scheduler=cluster.scheduler_address)
                    seconds = time.perf_counter() - start
                    after = _cpu_seconds(pids)
                spent = {k: after[k] - before.get(k, 0.0) for k in after}
                ours = sum(v for (pid, _), v in spent.items() if pid == os.getpid())
                # In a worker the busiest thread runs the games; the rest is Dask's own work.
                games_cpu = dask_cpu = 0.0
                for pid in pids[1:]:
                    threads = sorted((v for (p, _), v in spent.items() if p == pid), reverse=True)
                    games_cpu += threads[0] if threads else 0.0
                    dask_cpu += sum(threads[1:])
                played = result.played
                rates[workers].append(played / seconds)
                print(f"{workers} worker(s): {played} games on {ns.size}x{ns.size} in {seconds:.1f} s, "
                      f"{played / seconds:.2f} games/s; CPU ms per game: games {games_cpu * 1e3 / played:.1f}, "
                      f"workers' Dask threads {dask_cpu * 1e3 / played:.1f}, "
                      f"client + scheduler process {ours * 1e3 / played:.1f}")
        ratios = [two / one for one, two in zip(rates[1], rates[2])]
        print("speed-up of 2 workers over 1: " + ", ".join(f"{r:.2f}x" for r in ratios)
              + (f" (median {statistics.median(ratios):.2f}x)" if len(ratios) > 1 else ""))


def resume(ns) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        maps = make_maps(folder, ns.maps, ns.size)
        db = folder / "r.sqlite"
        args = TREASURE + ["bench", "--agents", "logic,greedy,random", "--maps", str(maps), "--games", "2",
                           "--db", str(db), "--jobs", str(ns.jobs)]
        total = 3 * 2 * ns.maps
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

        def count() -> int:
            try:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                    return conn.execute("SELECT count(*) FROM games").fetchone()[0]
            except sqlite3.OperationalError:
                return 0

        while count() < total // 2 and proc.poll() is None:
            time.sleep(0.005)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        kept = count()
        rerun = subprocess.run(args, capture_output=True, text=True, check=True)
        line = [x for x in rerun.stderr.splitlines() if "already in" in x]
        print(f"{total} games; SIGKILL with {kept} recorded; the rerun says: {line[0] if line else '?'}. "
              f"Work lost = the games running or queued in the pool at the kill (at most 4 x --jobs = "
              f"{4 * ns.jobs}); every recorded game was kept.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["store", "dask", "resume"])
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--maps", type=int)
    parser.add_argument("--size", type=int)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=1)
    ns = parser.parse_args()
    defaults = {"store": (200, 32), "dask": (8, 256), "resume": (40, 32)}[ns.what]
    ns.maps = ns.maps or defaults[0]
    ns.size = ns.size or defaults[1]
    {"store": store, "dask": dask, "resume": resume}[ns.what](ns)


if __name__ == "__main__":
    main()
