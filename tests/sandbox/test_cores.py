"""Where a game's referee and its agent's process run (sandbox/process.py, `Cores`)."""

from __future__ import annotations

import os

import pytest

from treasure_cli.sandbox import process as agent_process
from treasure_cli.sandbox.process import AgentProcess, Cores
from treasure_cli.sandbox.launch import agent_launch
from treasure_cli.sandbox.levels import AgentLimits

CPUS = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
pytestmark = pytest.mark.skipif(len(CPUS) < 2, reason="placing a game on cores needs two CPUs or more")


@pytest.fixture()
def process(tmp_path):
    agent = tmp_path / "scanner.py"
    agent.write_text("from treasure_cli import LargeScan\n\n\nclass Scanner:\n"
                     "    def act(self, obs):\n        return LargeScan()\n")
    proc = AgentProcess(agent_launch(f"{agent}:Scanner", "process"), AgentLimits(), "scanner")
    yield proc
    proc.close()


def test_a_referee_playing_alone_gives_its_agent_the_other_cores_and_polls(process):
    cores = Cores(process)
    try:
        mine = os.sched_getaffinity(0)
        assert len(mine) == 1
        assert os.sched_getaffinity(process.proc.pid) == CPUS - mine
        assert process.spin == agent_process.SPIN_SECONDS > 0
    finally:
        cores.end()
    assert os.sched_getaffinity(0) == CPUS  # its own CPUs back after the game


def test_a_pool_worker_shares_its_core_with_its_agent_and_sleeps(process, monkeypatch):
    monkeypatch.setattr(agent_process, "WORKER_NUMBER", 1)
    monkeypatch.setattr(agent_process, "_WORKER_CPU", None)
    try:
        cores = Cores(process)
        mine = os.sched_getaffinity(0)
        assert mine == {sorted(CPUS)[1 % len(CPUS)]}
        assert os.sched_getaffinity(process.proc.pid) == mine
        assert process.spin == 0.0  # polling on a shared core would only keep the agent from its work
        cores.end()
        assert os.sched_getaffinity(0) == mine  # a worker stays on its core: it plays nothing but games

        moves = []
        real = os.sched_setaffinity
        monkeypatch.setattr(os, "sched_setaffinity", lambda pid, cpus: moves.append(pid) or real(pid, cpus))
        Cores(process).end()  # its next game: nothing to move
        assert moves == []
        assert os.sched_getaffinity(process.proc.pid) == mine
    finally:
        os.sched_setaffinity(0, CPUS)  # this test's process is no pool worker


ECHO = """#!{python}
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({{"type": "hello", "protocol": 1, "agent": "echo"}}), flush=True)
    elif message["type"] == "start":
        print(json.dumps(message["options"]), file=sys.stderr, flush=True)
    elif message["type"] == "act":
        print('{{"type": "action", "action": "scan"}}', flush=True)
    elif message["type"] == "end":
        print('{{"type": "ready"}}', flush=True)
"""


def test_the_start_message_tells_an_agent_alone_on_its_cores_to_poll(tmp_path):
    import json
    import sys

    import numpy as np

    import treasure_cli
    from treasure_cli.play.games import play_game

    program = tmp_path / "echo"
    program.write_text(ECHO.format(python=sys.executable))
    program.chmod(0o755)
    island = treasure_cli.generate_island(8, 8, rng=np.random.default_rng(4))
    record, _ = play_game(island, f"exec:{program}", 1, map_name="m", isolation="process", max_turns=3)
    assert record.outcome in ("WIN", "LOSE")  # played to its end, not failed
    options = json.loads(record.output.splitlines()[0])
    assert options["poll"] == agent_process.SPIN_SECONDS
