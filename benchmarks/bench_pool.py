"""Where the time of a `treasure bench` run goes: the parent and each pool worker.

Runs what `treasure bench --sizes S --games N --agents A --jobs J` runs, in
this process, with the bench's steps wrapped in CPU clocks:

    .venv/bin/python benchmarks/bench_pool.py --games 5000 --jobs 2
    .venv/bin/python benchmarks/bench_pool.py --games 2000 --jobs 1

and prints the parent's start-up (imports: serial, before any worker
exists), the parent's CPU while the workers play, and per worker its
islands, chunks, CPU per island split into island generation, the island's
masks (`precompute`), the games (`play_game`) and the rest (the harness),
the wall time it spent between chunks (per island: with several agents,
play is all their games on it), and when its first and last chunks
ran. On a shared machine compare CPU figures; wall figures need a quiet one.
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import sys
import tempfile
import time

WALL0, CPU0 = time.perf_counter(), time.process_time()
importlib.import_module("treasure_cli.cli")  # the command's own first import
from treasure_cli.play import bench  # noqa: E402
from treasure_cli.play.bench import BenchOptions, run_bench, summarize  # noqa: E402
from treasure_cli.view.tables import bench_table  # noqa: E402
from treasure_cli.rules.island import Island  # noqa: E402

SPENT = {"generate": 0.0, "masks": 0.0, "play": 0.0}
FOLDER = "TREASURE_BENCH_POOL_FOLDER"  # where each process writes its lines (set by main)


def clocked(key, fn):
    def inner(*args, **kwargs):
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[key] += time.thread_time() - start
    return inner


def instrument(folder: str) -> None:
    """Wrap the bench's steps; each process appends a line per chunk to its own file in `folder`."""
    bench.generate_island = clocked("generate", bench.generate_island)
    Island.precompute = clocked("masks", Island.precompute)
    bench.play_game = clocked("play", bench.play_game)
    play_chunk = bench._play_chunk

    def chunk(tasks, options):
        wall, cpu = time.perf_counter(), time.thread_time()
        out = play_chunk(tasks, options)
        with open(os.path.join(folder, str(os.getpid())), "a") as f:
            f.write(f"{wall} {time.perf_counter()} {time.thread_time() - cpu} {len(tasks)} "
                    f"{SPENT['generate']} {SPENT['masks']} {SPENT['play']}\n")
        return out

    # Pickled by name for the workers. A forked worker inherits this patch; a spawned one (or
    # one from the forkserver) imports this script as __mp_main__ and makes it again (below).
    chunk.__module__, chunk.__qualname__ = play_chunk.__module__, play_chunk.__qualname__
    bench._play_chunk = chunk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--size", type=int, default=32)
    parser.add_argument("--agents", default="logic")
    args = parser.parse_args()
    options = BenchOptions(agents=tuple(args.agents.split(",")), sizes=(args.size,), games=args.games)
    start_wall, start_cpu = time.perf_counter() - WALL0, time.process_time() - CPU0
    with tempfile.TemporaryDirectory() as folder:
        os.environ[FOLDER] = folder
        instrument(folder)
        wall, cpu = time.perf_counter(), time.process_time()
        result = run_bench(options, jobs=args.jobs, on_progress=lambda n: None)
        run_wall, run_cpu = time.perf_counter() - wall, time.process_time() - cpu
        table = time.perf_counter()
        bench_table(summarize(result.records, options.agents))
        table = time.perf_counter() - table
        workers = {name: [[float(x) for x in line.split()] for line in open(os.path.join(folder, name))]
                   for name in sorted(os.listdir(folder))}
    games = len(result.records)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"start-up (imports, before the pool): wall {start_wall:.3f} s, cpu {start_cpu:.3f} s")
    print(f"run_bench: {games} games, wall {run_wall:.3f} s ({games / run_wall:.0f} games/s); "
          f"parent cpu {run_cpu:.3f} s ({1000 * run_cpu / games:.3f} ms a game; with --jobs 1 it plays them), "
          f"workers' cpu {children.ru_utime + children.ru_stime:.3f} s; table {1000 * table:.1f} ms")
    ends = []
    for name, rows in workers.items():
        n = sum(r[3] for r in rows)
        cpu = sum(r[2] for r in rows)
        last = rows[-1]
        rest = cpu - last[4] - last[5] - last[6]
        gaps = sum(max(0.0, b[0] - a[1]) for a, b in zip(rows, rows[1:]))
        ends.append(last[1] - wall)
        print(f"process {name}: {n:.0f} islands in {len(rows)} chunks, first chunk at {rows[0][0] - wall:.3f} s, "
              f"last done at {last[1] - wall:.3f} s; cpu {1000 * cpu / n:.3f} ms an island = generate "
              f"{1000 * last[4] / n:.3f} + masks {1000 * last[5] / n:.3f} + play {1000 * last[6] / n:.3f} + rest "
              f"{1000 * rest / n:.3f}; {gaps:.3f} s between chunks")
    print(f"tail: the last process finished {max(ends) - min(ends):.3f} s after the first; "
          f"run_bench returned {run_wall - max(ends):.3f} s after the last chunk")


if __name__ == "__main__":
    sys.exit(main())
elif os.environ.get(FOLDER):  # a worker started by spawn or the forkserver
    instrument(os.environ[FOLDER])
