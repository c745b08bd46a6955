"""The results store, the maps being played and the logs being written never reach an agent's copy
of its folder, even when they share that folder with its file (a teacher who grades one file in
the folder that holds the maps and the store)."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.grading.store import Store

SNOOP = '''import os
from treasure_cli.agents.greedy import GreedyAgent


class Snoop(GreedyAgent):
    def act(self, obs):
        seen = sorted(os.path.join(top, name) for top, _, names in os.walk(".") for name in names)
        if any(p.endswith((".sqlite", ".txt")) for p in seen):
            raise RuntimeError(f"found {seen}")
        return super().act(obs)
'''


@pytest.mark.parametrize("level", ["process", "sandbox"])
def test_an_agent_beside_the_store_and_the_maps_sees_neither(tmp_path, level):
    (tmp_path / "snoop.py").write_text(SNOOP)
    (tmp_path / "helper_data.json").write_text("{}")  # a file of its own, which it does get
    (tmp_path / "hidden").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "hidden" / "MAP_01.txt")
    db = tmp_path / "r.sqlite"
    args = ["tournament", f"{tmp_path / 'snoop.py'}:Snoop", "--maps", str(tmp_path / "hidden"), "--games", "2",
            "--db", str(db), "--seed", "1", "--agent-isolation", level]
    first = CliRunner().invoke(cli, args)
    again = CliRunner().invoke(cli, [*args[:5], "3", *args[6:]])  # the store now exists, with rows
    assert first.exit_code == 0 and again.exit_code == 0, first.output + again.output
    with Store(db) as store:
        rows = store.rows()
    assert len(rows) == 3 and all(r.outcome != "failed" for r in rows), [r.error for r in rows]


def test_run_keeps_its_map_and_logs_out_of_the_agents_copy(tmp_path):
    (tmp_path / "snoop.py").write_text(SNOOP)
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "LOG_00.txt").write_text("an older log\n")
    ran = CliRunner().invoke(cli, ["run", str(tmp_path / "MAP_01.txt"), str(tmp_path / "out"), "--agent",
                                   f"{tmp_path / 'snoop.py'}:Snoop", "--agent-isolation", "process"])
    assert ran.exit_code == 0, ran.output
