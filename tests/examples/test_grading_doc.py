"""docs/grading.md shows real output: its commands are run here, in the order shown, on the class it
describes, and print what the page shows.

The games of a tournament come from the store's own secret seed, drawn once when the store is made;
here that draw is fixed (`secrets.randbits`), so the page's numbers and game ids come out again. A
reader's own store gets other games, as the page says.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

DOC = (ROOT / "docs" / "grading.md").read_text()
# Each "$ command" block: the command, what it prints (stdout and stderr, as a terminal shows them),
# and its exit status when the text right after the block gives one ("(exit status 1: ...").
SHOWN = re.findall(r"```\n\$ ((?:treasure|cat) [^\n]+)\n(.*?)```\n(?:\n\(exit status (\d))?", DOC, flags=re.S)
SECRET = 20261125  # the store's secret base seed in this page's run

WANDERER = '''import random

from treasure_cli import legal_actions


class Wanderer:
    """Random legal moves: a student who has not started yet."""

    def reset(self, seed):
        self.rng = random.Random(seed)

    def act(self, obs):
        return self.rng.choice(legal_actions(obs, teleports=False))
'''
IMPATIENT = '''from treasure_cli.agents.greedy import GreedyAgent


class Impatient(GreedyAgent):
    """The greedy baseline that gives up (raises) once a game reaches turn 5."""

    def act(self, obs):
        if obs.turn >= 5:
            raise RuntimeError("too slow, giving up")
        return super().act(obs)
'''
TWO = "class Draft:\n    def act(self, obs):\n        pass\n\n\nclass Final:\n    def act(self, obs):\n        pass\n"


def setup_class(folder: Path) -> None:
    """The submissions the page describes: ann (a file), bob (a folder), carl (fails some games),
    dora (two agent classes in one file), and a note."""
    students = folder / "students"
    (students / "bob").mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "densest_scan.py", students / "ann.py")
    (students / "bob" / "agent.py").write_text(WANDERER)
    (students / "bob" / "README.md").write_text("bob's notes\n")
    (students / "carl.py").write_text(IMPATIENT)
    (students / "dora.py").write_text(TWO)
    (students / "grading-notes.txt").write_text("deadline: Friday\n")


def run_shown(command: str, folder: Path, monkeypatch: pytest.MonkeyPatch | None = None):
    """Run a command of the page in `folder` (the secret seed of a new store fixed to SECRET)."""
    import os
    import secrets

    old = os.getcwd()
    original = secrets.randbits
    secrets.randbits = lambda k: SECRET
    try:
        os.chdir(folder)
        words = shlex.split(command)
        if words[0] == "cat":
            return _Cat(Path(words[1]).read_text())
        return CliRunner().invoke(cli, words[1:])
    finally:
        secrets.randbits = original
        os.chdir(old)


class _Cat:
    def __init__(self, text: str):
        self.output, self.exit_code = text, 0


def normal(text: str, command: str) -> str:
    """What may differ between runs: the time columns and where agents play (sandbox or not here)."""
    text = text.replace("in processes of their own (no sandbox; ", "in a sandbox (bubblewrap; no network, ")
    text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("warning: bubblewrap"))
    text = re.sub(r"\b\d+\.\d+ s\b", "# s", text)            # "30 games played in 4.8 s", run's seconds
    text = re.sub(r"(?m)^(\S+\.txt\s+\S+\s+\S+(?: \(\w+\))?\s+\d+\s+)\d+\.\d{3}$", r"\1#", text)  # run's table
    if command.startswith("cat ") and command.endswith(".csv"):
        text = re.sub(r"(?m)^((?:[^,]*,){11})[0-9.]+,", r"\1#,", text)  # ms_per_turn (the 12th column)
    return text


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("grading")
    setup_class(folder)
    return folder


def test_the_page_shows_its_commands():
    commands = [c for c, _, _ in SHOWN]
    assert any(c.startswith("treasure tournament students/") for c in commands)
    assert any("--report" in c for c in commands) and any(c.startswith("cat grades.csv") for c in commands)
    assert any(c.startswith("treasure replay --db") for c in commands)
    assert any("--game-seed" in c for c in commands)


def test_every_command_prints_what_the_page_shows(site):
    """In order: each step needs the ones before it (the maps, the store, the pages)."""
    assert [int(status or 0) for _, _, status in SHOWN] == [1, 0, 0, 1, 0, 0, 0, 0]
    for command, shown, status in SHOWN:
        result = run_shown(command, site)
        assert result.exit_code == int(status or 0), (command, result.output)
        assert normal(result.output, command) == normal(shown, command), command
    # the teacher's folder has every page; the public one, bob's page but not his game on a private map
    board, public = site / "leaderboard" / "teacher", site / "leaderboard" / "public"
    assert (board / "index.html").is_file() and (board / "agent-bob.html").is_file()
    assert (public / "index.html").is_file() and (public / "agent-bob.html").is_file()
    cited = re.search(r"treasure replay --db results.sqlite (\w+)", DOC)[1]
    assert (board / f"game-{cited}.html").is_file() and not (public / f"game-{cited}.html").exists()
    assert (site / "grades.csv").is_file()


def test_the_pictures_of_the_page_are_in_the_repository():
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", DOC)
    assert len(pictures) >= 3
    for picture in pictures:
        assert (ROOT / "docs" / picture).is_file(), picture
