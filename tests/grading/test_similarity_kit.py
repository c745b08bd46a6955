"""Two groups that hand in the plain kit without its execute bit (played as `python3 FILE` through a
launcher script in the build's copy of their folder) are compared by their Python sources, not by
the launchers' few bytes: a renamed copy of one kit by another is flagged."""

from __future__ import annotations

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

KIT = (ROOT / "examples" / "plain_agent.py").read_text()


def test_two_kits_played_as_python_programs_are_compared_by_their_sources(tmp_path):
    for name, text in (("ann", KIT), ("bob", KIT.replace("self.hints", "self.indices").replace("walkable", "land"))):
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "bot.py").write_text(text)
    db, runner = tmp_path / "r.sqlite", CliRunner()
    played = runner.invoke(cli, ["tournament", str(tmp_path / "class"), "--maps", str(ROOT / "input" / "MAP_01.txt"),
                                 "--games", "3", "--db", str(db), "--seed", "2", "--jobs", "1"])
    assert played.exit_code == 0, played.output
    assert "python-program" in runner.invoke(cli, ["tournament", str(tmp_path / "class"), "--maps",
                                                   str(ROOT / "input" / "MAP_01.txt"), "--db", str(db),
                                                   "--dry-run"]).output
    report = runner.invoke(cli, ["tournament", "--db", str(db), "--report"])
    assert report.exit_code == 0, report.output
    flags = report.output.partition("Similarity flags")[2]
    assert "ann, bob" in flags and "treasure-start is not a Python" not in report.output
