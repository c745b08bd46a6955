"""Worker pools start without fork (play/executor.py): by spawn by default, or by the
forkserver when TREASURE_CLI_START_METHOD says so. Here os.fork is taken away
from this process, as on a spawn-only platform; `run` and `bench` (with the tournament's
store) still play on two workers, the same games as on one, with no fork warning."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

from treasure_cli.cli import cli
from treasure_cli.errors import TreasureError
from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.map_file import write_map
from treasure_cli.play import executor

SPAWN_ONLY = os.environ.get("TREASURE_TEST_SPAWN_ONLY") == "1"


@pytest.fixture
def maps(tmp_path):
    folder = tmp_path / "maps"
    folder.mkdir()
    for i in (1, 2, 3):
        write_map(generate_island(10, 10, rng=np.random.default_rng(i)), folder / f"MAP_0{i}.txt")
    return folder


@pytest.fixture(params=["spawn", "forkserver"])
def no_fork(request, monkeypatch):
    if request.param not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {request.param} on this platform")
    if request.param == "forkserver" and SPAWN_ONLY:
        pytest.skip("the forkserver forks: the spawn_only run takes os.fork from every process")

    def forbidden(*args, **kwargs):
        raise AssertionError("os.fork called")

    monkeypatch.setattr(os, "fork", forbidden)
    monkeypatch.setenv(executor.START_METHOD_VARIABLE, request.param)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # Python 3.12+'s fork warning among them
        yield request.param


def test_run_on_two_workers_without_fork_writes_the_logs_of_one(no_fork, maps, tmp_path):
    runner = CliRunner()
    one = runner.invoke(cli, ["run", str(maps), str(tmp_path / "one"), "--jobs", "1"])
    two = runner.invoke(cli, ["run", str(maps), str(tmp_path / "two"), "--jobs", "2"])
    assert one.exit_code == 0 and two.exit_code == 0, two.output
    for log in sorted((tmp_path / "one").iterdir()):
        assert (tmp_path / "two" / log.name).read_bytes() == log.read_bytes()


def test_bench_and_its_store_on_two_workers_without_fork(no_fork, maps, tmp_path):
    args = ["bench", "--sizes", "8", "--games", "4", "--agents", "logic,greedy", "--json", "--no-timing"]
    one = CliRunner().invoke(cli, [*args, "--jobs", "1"])
    two = CliRunner().invoke(cli, [*args, "--jobs", "2"])
    assert one.exit_code == 0 and two.exit_code == 0, two.output
    assert json.loads(one.stdout) == json.loads(two.stdout)
    db = tmp_path / "results.sqlite"
    stored = CliRunner().invoke(cli, ["bench", "--agents", "logic,greedy", "--maps", str(maps), "--games", "2",
                                      "--jobs", "2", "--db", str(db)])
    assert stored.exit_code == 0, stored.output
    report = CliRunner().invoke(cli, ["bench", "--db", str(db), "--report", "--json"])
    assert report.exit_code == 0, report.output
    assert sorted(s["agent"] for s in json.loads(report.stdout)["standings"]) == ["greedy", "logic"]


def test_the_default_is_never_fork_and_a_wrong_method_is_named(monkeypatch):
    monkeypatch.delenv(executor.START_METHOD_VARIABLE, raising=False)
    assert executor.choose_start_method() == "spawn"  # the pool's own children: they die with it
    assert executor.choose_start_method("spawn") == "spawn"
    monkeypatch.setenv(executor.START_METHOD_VARIABLE, "vfork")
    with pytest.raises(TreasureError, match="TREASURE_CLI_START_METHOD.*'vfork'"):
        executor.choose_start_method()


def forkserver_children() -> list[int]:
    """Live processes our forkserver has started (from /proc)."""
    from multiprocessing import forkserver

    server = forkserver._forkserver._forkserver_pid
    found = []
    for tid in os.listdir(f"/proc/{server}/task"):
        with open(f"/proc/{server}/task/{tid}/children") as f:
            found += [int(x) for x in f.read().split()]
    alive = []
    for pid in found:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rpartition(")")[2].split()[0] != "Z":
                    alive.append(pid)
        except OSError:
            pass
    return alive


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="the forkserver's children are read from /proc")
@pytest.mark.skipif(os.environ.get("TREASURE_TEST_SPAWN_ONLY") == "1", reason="the forkserver needs os.fork")
def test_ctrl_c_while_a_worker_starts_leaves_no_worker_behind(monkeypatch):
    """Ctrl-C inside Process.start(), once the forkserver has forked the worker: the pool must
    still learn its pid and end it (not leave it to outlive the run, then die on the terminal
    with a traceback once its semaphores are gone)."""
    from multiprocessing import popen_forkserver

    real = popen_forkserver.Popen._launch

    def interrupted(self, process_obj):
        real(self, process_obj)
        signal.raise_signal(signal.SIGINT)  # after the fork, before start() registers the process

    monkeypatch.setattr(popen_forkserver.Popen, "_launch", interrupted)
    # Ctrl-C as Python (and the CLI's handler) takes it, whatever handler an earlier test left.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            list(executor.run_tasks(os.getpid, [()] * 4, jobs=2, start_method="forkserver"))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert multiprocessing.active_children() == []
    assert forkserver_children() == []  # ended and waited for by run_tasks, not left to linger
