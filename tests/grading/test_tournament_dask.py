"""A tournament on a real Dask cluster (two worker processes on 127.0.0.1): the same rows as --jobs 1,
even when a worker dies in the middle of a game."""

from __future__ import annotations

import dataclasses
import os

import pytest
from helpers import ROOT

from treasure_cli.play.bench import BenchOptions
from treasure_cli.grading.store import Store
from treasure_cli.grading.tournament import run_tournament

distributed = pytest.importorskip("distributed")

MAPS = tuple(str(p) for p in sorted((ROOT / "input").glob("MAP_*.txt"))[:3])  # 16, 32, 64


@pytest.fixture
def cluster():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=":0", worker_dashboard_address=None) as c:
        yield c


def untimed(store_path) -> list:
    with Store(store_path) as store:
        rows = [dataclasses.replace(r, seconds=0.0, finished_at="", id=None) for r in store.rows()]
    return sorted(rows, key=lambda r: r.key)


def test_a_cluster_plays_the_same_games_as_one_process(tmp_path, cluster):
    # Workers load the file agent from the bytes sent with each task (play_entry), not from the file.
    student = tmp_path / "student.py"
    student.write_text("from treasure_cli.agents.greedy import GreedyAgent as Student\n")
    options = BenchOptions(agents=("logic", "random", f"{student}:Student"), maps=MAPS, games=3, seed=5)
    local = run_tournament(options, tmp_path / "local.sqlite", jobs=1)
    remote = run_tournament(options, tmp_path / "dask.sqlite", scheduler=cluster.scheduler_address)
    assert remote.played == local.played == 27
    assert untimed(tmp_path / "dask.sqlite") == untimed(tmp_path / "local.sqlite")
    assert len(cluster.scheduler_info["workers"]) == 2


KILLER = """
import os
from pathlib import Path
from treasure_cli.agents.logic import LogicAgent


class Killer(LogicAgent):
    # Kills the worker process that plays game 1 on the 64x64 map, the first time only.
    def act(self, obs):
        marker = Path({marker!r})
        if obs.island.width == 64 and obs.turn == 2 and not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)
        return super().act(obs)
"""


def test_a_worker_killed_mid_game_costs_only_its_games_in_flight(tmp_path, cluster):
    marker = tmp_path / "killed"
    agent = tmp_path / "killer.py"
    agent.write_text(KILLER.format(marker=str(marker)))
    # In the worker's own process (isolation "none"): an agent in a process of its own could not kill it.
    options = BenchOptions(agents=("greedy", f"{agent}:Killer"), maps=MAPS, games=3, seed=2, isolation="none")
    with distributed.Client(cluster) as client:
        before = set(client.run(os.getpid).values())
    assert len(before) == 2
    remote = run_tournament(options, tmp_path / "dask.sqlite", scheduler=cluster.scheduler_address)
    assert marker.exists() and int(marker.read_text()) in before  # a worker really died mid-game
    assert remote.played == 18 and len(remote.rows) == 18
    with Store(tmp_path / "dask.sqlite") as store:
        assert len(store) == 18 and len(store.keys()) == 18  # every game once
    run_tournament(options, tmp_path / "local.sqlite", jobs=1)  # the marker exists: nobody dies
    assert untimed(tmp_path / "dask.sqlite") == untimed(tmp_path / "local.sqlite")
    assert os.getpid() != int(marker.read_text())
