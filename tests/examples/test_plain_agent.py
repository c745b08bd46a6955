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


def test_it_declares_its_candidates_and_check_agent_beliefs_checks_them(monkeypatch):
    """With notes on, each action carries its candidates (the protocol's note), so the kit shows
    how a program in any language is checked with --beliefs; they always hold the treasure."""
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(cli, ["check-agent", "exec:examples/plain_agent.py", "--beliefs", "--games", "3",
                                      "--agent-isolation", "process"])
    assert result.exit_code == 0, result.output
    assert "ok    beliefs: in 3 of 3 games the agent declared its candidates, and they always held the treasure" \
        in result.output, result.output
