"""Where games are played: in this process, in a pool of worker processes, or on a Dask cluster.

`run`, `bench` and `check-agent` hand their work here as pure tasks (a
function and its arguments, all plain values) and get results back as
they finish. The pool never starts more workers than there is work, holds
a bounded number of tasks in flight (huge runs keep memory flat, and tasks
may come from a generator), and never outlives the process that started
it: an exception, Ctrl-C or SIGTERM in the parent ends the workers at
once, and on Linux a worker also ends if the parent is killed outright.

With `scheduler` (a Dask scheduler's address) the same tasks go to a
Dask distributed cluster instead; dask is an optional extra, imported only
then. A worker that dies costs only its tasks in flight: Dask runs them
again elsewhere.

Workers start by `spawn` unless asked otherwise: forking a process that runs threads (numpy's
BLAS, Dask's client) can deadlock the child, Python 3.12+ warns about it, and macOS and
Windows never fork by default. Spawned workers are the pool's own children, so on Linux the
kernel ends them when it dies, even by SIGKILL. TREASURE_CLI_START_METHOD (fork, spawn,
forkserver) chooses another: the forkserver starts workers faster (it has imported the game
once), and a thread in each of its workers ends it with the pool's process (_end_with).
Everything a worker gets is pickled (plain values, importable functions), so any method
plays the same games.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from treasure_cli.errors import TreasureError

if TYPE_CHECKING:  # the pool's modules are imported when a pool starts: a run in this process needs none (~25 ms)
    import ctypes
    from concurrent.futures import ProcessPoolExecutor

T = TypeVar("T")
# A task source may yield WAIT instead of a task: "nothing to start until a task in flight
# ends" (the tournament's fair share of the workers). Only while tasks are in flight.
WAIT: tuple = ("treasure-cli: wait for a task to end",)
RECOUNT_SECONDS = 1.0  # how often a run on a Dask cluster counts its threads again (workers may join)
START_METHOD_VARIABLE = "TREASURE_CLI_START_METHOD"
PR_SET_PDEATHSIG = 1
DASK_MISSING = ("playing on a Dask cluster needs dask.distributed, which is not installed: "
                "pip install 'treasure-cli[dask]'")


def _libc() -> ctypes.CDLL:
    """The C library, on Linux: the symbols the process has loaded already (libc among them).

    Not ctypes.util.find_library("c"): on Linux that runs `ldconfig -p` in a
    subprocess, 4-15 ms at every worker's start.
    """
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _worker_start(counter: Any = None, parent: int | None = None, board: Any = None) -> None:
    """Leave interruptions to the parent, and die with it; take the next worker number (and its
    slot on `board`, play/pulse.py, where its games say how far they are).

    `parent` is the pid of the process that runs the pool. A worker it started itself (fork,
    spawn) gets SIGTERM from the kernel when it dies (Linux). A worker started by the
    forkserver is the server's child, not the pool's: the kernel would tell it nothing, and
    the server lives as long as its workers do (each holds the pipe whose end it waits for),
    so a watch thread ends the worker when `parent` ends. The server then ends too.
    """
    if counter is not None:
        with counter.get_lock():
            number, counter.value = counter.value, counter.value + 1
        from treasure_cli.sandbox import process as agent_process

        agent_process.WORKER_NUMBER = number
        if board is not None:
            from treasure_cli.play import pulse

            pulse.attach(board, number)
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C reaches the whole group: the parent cleans up
    signal.signal(signal.SIGTERM, signal.SIG_DFL)   # not the parent's handler, inherited by fork
    started_by_parent = parent is None or os.getppid() == parent
    if started_by_parent and sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            _libc().prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if parent is not None and os.getppid() != parent:  # it died before the prctl
            os.kill(os.getpid(), signal.SIGTERM)
    elif parent is not None and os.name == "posix":
        _end_with(parent)


def _end_with(parent: int) -> None:
    """A daemon thread sends this process SIGTERM once process `parent` has ended.

    A pidfd (Linux 5.3+) becomes readable when the process ends; elsewhere the thread looks
    twice a second (signal 0 only asks whether the pid exists).
    """
    try:
        pidfd: int | None = os.pidfd_open(parent)
    except ProcessLookupError:
        os.kill(os.getpid(), signal.SIGTERM)
        return
    except (AttributeError, OSError):
        pidfd = None

    def watch() -> None:
        if pidfd is not None:
            select.select([pidfd], [], [])
        else:
            while True:
                time.sleep(0.5)
                try:
                    os.kill(parent, 0)
                except ProcessLookupError:
                    break
                except PermissionError:
                    pass  # alive (its pid taken by another user's process is not likely here)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="treasure-parent-watch", daemon=True).start()


def choose_start_method(asked: str | None = None) -> str:
    """How worker processes start: `asked`, else TREASURE_CLI_START_METHOD, else spawn
    (module docstring: why not fork, nor the forkserver)."""
    import multiprocessing

    available = multiprocessing.get_all_start_methods()
    method = asked or os.environ.get(START_METHOD_VARIABLE, "").strip()
    if not method:
        return "spawn"
    if method not in available:
        raise TreasureError(f"{START_METHOD_VARIABLE} (or start_method) must be one of {', '.join(available)} "
                            f"on this platform, got {method!r}")
    return method


def run_tasks(fn: Callable[..., T], tasks: Iterable[tuple], jobs: int = 1, *, start_method: str | None = None,
              count: int | None = None, scheduler: str | None = None, shipped: Mapping[str, bytes] | None = None,
              on_workers: Callable[[int], None] | None = None, board: Any = None) -> Iterator[tuple[int, T]]:
    """Yield (position in `tasks`, fn(*task)) as each task finishes, in any order.

    `jobs` ≤ 1 plays in this process, in order. `start_method` picks how
    workers start ("fork", "spawn", "forkserver"; default: `choose_start_method()`).
    `count` is the number of tasks when `tasks` is a generator (it caps the
    workers without reading the generator ahead); a generator may yield `WAIT`
    while tasks are in flight, and is asked again when one ends. `scheduler`
    ("tcp://host:8786") sends the tasks to that Dask cluster instead (`jobs`
    is then ignored: the cluster's threads decide); `fn` must be importable there.

    On a cluster, `shipped` (digest -> bytes: agents' files, play/shipping.py) goes once to
    each worker, which receives it (`shipping.receive`) before its first task; here, where the
    files are, it is not needed.
    `on_workers(n)` is told, before the first task is asked for, how many tasks can run at
    once (`jobs`, or the cluster's threads), and on a cluster again when that changes.
    `board` (play/pulse.py `new_board(jobs)`): each worker process writes its game's progress there
    (not on a cluster, nor in this process).
    """
    if scheduler is not None:
        yield from _dask_tasks(fn, _numbered(tasks), scheduler, shipped or {}, on_workers)
        return
    if count is None:
        tasks = list(tasks)
        count = len(tasks)
    workers = min(jobs, count)
    if on_workers is not None:
        on_workers(max(1, workers))
    feed = _numbered(tasks)
    if workers <= 1:
        for i, task in feed:
            if task is WAIT:
                raise RuntimeError("a task source said WAIT with no task in flight")
            yield i, fn(*task)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from treasure_cli.sandbox import cgroups

    cgroups.settle()  # (a cgroup v2 referee moves into a leaf of its own before its workers start)
    context = multiprocessing.get_context(choose_start_method(start_method))
    if context.get_start_method() == "forkserver":
        # The server imports the task's module (numpy and the game with it) once; each worker
        # forked from it starts with them loaded instead of importing them again.
        context.set_forkserver_preload([fn.__module__])
    counter = context.Value("i", 0)  # each worker's number: the core it shares with its agents
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_start,
                               initargs=(counter, os.getpid(), board))
    try:
        pending: dict[Any, int] = {}

        def top_up() -> None:
            while len(pending) < 4 * workers:
                nxt = next(feed, None)
                if nxt is None or nxt[1] is WAIT:
                    if nxt is not None and not pending:
                        raise RuntimeError("a task source said WAIT with no task in flight")
                    return
                with signals_held():
                    pending[pool.submit(fn, *nxt[1])] = nxt[0]

        top_up()
        while pending:
            try:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
            except BaseException:
                # Ctrl-C or SIGTERM while waiting: hand over the tasks that had ended by then
                # (a tournament keeps each finished game), then stop.
                ended = [f for f in pending if f.done() and not f.cancelled() and f.exception() is None]
                for future in ended:
                    yield pending.pop(future), future.result()
                raise
            for future in done:
                yield pending.pop(future), future.result()
                top_up()
    except BaseException:
        _stop_now(pool)
        raise
    pool.shutdown(wait=True)


def _numbered(tasks: Iterable[tuple]) -> Iterator[tuple[int, tuple]]:
    """(position, task) of each task, WAIT passed through unnumbered."""
    i = 0
    for task in tasks:
        if task is WAIT:
            yield -1, task
        else:
            yield i, task
            i += 1


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block is over: here a `submit` (which may start a
    worker), in `run_maps` a log's write and its count.

    Interrupted inside Process.start(), after the worker was forked or spawned but before the
    pool learned its pid, the pool could not end it: it would outlive us, then die on the
    terminal with a traceback when the semaphores it was to inherit are gone (the forkserver
    takes seconds to start on a loaded machine, the widest window). The signal is handled
    as soon as the submit returns, with the handler that was there.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = [s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None)) if s is not None]
    previous = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in held}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for s in caught[:1]:
            signal.raise_signal(s)


def _stop_now(pool: ProcessPoolExecutor) -> None:
    """End the workers without waiting for the games they are playing."""
    import multiprocessing

    pool.shutdown(wait=False, cancel_futures=True)
    # The pool's manager thread may still be starting a worker: repeat until none is left.
    deadline = time.monotonic() + 10
    while (children := multiprocessing.active_children()) and time.monotonic() < deadline:
        for child in children:
            child.terminate()
        for child in children:
            child.join(timeout=1)
    # Its manager thread then closes the pool's wakeup pipe. Python's exit hook for pools
    # (concurrent.futures.process._python_exit) writes to that pipe: if the two ran at once,
    # 3.11's hook could write to a pipe just closed and print "Exception ignored ... Bad file
    # descriptor" on the way out of Ctrl-C or SIGTERM. Let the thread finish first.
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None and manager is not threading.current_thread():
        manager.join(timeout=max(deadline - time.monotonic(), 1.0))


# glibc's mallopt parameters, and the values its own heuristics reach on 64-bit Linux.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD, _TRIM_THRESHOLD = 32 << 20, 64 << 20
_allocator_checked = False


def _restore_malloc_thresholds() -> None:
    """Undo, in a Dask worker, the allocator setting that made our games 1.5-2x slower there.

    Dask's nanny starts each worker with MALLOC_TRIM_THRESHOLD_=65536, and
    setting any threshold turns off glibc's dynamic mmap threshold: it stays
    at 128 KiB, so every numpy temporary above that (one bool mask of a
    512x512 map, a float field of 128x128) is mmapped, zero-filled and
    unmapped again, many times a turn. The same 24 games of a 256x256 map took
    1.45-1.57 s with that variable set and 0.93 s after this call. The values
    are the ones glibc's heuristics would have reached by themselves;
    anything larger than 32 MiB is still mmapped and returned at once.
    """
    global _allocator_checked
    if _allocator_checked:
        return
    _allocator_checked = True
    if not sys.platform.startswith("linux") or "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = _libc()
        libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
        libc.mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)


def _on_dask_worker(fn: Callable[..., T], *args: Any) -> T:
    """A task as a Dask worker runs it."""
    _restore_malloc_thresholds()
    return fn(*args)


def _dask_tasks(fn: Callable[..., T], feed: Iterator[tuple[int, tuple]], address: str,
                shipped: Mapping[str, bytes], on_workers: Callable[[int], None] | None) -> Iterator[tuple[int, T]]:
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
        if on_workers is not None:
            on_workers(threads)
        high, low = 4 * threads + 4, 2 * threads + 2
        pending: dict[Any, int] = {}
        files = None
        if shipped:  # once to each worker, before its first task (play/dask_files.py), not with every task
            from treasure_cli.play.dask_files import Files

            files = Files(dict(shipped))
            try:
                client.register_plugin(files, name=files.name)
            except Exception as exc:  # a worker without this treasure-cli, say
                raise TreasureError(f"the Dask workers at {address} could not take the agents' files: "
                                    f"{type(exc).__name__}: {exc} (is the same treasure-cli installed there?)") from None

        def refill() -> list:
            # In batches: one client.map is one graph update on the scheduler, which costs
            # about as much for a dozen tasks as one submit does for one.
            batch = list(itertools.takewhile(lambda t: t[1] is not WAIT, itertools.islice(feed, high - len(pending))))
            if not batch:
                return []
            futures = client.map(_on_dask_worker, [fn] * len(batch), *zip(*(task for _, task in batch)), pure=False)
            pending.update(zip(futures, (i for i, _ in batch)))
            return futures

        counted = time.monotonic()

        def recount() -> None:
            # A worker may join (or leave) the cluster mid-run: its threads are counted once a
            # second, for the tasks kept in flight and for the fair share (`on_workers`).
            nonlocal threads, high, low, counted
            if time.monotonic() - counted < RECOUNT_SECONDS:
                return
            counted = time.monotonic()
            now = sum(client.nthreads().values())
            if now and now != threads:
                threads, high, low = now, 4 * now + 4, 2 * now + 2
                if on_workers is not None:
                    on_workers(threads)

        try:
            running = as_completed(refill(), loop=client.loop, with_results=True)
            for future, result in running:
                if future.status != "finished":
                    result = future.result()  # a cancelled task raises here (errors raise in `running`)
                i = pending.pop(future)
                future.release()
                yield i, result
                recount()
                if len(pending) <= low:
                    running.update(refill())
        finally:
            if files is not None:  # workers started from now on need none of it
                with contextlib.suppress(Exception):
                    client.unregister_worker_plugin(files.name)
