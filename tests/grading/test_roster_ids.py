"""The roster's student ids reach the teacher's gradebook (grades.csv), on the row of every group a
roster names, played or left out, and nothing that may be published (the JSON, the public pages)."""

from __future__ import annotations

import csv
import shutil

from helpers import GREEDY_GROUP, ROOT, invoke


def test_the_gradebook_gives_each_group_its_roster_id_and_the_published_files_none(tmp_path):
    klass = tmp_path / "class"
    for folder, text in {"ann": GREEDY_GROUP.format(name="Ann"), "bob": "class Agent(\n",
                         "carl": GREEDY_GROUP.format(name="Carl")}.items():
        (klass / folder).mkdir(parents=True)
        (klass / folder / "agent.py").write_text(text)
    roster = tmp_path / "roster.csv"
    roster.write_text("folder,student id,display name\nann,s-101,Ann A.\nbob,s-102,Bob B.\n")
    maps = tmp_path / "maps"
    maps.mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", maps / "MAP_01.txt")
    db = str(tmp_path / "r.sqlite")
    played = invoke("tournament", str(klass), "--maps", str(maps), "--db", db, "--games", "1", "--seed", "1",
                    "--roster", str(roster), "--agent-isolation", "process")
    assert played.exit_code == 0, played.output

    grades, pages = tmp_path / "grades.csv", tmp_path / "pages"
    report = invoke("tournament", "--db", db, "--report", "--csv", str(grades), "--html", str(pages), "--json")
    assert report.exit_code == 0, report.output
    with open(grades, newline="", encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert {name: (r["student_id"], r["verdict"]) for name, r in rows.items()} == {
        "Ann A.": ("s-101", "played"), "Bob B.": ("s-102", "left out"), "carl": ("", "played")}
    assert "s-10" not in report.output  # (--json's leaderboard: made to be published)
    assert not any("s-10" in p.read_text(encoding="utf-8") for p in (pages / "public").rglob("*.html"))
