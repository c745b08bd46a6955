"""`tournament --dry-run` shows a name with control characters escaped and its columns aligned as
printed: the widths were measured before the escapes (`\\x1b` is four columns, not one), and every
row after such a name was pushed out of line."""

from __future__ import annotations

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

SCANS = "from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"


def test_an_escaped_name_keeps_the_dry_run_columns_aligned(tmp_path):
    for name in ("ann", "esc\x1b]0;title\x07\x1b[2Jname"):
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "agent.py").write_text(SCANS)
    dry = CliRunner().invoke(cli, ["tournament", str(tmp_path / "class"), "--maps", str(ROOT / "input" / "MAP_01.txt"),
                                   "--db", str(tmp_path / "r.sqlite"), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    rows = [line for line in dry.output.splitlines() if " python " in line]
    assert len(rows) == 2 and "\x1b" not in dry.output and "esc\\x1b]0;title\\x07\\x1b[2Jname" in dry.output
    assert len({row.index(" python ") for row in rows}) == 1, rows
