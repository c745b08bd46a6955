"""First-turn wins once a group has played a map (grading/early_wins.py): what a group shows that
learnt where the treasure was from an earlier game on the map (docs/security.md, "Side channels",
the page cache timed), flagged for the teacher in the report's table, the gradebook and the
teacher's index, never in what is published; a bold but fair strategy (first-turn wins in every
game, the first on a map too) is not flagged."""

from __future__ import annotations

import csv

from helpers import GREEDY_GROUP, invoke, shipped_maps

from treasure_cli.grading.early_wins import binomial_tail, early_wins
from treasure_cli.grading.store import Row
from treasure_cli.play.records import settings_key

# Learns where the treasure is in its first game on a map (here from the map file, as a channel
# between games would carry it, at --agent-isolation process where it can read it) and keeps it in
# a file; a later game on the map teleports onto it and scans. Its first game plays as greedy.
LEARNER = """import json
from pathlib import Path

from treasure_cli import LargeScan, Teleport
from treasure_cli.agents.greedy import GreedyAgent

MEMO = Path({memo!r})
MAPS = {maps!r}


class Learner(GreedyAgent):
    def __init__(self):
        super().__init__()
        self.asked = self.jumped = False

    def act(self, obs):
        if self.jumped:
            self.jumped = False
            return LargeScan()
        if not self.asked:
            self.asked = True
            known = json.loads(MEMO.read_text()) if MEMO.exists() else {{}}
            key = str(obs.island.width)
            if key in known:
                self.jumped = True
                return Teleport(tuple(known[key]))
            known[key] = [int(x) for x in Path(MAPS[key]).read_text().splitlines()[4].split()]
            MEMO.write_text(json.dumps(known))
        return super().act(obs)
"""

def rows_of(agent: str, openings: tuple[int, int], later: tuple[int, int], start: int) -> list[Row]:
    """(first-turn wins, games) in the agent's first game on each map and in its later ones."""
    rows = []
    for index, (first, games) in ((0, openings), (1, later)):
        for k in range(games):
            rows.append(Row(agent, "d", settings_key(0.5, None, None), f"m{k}.txt", f"m{k}", index, start + k,
                            "16x16", "WIN", "found", None, 1 if k < first else 6, 0.1, "v", id=start + k))
        start += games
    return rows


def test_the_binomial_tail():
    assert binomial_tail(0, 10, 0.3) == 1.0
    assert abs(binomial_tail(1, 10, 0.1) - (1 - 0.9 ** 10)) < 1e-12
    assert abs(binomial_tail(10, 10, 0.5) - 0.5 ** 10) < 1e-15
    assert binomial_tail(900, 1000, 0.05) < 1e-300


def test_only_more_first_turn_wins_once_the_map_was_played_is_flagged():
    learner = rows_of("ann", (1, 10), (38, 40), 0)  # 1 of 10 first games, 38 of 40 later ones
    bold = rows_of("bob", (5, 10), (21, 40), 1000)   # half of every game: a strategy, not a channel
    weak = rows_of("cyd", (0, 10), (2, 40), 2000)
    rows = learner + bold + weak
    flagged = early_wins(rows, {r.id or 0: r.agent for r in rows})
    assert [(e.agent, e.later_first, e.later, e.opening_first, e.openings) for e in flagged] == [("ann", 38, 40, 1, 10)]
    assert flagged[0].p_value < 1e-12


def test_a_group_that_learns_the_treasure_is_flagged_for_the_teacher_only(tmp_path):
    maps = shipped_maps(tmp_path / "maps", "MAP_02.txt", "MAP_03.txt")
    klass = tmp_path / "class"
    klass.mkdir()
    memo = {"32": str(maps / "MAP_02.txt"), "64": str(maps / "MAP_03.txt")}
    (klass / "learns.py").write_text(LEARNER.format(memo=str(tmp_path / "memo.json"), maps=memo))
    (klass / "plays.py").write_text(GREEDY_GROUP.format(name="Plays"))
    db = str(tmp_path / "r.sqlite")
    played = invoke("tournament", str(klass), "--maps", str(maps), "--db", db, "--games", "10", "--seed", "3",
                    "--with", "logic", "--agent-isolation", "process", "--jobs", "1")
    assert played.exit_code == 0, played.output
    grades, pages = tmp_path / "grades.csv", tmp_path / "pages"
    report = invoke("tournament", "--db", db, "--report", "--csv", str(grades), "--html", str(pages))
    assert report.exit_code == 0, report.output
    assert "First-turn wins" in report.output
    flagged = [line.split()[0] for line in report.output.splitlines() if "games on the first turn" in line]
    assert flagged == ["learns"], report.output
    with open(grades, newline="", encoding="utf-8") as f:
        cells = {r["student"]: r["flags"] for r in csv.DictReader(f)}
    assert cells["learns"].startswith("first-turn wins: 18 of 18 once it knew the map")
    assert cells["plays"] == cells["logic"] == ""
    assert 'id="early-wins"' in (pages / "teacher" / "index.html").read_text(encoding="utf-8")
    assert not any("first turn" in p.read_text(encoding="utf-8") for p in (pages / "public").rglob("*.html"))
