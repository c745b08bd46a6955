"""Where games are played: in this process, in a pool of worker processes, or on a Dask cluster.

`run`, `bench` and `check-agent` hand their work here as pure tasks (a
function and its arguments, all plain values) and get results back as
they finish. The pool is bounded in what it holds in flight, so huge runs
keep memory flat, and never starts more workers than there is work.

With `scheduler` (a Dask scheduler's address) the same tasks go to a
Dask distributed cluster instead; dask is an optional extra, imported only
then. A worker that dies costs only its tasks in flight: Dask runs them
again elsewhere.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, TypeVar

from treasure_cli.errors import TreasureError

T = TypeVar("T")
DASK_MISSING = ("playing on a Dask cluster needs dask.distributed, which is not installed: "
                "pip install 'treasure-cli[dask]'")


def run_tasks(fn: Callable[..., T], tasks: Iterable[tuple], jobs: int = 1, *,
              start_method: str | None = None, scheduler: str | None = None) -> Iterator[tuple[int, T]]:
    """Yield (position in `tasks`, fn(*task)) as each task finishes, in any order.

    `jobs` ≤ 1 plays in this process, in order. `start_method` picks how
    workers start ("fork", "spawn", "forkserver"; default: the platform's).
    `scheduler` ("tcp://host:8786") sends the tasks to that Dask cluster
    instead (`jobs` is then ignored: the cluster's threads decide); `fn`
    must be importable there.
    """
    tasks = list(tasks)
    if scheduler is not None:
        yield from _dask_tasks(fn, tasks, scheduler)
        return
    workers = min(jobs, len(tasks))
    if workers <= 1:
        for i, task in enumerate(tasks):
            yield i, fn(*task)
        return
    context = multiprocessing.get_context(start_method) if start_method else None
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        pending: dict[Any, int] = {}
        feed = iter(range(len(tasks)))
        for i in feed:
            pending[pool.submit(fn, *tasks[i])] = i
            if len(pending) >= 4 * workers:
                break
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield pending.pop(future), future.result()
                nxt = next(feed, None)
                if nxt is not None:
                    pending[pool.submit(fn, *tasks[nxt])] = nxt


def _dask_tasks(fn: Callable[..., T], tasks: list[tuple], address: str) -> Iterator[tuple[int, T]]:
    """run_tasks on a Dask cluster: bounded in flight, results as they finish."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise TreasureError(DASK_MISSING) from None
    try:
        client = Client(address, timeout=10, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise TreasureError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    with client:
        threads = sum(client.nthreads().values()) or 1
        pending: dict[Any, int] = {}
        feed = iter(range(len(tasks)))
        for i in feed:
            pending[client.submit(fn, *tasks[i], pure=False)] = i
            if len(pending) >= 4 * threads + 4:
                break
        if not pending:
            return
        running = as_completed(list(pending), loop=client.loop)
        for future in running:
            i = pending.pop(future)
            result = future.result()
            future.release()
            yield i, result
            nxt = next(feed, None)
            if nxt is not None:
                new = client.submit(fn, *tasks[nxt], pure=False)
                pending[new] = nxt
                running.add(new)
