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
    assert COMMANDS == ["bench", "check", "check-agent", "contest", "doctor", "generate", "play", "replay", "run", "tournament"]


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


def _help_examples() -> list[tuple[str, str]]:
    import re

    import click

    examples = []
    top = click.Context(cli, info_name="treasure", **cli.context_settings)  # -h, as the commands have it
    for name in COMMANDS:
        command = cli.commands[name]
        with click.Context(command, info_name=name, parent=top) as ctx:
            text = command.get_help(ctx)
        block = re.search(r"\n  Examples?:\n((?:    .*\n?)+)", text)
        assert block, name
        examples += [(name, line.strip()) for line in block[1].splitlines()]
    return examples


@pytest.fixture
def examples_folder(tmp_path, monkeypatch):
    """The files the help's examples name, as a user who follows them has them."""
    import shutil

    from treasure_cli.rules import plugin_kinds

    monkeypatch.setattr(plugin_kinds, "_INSTALLED", {})  # a --hints file is installed while parsing
    shutil.copytree(ROOT / "input", tmp_path / "input")
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("build"))
    shutil.copy(ROOT / "examples" / "hints" / "kinds.py", tmp_path / "kinds.py")
    (tmp_path / "hidden").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "hidden" / "MAP_07.txt")
    (tmp_path / "my_agent.py").write_text("class MyAgent:\n    def act(self, obs):\n        raise NotImplementedError\n")
    program = tmp_path / "my-agent"
    program.write_text("#!/bin/sh\nexit 1\n")
    program.chmod(0o755)
    (tmp_path / "bench.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("name", "line"), _help_examples())
def test_every_help_example_is_a_command_line_the_command_accepts(name, line, examples_folder):
    """Parsed, not run: its options exist and their values are valid (a renamed option, a
    wrong value's format or a removed choice fails here), among the files it names."""
    import shlex

    argv = shlex.split(line.split(" > ")[0])
    assert argv[:2] == ["treasure", name]
    import click

    command = cli.commands[name]
    top = click.Context(cli, info_name="treasure", **cli.context_settings)
    command.make_context(name, argv[2:], parent=top)  # raises click's UsageError for what it would refuse
