"""The tournament's fair share on a Dask cluster: a slow agent's games never take every worker
while other agents have games waiting (side by side: with `apart`, a game that never ends holds
every island its games beside it played). The slow agent (helpers.gated_agent) waits at its first
action until a gate file appears, leaving a marker file: the test waits on those (events)."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from helpers import ROOT, gated_agent

from treasure_cli.grading.tournament import run_tournament
from treasure_cli.play.bench import BenchOptions

distributed = pytest.importorskip("distributed")

MAPS = tuple(str(p) for p in sorted((ROOT / "input").glob("MAP_*.txt"))[:2])  # 16x16, 32x32


def stored(db) -> list[str]:
    """The agent of every stored game."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return [a for (a,) in conn.execute("SELECT agent FROM games")]
    except sqlite3.OperationalError:  # not created yet
        return []


def test_a_slow_agent_holds_one_worker_of_two_while_the_others_play_on(tmp_path):
    (tmp_path / "slow").mkdir()
    spec, gate, markers = gated_agent(tmp_path / "slow")
    games = 2
    fast = 2 * games * len(MAPS)  # greedy's and random's
    options = BenchOptions(agents=(spec, "greedy", "random"), maps=MAPS, games=games, seed=3, isolation="process")
    db = tmp_path / "r.sqlite"
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=":0", worker_dashboard_address=None) as cluster:
        result: list = []
        run = threading.Thread(target=lambda: result.append(
            run_tournament(options, db, scheduler=cluster.scheduler_address, apart=False)), daemon=True)
        run.start()
        try:
            # The slow agent is given first: its first game is the first task. A second one of its
            # games may start only once no other game is left to start (a worker is never idle).
            deadline = time.monotonic() + 120
            while True:
                waiting = len(list(markers.iterdir()))
                played = sum(a != spec for a in stored(db))  # read after: at least what it was then
                assert waiting < 2 or played == fast, f"{waiting} slow games held both workers, {played} of {fast} played"
                if played == fast:
                    break
                assert run.is_alive() and time.monotonic() < deadline, "the run never got there"
                time.sleep(0.02)
            while not list(markers.iterdir()):  # (its process may start after the others' games)
                assert run.is_alive() and time.monotonic() < deadline, "the slow game never started"
                time.sleep(0.02)
            assert spec not in stored(db)  # held at the gate all along
        finally:
            gate.write_text("open")
            run.join(timeout=300)
    assert result and result[0].played == 3 * games * len(MAPS)
