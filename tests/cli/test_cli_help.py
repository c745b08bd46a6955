"""Every command explains itself: help with an example, and a place in the README."""

from __future__ import annotations


import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli import __version__
from treasure_cli.cli import cli

README = (ROOT / "README.md").read_text(encoding="utf-8")
COMMANDS = sorted(cli.commands)


def test_the_commands_are_the_ones_users_know():
    assert COMMANDS == ["bench", "check", "check-agent", "generate", "replay", "run", "tournament"]


@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_every_command_has_help_with_an_example(name, flag):
    result = CliRunner().invoke(cli, [name, flag])
    assert result.exit_code == 0
    assert result.output.startswith(f"Usage: cli {name} ")
    assert "Example" in result.output and f"treasure {name}" in result.output


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_is_in_the_readme(name):
    assert f"### `treasure {name}" in README
    assert f"\ntreasure {name} " in README  # at least one example line


def test_version_and_top_level_help():
    assert CliRunner().invoke(cli, ["--version"]).output == f"treasure, version {__version__}\n"
    top = CliRunner().invoke(cli, ["-h"])
    assert top.exit_code == 0 and all(name in top.output for name in COMMANDS)


def test_readme_shows_the_two_setup_commands():
    assert "make run" in README and "make test" in README


def test_the_pictures_the_docs_show_are_in_the_repository():
    import re

    for doc in (ROOT / "README.md", ROOT / "docs" / "replay.md", ROOT / "docs" / "bench.md"):
        pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", doc.read_text(encoding="utf-8"))
        for picture in pictures:
            assert (doc.parent / picture).is_file(), (doc.name, picture)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/img/replay-page.png" in readme and "docs/img/bench-win-rate.svg" in readme
