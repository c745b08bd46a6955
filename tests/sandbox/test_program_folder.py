"""An exec: program starts in its own folder, beside its files, at every level and on every route
(the warm host's jail, a sandbox per game where the jail cannot start, a plain process), as it
would outside the sandbox: `open("weights.txt")` works."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.sandbox import process

PROGRAM = '#!/bin/sh\necho "folder=$(pwd) data=$(cat weights.txt)" >&2\nexit 3\n'


@pytest.mark.parametrize("level, jail", [("process", True), ("sandbox", True), ("sandbox", False)],
                         ids=["process", "sandbox-warm-host-jail", "sandbox-per-game"])
def test_a_program_starts_in_its_own_folder(tmp_path, monkeypatch, level, jail):
    if not jail:  # as on a machine where the warm host cannot make a game's namespaces
        monkeypatch.setattr(process, "_NO_JAIL", "no jail in this test")
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "agent.sh").write_text(PROGRAM)
    (tmp_path / "g" / "agent.sh").chmod(0o755)
    (tmp_path / "g" / "weights.txt").write_text("0.25 0.75")
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    result = CliRunner().invoke(cli, ["run", str(tmp_path / "MAP_01.txt"), str(tmp_path / "out"), "--agent",
                                      f"exec:{tmp_path / 'g' / 'agent.sh'}", "--agent-isolation", level])
    assert "data=0.25 0.75" in result.output, result.output
    if level == "sandbox":
        assert "folder=/agent " in result.output
