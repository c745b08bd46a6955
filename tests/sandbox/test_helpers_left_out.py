"""A file agent whose folder holds another agent's file (a class with `act`) plays from its file
alone, so that a class's folder of single files never shows one student another's code. A
student's own helper with a base agent class in it is such a file: the import of it then fails in
the agent's process, and the error says why and what to do (issue 42: every kind of agent)."""

from __future__ import annotations

import json

from click.testing import CliRunner
from helpers import SMALL_MAP

from treasure_cli.cli import cli

BASE = '''\
from treasure_cli.rules.actions import LargeScan


class Base:
    def act(self, obs):
        return LargeScan()
'''
MINE = '''\
from base import Base


class Mine(Base):
    pass
'''


def played(tmp_path, monkeypatch, entry: str, *options: str) -> dict:
    """The one game `run` plays with the agent `Mine` in `mine/ENTRY`, its helper base.py beside it."""
    (tmp_path / "MAP_01.txt").write_text(SMALL_MAP)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "base.py").write_text(BASE)
    (tmp_path / "mine" / entry).write_text(MINE)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run", "MAP_01.txt", "out", "--json", "--agent", f"mine/{entry}:Mine",
                                      "--agent-isolation", "process", *options])
    (game,) = json.loads(result.stdout)
    return game


def test_a_helper_left_out_of_the_copy_is_named_with_the_reason(tmp_path, monkeypatch):
    game = played(tmp_path, monkeypatch, "mine.py")
    assert game["outcome"] == "failed", game
    error = game["error"]
    assert "No module named 'base'" in error, error
    assert "base.py is beside mine.py" in error and "holds another agent's file" in error, error
    assert "name it agent.py" in error, error


def test_the_same_agent_named_agent_py_plays_with_its_helper(tmp_path, monkeypatch):
    """What the message advises works: the entry named agent.py marks the folder as its own."""
    game = played(tmp_path, monkeypatch, "agent.py", "--seed", "1")
    assert game["outcome"] in ("WIN", "LOSE"), game
