"""Kill a whole `treasure bench --db` run (SIGKILL, its workers too) and run it again: the store ends
with exactly the rows of a run that was never interrupted, and the rerun plays only what was missing."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

from helpers import ROOT, gated_agent

from treasure_cli.play.bench import BenchOptions
from treasure_cli.grading.store import Store
from treasure_cli.grading.tournament import run_tournament

MAPS = sorted((ROOT / "input").glob("MAP_*.txt"))[:3]  # 16, 32, 64


def recorded(path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            return db.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


def hidden_maps(tmp_path):
    """A copy of MAPS in a folder of its own."""
    maps = tmp_path / "hidden"
    maps.mkdir()
    for m in MAPS:
        (maps / m.name).write_bytes(m.read_bytes())
    return maps


def untimed(path) -> list:
    with Store(path) as store:
        return sorted((dataclasses.replace(r, seconds=0.0, finished_at="", id=None) for r in store.rows()),
                      key=lambda r: r.key)


def test_sigkill_then_rerun_gives_the_rows_of_an_uninterrupted_run(tmp_path):
    maps = hidden_maps(tmp_path)
    db = tmp_path / "r.sqlite"
    # A third agent waits at its first action until `gate` exists: once both workers wait in its
    # games (two markers), the run is held mid-way and the kill cannot come after its end.
    gated, gate, markers = gated_agent(tmp_path)
    agents = ("logic", "greedy", gated)
    args = [sys.executable, "-m", "treasure_cli", "bench", "--agents", ",".join(agents), "--maps", str(maps),
            "--games", "12", "--seed", "4", "--db", str(db), "--jobs", "2", "--agent-isolation", "process"]
    total = len(agents) * 12 * len(MAPS)
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while len(os.listdir(markers)) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the workers never reached the gated agent's games"
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)  # the command, its pool workers and agents, no chance to clean up
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    kept = recorded(db)
    assert 2 <= kept < total  # each worker finished a game before it took a gated one

    gate.touch()
    rerun = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{kept} games already in {db}; {total - kept} to play" in rerun.stderr
    said = re.search(r"(\d+) games played in [\d.]+ s, (\d+) already", rerun.stdout)
    assert said and (int(said[1]), int(said[2])) == (total - kept, kept)

    options = BenchOptions(agents=agents, maps=tuple(str(maps / m.name) for m in MAPS), games=12, seed=4,
                           isolation="process")
    run_tournament(options, tmp_path / "clean.sqlite", jobs=1,
                   map_names={str(maps / m.name): m.name for m in MAPS})  # named under --maps, as the command does
    assert untimed(db) == untimed(tmp_path / "clean.sqlite")
    assert len(untimed(db)) == total


def test_ctrl_c_says_how_many_games_are_kept_and_how_to_go_on(tmp_path):
    maps = hidden_maps(tmp_path)
    db = tmp_path / "r.sqlite"
    args = [sys.executable, "-m", "treasure_cli", "tournament", "--with", "logic,greedy", "--maps", str(maps),
            "--games", "40", "--seed", "4", "--db", str(db)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while recorded(db) < 5 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    said = re.search(r"stopped: (\d+) of 240 games played and kept in .*r\.sqlite \((\d+) in all\); "
                     r"the same command plays the rest", err)
    assert said and int(said[1]) == int(said[2]) == recorded(db) and 5 <= recorded(db) < 240, err
