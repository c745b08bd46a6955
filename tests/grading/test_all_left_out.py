"""A class whose every group is left out still has a row per group, and the command says why.

A class of notebooks, or of C++ groups on a machine without bubblewrap (nothing is built there),
has no agent to play: `tournament` said `Error: no agent to play: give submissions (files or
folders) or --with logic,greedy`, as if no class had been given, listed nothing in `--dry-run`,
and kept no verdict, so `--report --csv` had no row for any group ("holds no game yet")."""

from __future__ import annotations

import csv
import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli


def test_every_group_left_out_keeps_its_row_and_the_command_says_so(tmp_path):
    klass = tmp_path / "class"
    (klass / "ann").mkdir(parents=True)
    (klass / "ann" / "agent.ipynb").write_text('{"cells": []}')
    (klass / "bob.py").write_text("x = (\n")
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps" / "MAP_01.txt")
    db, runner = str(tmp_path / "r.sqlite"), CliRunner()
    args = ["tournament", str(klass), "--maps", str(tmp_path / "maps"), "--db", db]
    dry = runner.invoke(cli, [*args, "--dry-run"])
    assert dry.exit_code == 1, dry.output
    assert "0 groups to play, 2 left out" in dry.output and "left out: bob: line 1:" in dry.output, dry.output
    assert "Error: every group was left out (2): nothing to play" in dry.output
    played = runner.invoke(cli, args)
    assert played.exit_code == 1, played.output
    assert "every group was left out (2): nothing to play; their verdicts are kept in" in played.output
    report = runner.invoke(cli, ["tournament", "--db", db, "--report", "--csv", str(tmp_path / "grades.csv")])
    assert report.exit_code == 0, report.output
    with open(tmp_path / "grades.csv", newline="") as f:
        rows = {r["student"]: (r["verdict"], r["games"]) for r in csv.DictReader(f)}
    assert rows == {"ann": ("left out", "0"), "bob": ("left out", "0")}, rows
