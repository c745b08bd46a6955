"""A game kept is a game finished: Ctrl-C or SIGTERM keeps every game that ended, whatever the
other agents on its map and seed are doing, and a slow agent holds back only its own games.

The slow agent here (helpers.gated_agent) stops at its first action until a gate file appears,
leaving a marker file: the tests wait on those markers (events), never on sleeps.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from helpers import ROOT, gated_agent

MAPS = sorted((ROOT / "input").glob("MAP_*.txt"))[:2]  # 16x16, 32x32


def rows(db) -> list[tuple[str, str, int]]:
    """(agent, map, game index) of every stored game."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT agent, map_path, game_index FROM games").fetchall()
    except sqlite3.OperationalError:  # not created yet
        return []


def wait_for(condition, proc: subprocess.Popen, what: str, limit: float = 120) -> None:
    """Poll `condition` (an event: files, rows), failing if the command ends first or never gets there."""
    deadline = time.monotonic() + limit
    while not condition():
        assert proc.poll() is None, f"the command ended before {what}: {proc.communicate()}"
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.02)


@pytest.mark.parametrize(("jobs", "signum"), [(1, signal.SIGINT), (2, signal.SIGINT), (2, signal.SIGTERM)])
def test_a_signal_keeps_exactly_the_finished_games_beside_a_slow_agent(tmp_path, jobs, signum):
    """With two workers, side by side: with `--apart` (the default) a game that never ends holds
    every island its neighbours played until its action timeout ends it (a slow agent whose games
    do end plays last: tests/grading/test_fair_share.py); side by side, it holds one worker of two."""
    mode = "--apart" if jobs == 1 else "--side-by-side"
    maps = tmp_path / "hidden"
    maps.mkdir()
    for m in MAPS:
        (maps / m.name).write_bytes(m.read_bytes())
    spec, gate, markers = gated_agent(tmp_path)
    db = tmp_path / "r.sqlite"
    games = 3
    total = 3 * games * len(MAPS)
    proc = subprocess.Popen(
        [sys.executable, "-m", "treasure_cli", "tournament", "--with", f"greedy,random,{spec}", "--maps", str(maps),
         "--games", str(games), "--seed", "4", "--db", str(db), "--jobs", str(jobs),
         "--agent-isolation", "process", mode],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # Once every worker waits in a slow game, no other game can end: what is stored is final.
        wait_for(lambda: len(os.listdir(markers)) >= jobs, proc, f"{jobs} slow games started")
        kept = rows(db)
        os.killpg(proc.pid, signum)  # as Ctrl-C on a terminal: the command, its workers and agents
        _, err = proc.communicate(timeout=60)
    finally:
        gate.touch()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == (130 if signum == signal.SIGINT else 128 + signal.SIGTERM), err
    assert sorted(rows(db)) == sorted(kept)
    # Each game kept is a fast agent's, on a map and seed whose slow game is not done; with two
    # workers the slow agent held one of them, never both, until the others had played every game.
    assert all(agent != spec for agent, _, _ in kept)
    assert len(kept) == (2 if jobs == 1 else 2 * games * len(MAPS))
    said = re.search(rf"stopped: (\d+) of {total} games played and kept in .*r\.sqlite", err)
    assert said and int(said[1]) == len(kept), err

    # The same command then plays the rest, and only the rest.
    again = subprocess.run(proc.args, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{len(kept)} games already in {db}; {total - len(kept)} to play" in again.stderr
    assert len(rows(db)) == total


def test_fair_share_keeps_a_worker_for_the_others_and_never_leaves_one_idle():
    from types import SimpleNamespace

    from treasure_cli.grading.tournament import FairShare, _order
    from treasure_cli.play.executor import WAIT

    entries = [SimpleNamespace(agent=agent, tiles=1024 if i == 0 else 256, i=i, index=0, map_digest=f"m{i}")
               for agent in ("a", "b", "slow") for i in range(3)]
    alone, played = FairShare(entries, 1), []
    for task in alone:  # one worker: the plain order, each game started when the last one ended
        played.append(task[0][0])
        alone.ended(task[0][0].agent)
    assert played == _order(entries)

    share = FairShare(entries, 2)
    feed = iter(share)

    def started() -> str:
        task = next(feed)
        return "WAIT" if task is WAIT else f"{task[0][0].agent}{task[0][0].i}"

    assert [started() for _ in range(4)] == ["a0", "b0", "slow0", "WAIT"]  # one each (2 - 1), then wait
    seen = []
    for agent in ("a", "a", "b", "a", "b", "b"):
        share.ended(agent)
        seen.append(started())
    # a's and b's games go first while slow0 holds a worker; once they are all started and one
    # worker is free, slow gets it; then both are busy.
    assert seen == ["a1", "a2", "b1", "WAIT", "b2", "slow1"]
    assert started() == "WAIT"
