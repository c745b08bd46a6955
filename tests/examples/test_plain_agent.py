"""examples/plain_agent.py, the starter kit for any language: plain Python over the protocol,
no numpy and no treasure_cli, played as a program (exec:)."""

from __future__ import annotations

import ast
import json
import sys

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

KIT = ROOT / "examples" / "plain_agent.py"


def test_it_imports_only_the_standard_library():
    tree = ast.parse(KIT.read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported and imported <= set(sys.stdlib_module_names), imported


def test_it_plays_and_wins_as_a_program(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(cli, ["run", "input/MAP_01.txt", str(tmp_path), "--json",
                                      "--agent", "exec:examples/plain_agent.py"])
    assert result.exit_code == 0, result.output
    games = json.loads(result.stdout)
    assert [g["outcome"] for g in games] == ["WIN"], games
    assert (tmp_path / "LOG_01.txt").is_file()
