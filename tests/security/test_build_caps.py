"""A group's build is held to a group's caps while it runs.

A Makefile that made 2,100 files stopped the whole tournament with a traceback (the listing of
the build's folder raised past the file cap, and nothing caught it): one group's hand-in kept the
class from being graded. A Makefile that writes without end filled the referee's disk, one file
of 16 MiB (RLIMIT_FSIZE) after another, until the build's 120 s were up; its output was held
whole in the referee's memory."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.sandbox import languages, levels

pytestmark = pytest.mark.skipif(not levels.bwrap_works(), reason="builds run only in the sandbox")

SCANS = "from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"


def test_a_build_that_makes_too_many_files_leaves_its_group_out_not_the_class(tmp_path):
    c = tmp_path / "class"
    (c / "many").mkdir(parents=True)
    (c / "many" / "Makefile").write_text("all:\n\tmkdir -p junk && cd junk && seq 1 2100 | xargs touch\n"
                                         "\tcp /bin/true agent\n")
    (c / "ok").mkdir()
    (c / "ok" / "agent.py").write_text(SCANS)
    dry = CliRunner().invoke(cli, ["tournament", str(c), "--maps", str(ROOT / "input" / "MAP_01.txt"),
                                   "--db", str(tmp_path / "r.sqlite"), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "1 group to play, 1 left out" in dry.output
    assert "left out: many: the build wrote more than 2000 files (the cap)" in dry.output


def test_a_build_that_writes_without_end_is_stopped_at_the_cap_and_its_writes_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("TREASURE_CLI_MAX_GROUP_BYTES", str(8 << 20))
    group = tmp_path / "g"
    group.mkdir()
    (group / "Makefile").write_text("all:\n\ti=0; while :; do head -c 1048576 /dev/zero > f$$i; "
                                    "yes | head -c 100000; i=$$((i+1)); done\n")
    built = languages.build(group, languages.LANGUAGES[0], seconds=60)
    assert built.program is None and built.verdict == "the build wrote more than 8 MB (the cap)"
    assert not built.log.with_suffix("").exists()  # its copy, and all it wrote, gone
    assert len(built.log.read_bytes()) <= languages.BUILD_LOG + 100
