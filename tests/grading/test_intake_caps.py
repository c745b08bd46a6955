"""The intake's caps on the command line (`--max-group-files`, `--max-group-size`,
`--max-source-size`; sandbox/tree.py: caps): a lowered cap leaves a group out with its verdict
row in the grades, a raised one admits a group the default refuses, and its game gets its
whole folder (the workers, and the copy a game plays from, hold to the same caps)."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.sandbox import tree

AGENT = "from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"
# It needs the last of its many files: without its whole folder it cannot start.
MANY = ("from treasure_cli import LargeScan\n\n\nclass Agent:\n    def __init__(self):\n"
        "        self.last = open('data/f2099.txt').read()\n\n    def act(self, obs):\n        return LargeScan()\n")


@pytest.fixture(autouse=True)
def caps_as_found(monkeypatch):
    for name in tree.CAP_VARIABLES:  # (a command sets them for its workers: put back after the test)
        monkeypatch.delenv(name, raising=False)


def grades(tmp_path: Path, klass: Path, *caps: str) -> tuple[dict[str, tuple[str, str]], str]:
    tmp_path.mkdir(exist_ok=True)
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    db = tmp_path / "r.sqlite"
    played = CliRunner().invoke(cli, ["tournament", str(klass), "--maps", str(tmp_path / "MAP_01.txt"), "--games", "1",
                                      "--seed", "1", "--db", str(db), "--no-timing", "--agent-isolation", "process",
                                      "--jobs", "1", *caps])
    assert played.exit_code == 0, played.output
    report = CliRunner().invoke(cli, ["tournament", "--db", str(db), "--report", "--csv", str(tmp_path / "g.csv")])
    assert report.exit_code == 0, report.output
    with open(tmp_path / "g.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {row["student"]: (row["verdict"], row.get("reason", "")) for row in rows}, played.output


def test_a_lowered_cap_leaves_a_group_out_with_its_verdict_row(tmp_path):
    klass = tmp_path / "class"
    for name in ("ann", "bob", "carl"):
        (klass / name).mkdir(parents=True)
        (klass / name / "agent.py").write_text(AGENT)
    (klass / "bob" / "weights.json").write_text("0" * 60_000)  # 60 kB of data
    (klass / "carl" / "agent.py").write_text(AGENT + "#" * 2000)  # 2 kB of source
    graded, said = grades(tmp_path / "size", klass, "--max-group-size", "50K", "--max-source-size", "1K")
    assert graded["ann"][0] == "played"
    assert graded["bob"][0] == "left out" and graded["carl"][0] == "left out", graded
    assert "bob: over the cap: more than 51200 bytes of files (the cap)" in said
    assert "carl: agent.py is 2.1 kB, over the 1024 bytes cap for a source file" in said
    graded, _ = grades(tmp_path / "default", klass)
    assert {name: verdict for name, (verdict, _) in graded.items()} == {"ann": "played", "bob": "played", "carl": "played"}


def test_a_raised_cap_admits_a_group_and_its_game_gets_the_whole_folder(tmp_path):
    klass = tmp_path / "class"
    group = klass / "many"
    (group / "data").mkdir(parents=True)
    (group / "agent.py").write_text(MANY)
    for i in range(2100):  # over the default cap of 2000 files
        (group / "data" / f"f{i}.txt").write_text("x")
    (klass / "ann").mkdir()
    (klass / "ann" / "agent.py").write_text(AGENT)
    graded, said = grades(tmp_path / "default", klass)
    assert graded["many"][0] == "left out" and "many: over the cap: more than 2000 files (the cap)" in said
    graded, said = grades(tmp_path / "raised", klass, "--max-group-files", "3000")
    assert graded["many"][0] == "played" and "failed" not in said, said  # (exit status 0: no game failed)


def test_the_caps_are_in_the_help_with_their_defaults():
    said = CliRunner().invoke(cli, ["tournament", "--help"]).output
    for option, default in (("--max-group-files N", "2000"), ("--max-group-size SIZE", "50M"),
                            ("--max-source-size SIZE", "2M")):
        assert option in said and f"[default: {default}" in said
    for command in ("check-agent", "contest"):
        assert "--max-group-files" in CliRunner().invoke(cli, [command, "--help"]).output
