"""A group named after an agent that is not a group does not share its row.

The results store ranks a group by its name and any other agent by its spec. A group handed in as
`logic.zip` (or a folder `logic`, or a roster display name `greedy`) was ranked in the row of the
built-in `logic` that docs/grading.md tells teachers to play beside the class: its games and the
built-in's were counted together, so an agent that scans forever and wins nothing was graded at
about half of logic's win rate, and the group's own row was gone. Now it is `logic (group)`."""

from __future__ import annotations

import csv
import io
import zipfile

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

SCANS = "from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"


def test_a_group_named_like_a_builtin_gets_a_row_of_its_own(tmp_path):
    c = tmp_path / "class"
    c.mkdir()
    with zipfile.ZipFile(c / "logic.zip", "w") as z:
        z.writestr("agent.py", SCANS)
    (c / "ann").mkdir()
    (c / "ann" / "agent.py").write_text(SCANS)
    roster = tmp_path / "roster.csv"
    roster.write_text("folder,student id,display name\nann,s1,greedy\n")
    db, grades, runner = tmp_path / "r.sqlite", tmp_path / "grades.csv", CliRunner()
    played = runner.invoke(cli, ["tournament", str(c), "--with", "logic,greedy", "--maps",
                                 str(ROOT / "input" / "MAP_01.txt"), "--games", "2", "--seed", "2", "--db", str(db),
                                 "--roster", str(roster), "--jobs", "1"])
    assert played.exit_code == 0, played.output
    report = runner.invoke(cli, ["tournament", "--db", str(db), "--report", "--csv", str(grades)])
    assert report.exit_code == 0, report.output
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO(grades.read_text(encoding="utf-8")))}
    assert {name: (r["games"], r["agent"].rpartition("/")[2]) for name, r in rows.items()} == {
        "logic": ("2", "logic"), "greedy": ("2", "greedy"),
        "logic (group)": ("2", "agent.py:Agent"), "greedy (group)": ("2", "agent.py:Agent")}
    assert rows["logic (group)"]["wins"] == rows["greedy (group)"]["wins"] == "0"  # it only scans


def test_a_folder_named_after_a_classmates_roster_name_gets_a_row_of_its_own(tmp_path):
    c = tmp_path / "class"
    for folder in ("g01", "Élise D.", "g02", "g03"):
        (c / folder).mkdir(parents=True)
        (c / folder / "agent.py").write_text(SCANS)
    roster = tmp_path / "roster.csv"  # g02 and g03: one display name given twice, the teacher's slip
    roster.write_text("folder,student id,display name\ng01,s1,Élise D.\ng02,s2,Team\ng03,s3,Team\n")
    db, grades, runner = tmp_path / "r.sqlite", tmp_path / "grades.csv", CliRunner()
    played = runner.invoke(cli, ["tournament", str(c), "--maps", str(ROOT / "input" / "MAP_01.txt"), "--games", "2",
                                 "--db", str(db), "--roster", str(roster), "--jobs", "1"])
    assert played.exit_code == 0, played.output
    assert "warning: the roster gives 'Team' to 2 folders (g02, g03): each is shown with its folder" in played.output
    report = runner.invoke(cli, ["tournament", "--db", str(db), "--report", "--csv", str(grades)])
    assert report.exit_code == 0, report.output
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO(grades.read_text(encoding="utf-8")))}
    assert {name: (r["games"], r["agent"].split("/")[-2]) for name, r in rows.items()} == {
        "Élise D.": ("2", "g01"), "Élise D. (group)": ("2", "Élise D."),
        "Team (g02)": ("2", "g02"), "Team (g03)": ("2", "g03")}
