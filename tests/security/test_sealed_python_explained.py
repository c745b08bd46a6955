"""A Python agent's game makes no pipe or socket, and the failure says so.

`multiprocessing.Pool` or `subprocess.run` in a sealed game (sandbox/seccomp.py) fails with
`PermissionError: [Errno 1] Operation not permitted`, which says nothing of why. The agent's
host adds the rule and where it is written, whether the call was in the agent's `__init__` or
at its module's import; an agent failing some other way gets no such line.
"""

from __future__ import annotations

import shutil

from helpers import ROOT, invoke

from treasure_cli.grading.store import Store
from treasure_cli.sandbox import process as agent_process

POOL = '''\
import multiprocessing

from treasure_cli.agents.greedy import GreedyAgent


class Agent(GreedyAgent):
    def __init__(self):
        super().__init__()
        self.pool = multiprocessing.Pool(2)  # a parallel search, the student hopes
'''

AT_IMPORT = '''\
import subprocess

from treasure_cli.agents.greedy import GreedyAgent

subprocess.run(["true"])  # at import: before any game


class Agent(GreedyAgent):
    pass
'''

OTHER = '''\
class Agent:
    def __init__(self):
        raise PermissionError(13, "Permission denied")  # not the sealed game's EPERM

    def act(self, obs):
        return None
'''


def test_a_sealed_games_eperm_says_the_rule(tmp_path):
    for name, text in (("pool", POOL), ("at_import", AT_IMPORT), ("other", OTHER)):
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "agent.py").write_text(text)
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps")
    agent_process.close_all()
    try:
        played = invoke("tournament", str(tmp_path / "class"), "--maps", str(tmp_path / "maps"),
                        "--db", str(tmp_path / "r.sqlite"), "--games", "1", "--jobs", "1")
    finally:
        agent_process.close_all()
    with Store(tmp_path / "r.sqlite") as store:
        errors = {r.label: r.error for r in store.rows()}
    assert set(errors) == {"pool", "at_import", "other"}, played.output  # (every game failed: exit status 1)
    rule = "a Python agent's game may make no pipe or socket"
    for name in ("pool", "at_import"):
        assert "PermissionError: [Errno 1] Operation not permitted" in errors[name], errors[name]
        assert rule in errors[name] and "docs/writing-an-agent.md" in errors[name], errors[name]
    assert "Permission denied" in errors["other"] and rule not in errors["other"], errors["other"]
