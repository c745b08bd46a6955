"""The README's `treasure run` and `treasure replay` lines work as shown, on the shipped maps."""

from __future__ import annotations

import re
import shlex
import shutil

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

README = (ROOT / "README.md").read_text()
# The command of each line of the README's code blocks that runs or replays (comments and `> file` cut off).
LINES = [re.split(r"\s+#\s|\s>\s", line)[0].strip()
         for block in re.findall(r"```\n(.*?)```", README, flags=re.S)
         for line in block.splitlines() if line.startswith(("treasure run ", "treasure replay "))]


def shipped(folder):
    shutil.copytree(ROOT / "input", folder / "input")
    shutil.copytree(ROOT / "examples" / "hints", folder / "examples" / "hints")  # for the --hints lines
    return folder


@pytest.fixture(scope="module")
def replays(tmp_path_factory):
    """A folder where `treasure run input/ output/` (the README's first line) has been run."""
    folder = shipped(tmp_path_factory.mktemp("readme-replay"))
    result = CliRunner().invoke(cli, ["run", str(folder / "input"), str(folder / "output")])
    assert result.exit_code == 0, result.output
    # greedy's game of the same map and seed, for the line that shows two games side by side
    result = CliRunner().invoke(cli, ["run", str(folder / "input" / "MAP_01.txt"), str(folder / "greedy"),
                                      "--agent", "greedy"])
    assert result.exit_code == 0, result.output
    return folder


def test_the_readme_shows_runs_and_replays():
    assert sum(line.startswith("treasure run ") for line in LINES) >= 3
    assert sum(line.startswith("treasure replay ") for line in LINES) >= 5


def invoke(line: str, folder, monkeypatch):
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(cli, shlex.split(line)[1:], input="")  # end of input quits a watch
    assert result.exit_code == 0, (line, result.output)
    for name in re.findall(r"\S+\.(?:html|svg)\b", line):
        assert (folder / name).stat().st_size > 0, (line, name)


@pytest.mark.parametrize("line", [line for line in LINES if line.startswith("treasure run ")])
def test_a_readme_run_line_runs(line, tmp_path, monkeypatch):
    invoke(line, shipped(tmp_path), monkeypatch)


# `replay --db` needs a tournament's store: tests/examples/test_grading_doc.py runs it as docs/grading.md shows it.
@pytest.mark.parametrize("line", [line for line in LINES if line.startswith("treasure replay ") and "--db" not in line])
def test_a_readme_replay_line_runs(line, replays, monkeypatch):
    invoke(line, replays, monkeypatch)


def test_the_example_maze_is_what_the_readme_command_makes(tmp_path, monkeypatch):
    line = next(line for block in re.findall(r"```\n(.*?)```", README, flags=re.S) for line in block.splitlines()
                if line.startswith("treasure generate ") and "examples/maps/MAZE_32.txt" in line)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples" / "maps").mkdir(parents=True)
    result = CliRunner().invoke(cli, shlex.split(line)[1:])
    assert result.exit_code == 0, result.output
    made = (tmp_path / "examples" / "maps" / "MAZE_32.txt").read_text()
    assert made == (ROOT / "examples" / "maps" / "MAZE_32.txt").read_text()
