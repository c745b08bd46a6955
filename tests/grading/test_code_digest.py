"""A group's code is all of its files: a group that changed only a helper is a new version, played
again, not taken for the one already in the store (sandbox/launch.py agent_code)."""

from __future__ import annotations

import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.agents import registry
from treasure_cli.cli import cli
from treasure_cli.grading.store import Store
from treasure_cli.sandbox import launch

AGENT = ("from helpers import pick\nfrom treasure_cli.agents.greedy import GreedyAgent\n\n\n"
         "class Agent(GreedyAgent):\n    def act(self, obs):\n        return pick(super().act(obs))\n")


def test_changing_only_a_helper_makes_a_new_version_that_is_played_again(tmp_path):
    group = tmp_path / "class" / "g1"
    group.mkdir(parents=True)
    (group / "agent.py").write_text(AGENT)
    (group / "helpers.py").write_text("def pick(action):\n    return action\n")
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    db = tmp_path / "r.sqlite"
    args = ["tournament", str(tmp_path / "class"), "--maps", str(tmp_path / "MAP_01.txt"), "--games", "2",
            "--db", str(db), "--seed", "3", "--agent-isolation", "process"]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    same = CliRunner().invoke(cli, args)
    assert "0 games played" in same.output and "2 already in" in same.output, same.output
    (group / "helpers.py").write_text("def pick(action):\n    return action  # a fix\n")
    again = CliRunner().invoke(cli, args)
    assert again.exit_code == 0, again.output
    assert "2 games played" in again.output, again.output
    with Store(db) as store:
        digests = {r.agent_digest for r in store.rows()}
    assert len(digests) == 2


def test_an_agent_that_plays_its_file_alone_keeps_its_files_digest(tmp_path):
    (tmp_path / "students").mkdir()
    for name in ("ann", "bob"):  # a class's folder of single files: each plays its file alone
        (tmp_path / "students" / f"{name}.py").write_text(AGENT.replace("from helpers import pick\n", "")
                                                          .replace("pick(super().act(obs))", "super().act(obs)"))
    spec = f"{tmp_path / 'students' / 'ann.py'}:Agent"
    assert launch.agent_code(spec) == registry.agent_code(spec)
