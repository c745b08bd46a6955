"""docs/tournament.md's contest shows real output: its command is run here on the class it describes
(copies of the three examples), and prints what the page shows but for the times.

The contest's games come from the store's own secret seed, drawn when the store is made; here that
draw is fixed (`secrets.randbits`), so the page's games come out again."""

from __future__ import annotations

import re
import secrets
import shlex
import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

DOC = (ROOT / "docs" / "tournament.md").read_text()
[(COMMAND, SHOWN)] = re.findall(r"```\n\$ (treasure contest [^\n]+)\n(.*?)```", DOC, flags=re.S)
SECRET = 20261129  # the store's secret base seed in the page's run


def normal(text: str) -> str:
    """What may differ between runs: the time per action, and where agents play (sandbox or not here)."""
    text = text.replace("in processes of their own (no sandbox; ", "in a sandbox (bubblewrap; no network, ")
    lines = [line for line in text.splitlines() if not line.startswith("warning: bubblewrap")]
    # the table's ms/action (two decimals, after the mean turns' one), then its alignment
    lines = [re.sub(r"(\s(?:\d+\.\d|-))\s+\d+\.\d\d(?=\s)", r"\1 #", line) for line in lines]
    return "\n".join(" ".join(line.split()) for line in lines)


def test_the_contest_prints_what_the_page_shows(tmp_path, monkeypatch):
    students = tmp_path / "students"
    students.mkdir()
    for name, example in (("ann", "densest_scan.py"), ("bob", "inverted_mask.py"), ("cyd", "raw_observation.py")):
        shutil.copy(ROOT / "examples" / example, students / f"{name}.py")
    (tmp_path / "hidden").mkdir()
    shutil.copy(ROOT / "input" / "MAP_02.txt", tmp_path / "hidden" / "MAP_02.txt")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(secrets, "randbits", lambda k: SECRET)
    played = CliRunner().invoke(cli, shlex.split(COMMAND)[1:])
    assert played.exit_code == 0, played.output
    assert normal(played.output) == normal(SHOWN)
    assert (tmp_path / "contest" / "index.html").is_file()
