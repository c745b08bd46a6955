"""Ctrl-C, SIGTERM and a second run at once: never a half log, never a stray worker, a clear word."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import ROOT

from treasure_cli.formats.game_record import read_log
from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.map_file import write_map

TREASURE = [sys.executable, "-m", "treasure_cli"]


SLOW = ("import time\nfrom treasure_cli.agents.logic import LogicAgent\n\n"
        "class Slow(LogicAgent):  # the logic agent, slowed so a run lasts long enough to interrupt\n"
        "    def act(self, obs):\n        time.sleep(0.02)\n        return super().act(obs)\n")


@pytest.fixture(scope="module")
def maps(tmp_path_factory) -> tuple[Path, dict[str, str], str]:
    """Twelve 64x64 maps, a slow agent, and the logs an uninterrupted run writes."""
    root = tmp_path_factory.mktemp("maps")
    folder = root / "in"
    for i in range(12):
        write_map(generate_island(64, 64, rng=np.random.default_rng(100 + i)), folder / f"MAP_{i:02d}.txt")
    (root / "slow.py").write_text(SLOW)
    agent = f"{root / 'slow.py'}:Slow"
    subprocess.run([*TREASURE, "run", str(folder), str(root / "ref"), "--jobs", "2", "--agent", agent],
                   check=True, capture_output=True)
    return folder, {p.name: p.read_text() for p in (root / "ref").iterdir()}, agent


def gone(marker: str, seconds: float = 10.0) -> bool:
    """Whether every process naming `marker` has ended (waiting a little: a loaded machine is slow to reap)."""
    deadline = time.monotonic() + seconds
    while workers_of(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return workers_of(marker) == []


def workers_of(marker: str) -> list[int]:
    """Processes whose command line names `marker` (the run and any worker it forked)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.mark.parametrize("trial", range(4))  # each signal twice: soon after the start, and later
def test_an_interrupted_run_leaves_only_whole_logs_and_no_worker(maps, tmp_path, trial):
    folder, reference, agent = maps
    out = tmp_path / f"out-{trial}"
    sig = (signal.SIGINT, signal.SIGTERM)[trial % 2]
    proc = subprocess.Popen([*TREASURE, "run", str(folder), str(out), "--jobs", "2", "--agent", agent],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started = time.monotonic()
    while not (out / ".treasure-run.lock").exists() and time.monotonic() - started < 30:
        time.sleep(0.01)  # the run holds its folder: it is playing
    time.sleep((0.2, 0.5, 1.3, 1.8)[trial])
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal")  # the machine was quick this time
    assert proc.returncode == (130 if sig == signal.SIGINT else 143), (proc.returncode, err)
    assert "Traceback" not in err, err
    written = sorted(p.name for p in out.iterdir()) if out.exists() else []
    assert f"stopped: {len(written)} of 12 logs written in {out}, each one whole" in err, err
    for name in written:
        assert (out / name).read_text() == reference[name]  # whole, and the very game of a full run
        read_log(out / name)
    assert gone(str(out))
    again = subprocess.run([*TREASURE, "run", str(folder), str(out), "--jobs", "2", "--agent", agent],
                           capture_output=True, text=True)
    assert again.returncode == 0
    assert {p.name: p.read_text() for p in out.iterdir()} == reference


def test_a_second_run_into_the_same_folder_is_refused_while_the_first_runs(maps, tmp_path):
    folder, reference, agent = maps
    out = tmp_path / "out"
    first = subprocess.Popen([*TREASURE, "run", str(folder), str(out), "--agent", agent],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not (out / ".treasure-run.lock").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    second = subprocess.run([*TREASURE, "run", str(folder), str(out), "--seed", "9"], capture_output=True, text=True)
    first.communicate(timeout=300)
    assert first.returncode == 0
    assert second.returncode == 2
    assert f"Error: {out} is in use by another treasure run (pid {first.pid}, started " in second.stderr
    assert {p.name: p.read_text() for p in out.iterdir()} == reference  # only the first run's games


def test_a_rerun_removes_temp_files_an_interrupted_run_left(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / ".LOG_01.txt.k2j3h4.tmp").write_text("half a log")
    (out / ".notes.tmp").write_text("not ours")
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    subprocess.run([*TREASURE, "run", str(tmp_path / "MAP_01.txt"), str(out)], check=True, capture_output=True)
    assert sorted(p.name for p in out.iterdir()) == [".notes.tmp", "LOG_01.txt"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a subreaper and /proc are Linux's")
@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_no_process_outlives_a_parent_that_is_killed_outright(maps, tmp_path, method):
    """SIGKILL gives the run no chance to clean up: its workers, the forkserver and the
    agents' processes must notice by themselves. subreaper.py keeps every descendant in view,
    whatever started it and whatever its command line."""
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} on this platform")
    if method != "spawn" and os.environ.get("TREASURE_TEST_SPAWN_ONLY") == "1":
        pytest.skip(f"{method} forks: the spawn_only run takes os.fork away")
    folder, _, agent = maps
    env = {**os.environ, "TREASURE_CLI_START_METHOD": method}
    watch = subprocess.Popen([sys.executable, str(Path(__file__).with_name("subreaper.py")), *TREASURE, "run",
                              str(folder), str(tmp_path / "out"), "--jobs", "2", "--agent", agent],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    run = int(watch.stdout.readline())

    def tree() -> list[tuple[int, str]]:
        watch.stdin.write("tree\n")
        watch.stdin.flush()
        return json.loads(watch.stdout.readline())

    def agents(processes: list[tuple[int, str]]) -> int:  # agent hosts (warm ones, and their games' processes)
        return sum(("treasure_cli.sandbox.agent_host" in cmd or "treasure_cli.sandbox.warm_host" in cmd)
                   and not cmd.startswith("bwrap") for _, cmd in processes)

    deadline = time.monotonic() + 60
    seen = tree()
    while agents(seen) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)  # until both workers play a game, each with its agent's process
        seen = tree()
    assert agents(seen) >= 2, seen
    if method == "forkserver":
        assert any("forkserver" in cmd for _, cmd in seen), seen
    os.kill(run, signal.SIGKILL)
    survivors, _ = watch.communicate("survivors\n", timeout=60)
    alive = [f"{pid} {cmd[:90]}" for pid, cmd in json.loads(survivors)]
    assert alive == [], f"alive after the run was killed: {alive}; before: {[cmd[:90] for _, cmd in seen]}"


def test_a_terminated_bench_ends_its_workers_too(maps, tmp_path):
    folder, _, agent = maps
    marker = tmp_path / "bench-marker"
    marker.mkdir()
    proc = subprocess.Popen([*TREASURE, "bench", "--maps", str(folder), "--agents", agent, "--games", "20",
                             "--jobs", "2", "--seed", "1", "--max-turns", str(len(str(marker)) + 100)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=marker)
    time.sleep(2.0)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "Traceback" not in err, err
    # the workers are the main process's children: none may outlive it
    assert gone(f"--max-turns\x00{len(str(marker)) + 100}")


def test_a_pool_that_cannot_start_its_workers_says_so_and_leaves_none(monkeypatch):
    import errno

    from concurrent.futures import ProcessPoolExecutor

    from treasure_cli.play import executor

    real_submit = ProcessPoolExecutor.submit
    calls = []

    def submit(self, fn, *args, **kwargs):
        calls.append(fn)
        if len(calls) == 3:  # as when a process limit is reached while the pool grows
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        return real_submit(self, fn, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", submit)
    with pytest.raises(BlockingIOError):
        list(executor.run_tasks(time.sleep, [(0.2,)] * 6, jobs=4))
    assert __import__("multiprocessing").active_children() == []


class _Stop(Exception):
    pass


def test_a_signal_while_a_log_is_written_comes_after_the_log_is_counted(tmp_path, monkeypatch):
    """SIGTERM right after a log's write (the race CI once caught: "8 of 12 logs written" beside 9)."""
    from treasure_cli.play import runner

    for name in ("MAP_01.txt", "MAP_02.txt"):
        shutil.copy(ROOT / "input" / name, tmp_path / name)
    real_keep = runner._keep

    def keep_then_signal(record, text, target):
        kept = real_keep(record, text, target)
        os.kill(os.getpid(), signal.SIGTERM)  # handled at once, unless held
        return kept

    def stop(signum, frame):
        raise _Stop

    monkeypatch.setattr(runner, "_keep", keep_then_signal)
    previous = signal.signal(signal.SIGTERM, stop)
    counted = []
    try:
        with pytest.raises(_Stop):
            runner.run_maps(sorted(tmp_path.glob("MAP_*.txt")), tmp_path / "out", runner.RunOptions(),
                            on_result=lambda record: counted.append(record.log))
    finally:
        signal.signal(signal.SIGTERM, previous)
    written = sorted(p.name for p in (tmp_path / "out").glob("LOG_*.txt"))
    assert written == ["LOG_01.txt"]  # the signal stopped the run after the first game
    assert [Path(p).name for p in counted] == written  # and that log was counted first
