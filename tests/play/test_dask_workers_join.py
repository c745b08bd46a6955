"""A worker that joins a Dask cluster mid-run is counted: the tasks kept in flight grow with the
cluster's threads, and the fair share is told (`on_workers`), so the new worker plays too."""

from __future__ import annotations

import threading
import time

import pytest

from treasure_cli.play import executor
from treasure_cli.play.executor import run_tasks

distributed = pytest.importorskip("distributed")


GATE = threading.Event()  # set once a second worker has joined (the workers are threads of this process)


def where(k: int) -> str:
    """A task that waits for the gate (but the first two), then says which worker played it."""
    if k >= 2:
        GATE.wait(timeout=60)
    time.sleep(0.05)
    return distributed.get_worker().address


def test_a_worker_that_joins_mid_run_is_counted_and_plays(monkeypatch):
    monkeypatch.setattr(executor, "RECOUNT_SECONDS", 0.0)
    GATE.clear()
    told: list[int] = []
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0", worker_dashboard_address=None) as cluster:
        results = run_tasks(where, ((k,) for k in range(40)), scheduler=cluster.scheduler_address,
                            on_workers=told.append)
        seen = []
        for _, worker in results:
            seen.append(worker)
            if len(seen) == 2:  # the run is going: a second worker joins
                cluster.scale(2)
                cluster.sync(cluster._correct_state)
                deadline = time.monotonic() + 30
                while len(cluster.scheduler.workers) < 2:
                    assert time.monotonic() < deadline, "the second worker never joined"
                    time.sleep(0.05)
                GATE.set()
    assert told[0] == 1 and told[-1] == 2, told
    assert len(set(seen[2:])) == 2, "the worker that joined played nothing"
