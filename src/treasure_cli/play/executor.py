"""Where games are played: in this process, or in a pool of worker processes.

`run`, `bench` and `check-agent` hand their work here as pure tasks (a
function and its arguments, all plain values) and get results back as
they finish. The pool is bounded in what it holds in flight, so huge runs
keep memory flat, and never starts more workers than there is work.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, TypeVar

T = TypeVar("T")


def run_tasks(fn: Callable[..., T], tasks: Iterable[tuple], jobs: int = 1, *,
              start_method: str | None = None) -> Iterator[tuple[int, T]]:
    """Yield (position in `tasks`, fn(*task)) as each task finishes, in any order.

    `jobs` ≤ 1 plays in this process, in order. `start_method` picks how
    workers start ("fork", "spawn", "forkserver"; default: the platform's).
    """
    tasks = list(tasks)
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
