"""A file or folder name that is not UTF-8 (a Latin-1 archiver's `résumé.txt`, or a folder `Zélie`
written by one) leaves at most its own group out, never the class.

A C++ group with such a file beside its Makefile stopped the whole tournament with a
UnicodeEncodeError (the build's digest encoded the names); a Python group's copy hashed them the
same way; a folder so named would have reached the results store, which holds UTF-8 only."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.sandbox import levels

READS = (b"import os\nfrom treasure_cli import LargeScan\n\n\nclass Agent:\n    def __init__(self):\n"
         b"        assert b'donn\\xe9es.json' in os.listdir(b'.'), os.listdir(b'.')\n\n"
         b"    def act(self, obs):\n        return LargeScan()\n")


@pytest.mark.skipif(not levels.bwrap_works(), reason="builds run only in the sandbox")
def test_names_that_are_not_utf8_leave_no_group_without_its_row(tmp_path):
    c = os.fsencode(tmp_path / "class")
    for folder, files in ((b"py", {b"agent.py": READS, b"donn\xe9es.json": b"{}"}),
                          (b"cpp", {b"Makefile": b"all:\n\tcp /bin/true agent\n", b"r\xe9sum\xe9.txt": b"x"}),
                          (b"Z\xe9lie", {b"agent.py": READS})):
        os.makedirs(os.path.join(c, folder))
        for name, data in files.items():
            with open(os.path.join(c, folder, name), "wb") as f:
                f.write(data)
    runner, args = CliRunner(), [str(tmp_path / "class"), "--maps", str(ROOT / "input" / "MAP_01.txt"),
                                 "--db", str(tmp_path / "r.sqlite")]
    dry = runner.invoke(cli, ["tournament", *args, "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "2 groups to play, 1 left out" in dry.output
    assert "left out: Z\\xe9lie: its path is not UTF-8" in dry.output
    played = runner.invoke(cli, ["tournament", *args, "--games", "1", "--seed", "1", "--jobs", "1"])
    assert "Traceback" not in played.output and "py " in played.output, played.output
    assert "py: " not in played.output  # its data file named in Latin-1 was copied for it: no game failed


def test_a_reason_naming_a_file_that_is_not_utf8_shows_its_bytes(tmp_path):
    from treasure_cli.grading.submissions import find_submissions

    folder = os.path.join(os.fsencode(tmp_path / "class"), b"two")
    os.makedirs(folder)
    for name, cls in ((b"a\xe9.py", b"Agent"), (b"b.py", b"Other")):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(b"class " + cls + b":\n    def act(self, obs):\n        return None\n")
    _, (left,) = find_submissions([str(tmp_path / "class")])
    assert left.reason.startswith("2 agent classes (a\\xe9.py:Agent, b.py:Other)")
    left.reason.encode("utf-8")  # what the store keeps
