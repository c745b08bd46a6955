"""docs/map-format.md shows real maps: its header is the first shipped map's, and its commands
make the shipped maps byte for byte."""

from __future__ import annotations

import re
import shlex

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

DOC = (ROOT / "docs" / "map-format.md").read_text()


def test_the_header_shown_is_the_first_shipped_maps():
    shown = re.search(r"```\n(16 16 .*?)```", DOC, flags=re.S)[1].splitlines()[:5]
    values = [re.split(r"\s{2,}", line)[0] for line in shown]
    assert values == (ROOT / "input" / "MAP_01.txt").read_text().splitlines()[:5]


def test_the_commands_shown_make_the_shipped_maps(tmp_path):
    block = re.search(r"## Shipped maps\n.*?```\n(.*?)```", DOC, flags=re.S)[1]
    commands = [shlex.split(line) for line in block.splitlines()]
    assert len(commands) == len(list((ROOT / "input").glob("MAP_*.txt"))) == 5
    for argv in commands:
        assert argv[:2] == ["treasure", "generate"] and argv[-2] == "-o"
        shipped = ROOT / argv[-1]
        made = tmp_path / shipped.name
        result = CliRunner().invoke(cli, [*argv[1:-1], str(made)])
        assert result.exit_code == 0, result.output
        assert made.read_bytes() == shipped.read_bytes(), argv


def test_the_error_shown_is_what_check_prints(tmp_path, monkeypatch):
    command, shown = re.search(r"```\n\$ (treasure check [^\n]+)\n(.*?)```", DOC, flags=re.S).groups()
    lines = (ROOT / "input" / "MAP_02.txt").read_text().split("\n")
    cells = lines[5 + 3].split("; ")  # the map's row 3 (after the five header lines)
    cells[2] = "X"
    lines[5 + 3] = "; ".join(cells)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "MAP_02.txt").write_text("\n".join(lines))
    result = CliRunner().invoke(cli, shlex.split(command)[1:])
    assert result.exit_code == 1 and result.output == shown
