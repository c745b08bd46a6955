"""A valid map on which no game can start is reported by check and run alike, and the batch goes on."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

TINY = "4 3\n2\n4\n2\n1 1\n0;0;0;0\n0;1;1P;0\n0;0;0;0\n"  # walkable: the treasure and the prison only


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_run_reports_an_unplayable_map_and_plays_the_others(tmp_path, jobs):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "MAP_a.txt").write_text(TINY)
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "in" / "MAP_b.txt")
    r = CliRunner().invoke(cli, ["run", str(tmp_path / "in"), str(tmp_path / "out"), "--jobs", jobs])
    assert r.exit_code == 1
    message = f"{tmp_path / 'in' / 'MAP_a.txt'}: no tile for the agent to start on"
    assert f"Error: {message}" in r.stderr
    assert "MAP_a.txt  4x3    failed (bad-map)" in r.stdout
    assert r.stdout.splitlines()[-1] == "1 played, 1 won, 0 lost, 1 failed"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["LOG_b.txt"]
    check = CliRunner().invoke(cli, ["check", str(tmp_path / "in")])
    assert check.exit_code == 1 and message in check.output
