"""docs/bench.md's `bench --versus` and docs/replay.md's two games side by side: the commands
shown, run, print what the docs show (game ids, which name the agents' code, set aside)."""

from __future__ import annotations

import re
import shlex

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli


def shown(doc: str, start: str) -> tuple[str, str]:
    """The first `$ treasure …` block of a doc whose command starts with `start`: command, output."""
    text = (ROOT / "docs" / doc).read_text()
    return next((cmd, out) for cmd, out in re.findall(r"```\n\$ (treasure [^\n]+)\n(.*?)```", text, flags=re.S)
                if cmd.startswith(start))


def ids_aside(text: str) -> str:
    return re.sub(r"\b[0-9a-f]{12}\b", "<id>", text)


def test_versus_and_the_side_by_side_page_print_what_the_docs_show(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    command, output = shown("bench.md", "treasure bench --agents greedy,random")
    result = CliRunner().invoke(cli, shlex.split(command)[1:])
    assert result.exit_code == 0, result.output
    assert ids_aside(result.stdout) == ids_aside(output)
    printed = next(line.strip() for line in result.stdout.splitlines() if line.strip().startswith("treasure replay"))
    command, output = shown("replay.md", "treasure replay vs/")
    assert ids_aside(printed) == ids_aside(command)
    result = CliRunner().invoke(cli, shlex.split(printed)[1:])
    assert result.exit_code == 0, result.output
    assert ids_aside(result.stdout) == ids_aside(output)
    assert (tmp_path / shlex.split(printed)[-1]).read_text().count("<iframe") == 2
