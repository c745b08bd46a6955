"""A game cannot choose when its agent's warm host is replaced.

A host replaced between two games shows the next game a new sandbox: bubblewrap's mounts move the
machine's count of mounts made (statx's STATX_MNT_ID_UNIQUE: the next game's jump was 27 with the same
host, more with a new one), the game may run on another CPU, and it starts later. The referee
replaced any agent process once the answers it waited for had taken 120 s in all (`RECYCLE_SECONDS`,
for a process whose CPU limit covers its games), warm hosts too, whose games are processes of their
own: so a game that thought long enough chose that its next game would see a new host (measured
through `treasure tournament`: an agent that slept 41 s in each game had its host replaced before its
fourth game). That time now counts only for a process that plays its games itself. The test scales
the 120 s down to 1 s and has each game think 1.5 s: before the fix the host was replaced before the
second game (two hosts made), now one host plays both.
"""

from __future__ import annotations

import shutil

from helpers import ROOT, invoke

THINKER = '''
import time

from treasure_cli.agents.planner import PlanningAgent


class Agent:
    def __init__(self):
        self.fair = PlanningAgent()
        self.thought = False

    def act(self, obs):
        if not self.thought:
            self.thought = True
            time.sleep(1.5)
        return self.fair.act(obs)
'''


def test_a_game_that_thinks_long_does_not_get_its_host_replaced(tmp_path, monkeypatch):
    from treasure_cli.grading.store import Store
    from treasure_cli.sandbox import process as agent_process

    (tmp_path / "class" / "thinker").mkdir(parents=True)
    (tmp_path / "class" / "thinker" / "agent.py").write_text(THINKER)
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps")
    monkeypatch.setattr(agent_process, "RECYCLE_SECONDS", 1.0)
    made = []
    started = agent_process.AgentProcess.__init__

    def counted(self, *args, **kwargs):
        made.append(args[0])
        started(self, *args, **kwargs)

    monkeypatch.setattr(agent_process.AgentProcess, "__init__", counted)
    agent_process.close_all()
    try:
        played = invoke("tournament", str(tmp_path / "class"), "--maps", str(tmp_path / "maps"),
                        "--db", str(tmp_path / "r.sqlite"), "--games", "2", "--jobs", "1", "--seed", "1")
    finally:
        agent_process.close_all()
    assert played.exit_code == 0, played.output
    with Store(tmp_path / "r.sqlite") as store:
        rows = store.rows()
    assert all(r.outcome != "failed" for r in rows), [r.error for r in rows]
    assert len(rows) == 2 and {r.isolation for r in rows} == {"sandbox"}
    assert all(launch.forks for launch in made), made  # warm hosts
    assert len(made) == 1, f"{len(made)} warm hosts made for 2 games"
