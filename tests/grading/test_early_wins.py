"""First-turn wins that play does not explain (grading/early_wins.py): what a group shows that
learnt where the treasure was from an earlier game on the map (docs/security.md, "Side channels",
the page cache timed), flagged for the teacher in the report's table, the gradebook and the
teacher's index, never in what is published."""

from __future__ import annotations

import csv
import shutil

from helpers import GREEDY_GROUP, ROOT, invoke

from treasure_cli.grading.early_wins import binomial_tail, early_wins
from treasure_cli.grading.store import Row
from treasure_cli.play.records import settings_key

# Knows where the treasure is (the test writes the map's path in): teleports onto it, then scans.
KNOWING = """from pathlib import Path

from treasure_cli import LargeScan, Teleport


class Knowing:
    def __init__(self):
        self.jumped = False

    def act(self, obs):
        if not self.jumped:
            self.jumped = True
            row, col = map(int, Path({path!r}).read_text().splitlines()[4].split())
            return Teleport((row, col))
        return LargeScan()
"""


def rows_of(agent: str, first: int, later: int, start: int) -> list[Row]:
    """`first` games won on turn 1 and `later` won on turn 6, ids from `start`."""
    return [Row(agent, "d", settings_key(0.5, None, None), "m.txt", "md", k, k, "16x16", "WIN", "found", None, 1 if k < first else 6, 0.1,
                "v", id=start + k) for k in range(first + later)]


def test_the_binomial_tail():
    assert binomial_tail(0, 10, 0.3) == 1.0
    assert abs(binomial_tail(1, 10, 0.1) - (1 - 0.9 ** 10)) < 1e-12
    assert abs(binomial_tail(10, 10, 0.5) - 0.5 ** 10) < 1e-15
    assert 0.0 < binomial_tail(900, 1000, 0.05) < 1e-300 or binomial_tail(900, 1000, 0.05) == 0.0


def test_only_the_agent_with_more_first_turn_wins_than_any_other_explains_is_flagged():
    rows = rows_of("ann", 16, 4, 0) + rows_of("bob", 2, 18, 100) + rows_of("cyd", 3, 17, 200)
    labels = {r.id or 0: r.agent for r in rows}
    flagged = early_wins(rows, labels)
    assert [(e.agent, e.first, e.games, e.other) for e in flagged] == [("ann", 16, 20, "cyd")]
    assert flagged[0].p_value < 1e-6
    # as lucky as the best other: no flag
    rows = rows_of("ann", 4, 16, 0) + rows_of("bob", 3, 17, 100)
    assert early_wins(rows, {r.id or 0: r.agent for r in rows}) == ()


def test_a_group_that_knows_the_treasure_is_flagged_for_the_teacher_only(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    shutil.copy(ROOT / "input" / "MAP_03.txt", maps / "MAP_03.txt")
    klass = tmp_path / "class"
    klass.mkdir()
    # the map's treasure known, as a game that learnt it from an earlier game on the map would
    (klass / "knows.py").write_text(KNOWING.format(path=str(maps / "MAP_03.txt")))
    (klass / "plays.py").write_text(GREEDY_GROUP.format(name="Plays"))
    db = str(tmp_path / "r.sqlite")
    played = invoke("tournament", str(klass), "--maps", str(maps), "--db", db, "--games", "12", "--seed", "3",
                    "--with", "logic", "--agent-isolation", "process")
    assert played.exit_code == 0, played.output
    grades, pages = tmp_path / "grades.csv", tmp_path / "pages"
    report = invoke("tournament", "--db", db, "--report", "--csv", str(grades), "--html", str(pages))
    assert report.exit_code == 0, report.output
    assert "First-turn wins" in report.output
    flagged = [line for line in report.output.splitlines() if "games on the first turn" in line]
    assert len(flagged) == 1 and flagged[0].split()[0] == "knows", report.output
    with open(grades, newline="", encoding="utf-8") as f:
        rows = {r["student"]: r["flags"] for r in csv.DictReader(f)}
    assert rows["knows"].startswith("first-turn wins: ") and rows["plays"] == "" and rows["logic"] == ""
    assert 'id="early-wins"' in (pages / "teacher" / "index.html").read_text(encoding="utf-8")
    assert not any("first turn" in p.read_text(encoding="utf-8") for p in (pages / "public").rglob("*.html"))
