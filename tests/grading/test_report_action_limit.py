"""A report draws the page of a game stopped at its run's action limit (`--action-timeout`) under
that limit. The store does not key games by it, and the report's command (docs/grading.md) does
not repeat it: without it a looping agent's game was played again to the game's limit (60 s a
game by default: 9 minutes for one group's 9 games in a class of 22) and ended otherwise than it
is stored, so its page had nothing to show for the wait."""

from __future__ import annotations

import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.grading.store import Store

LOOPS = ("from treasure_cli import LargeScan\n\n\nclass Agent:\n    def __init__(self):\n        self.n = 0\n\n"
         "    def act(self, obs):\n        self.n += 1\n        while self.n >= 3:\n            pass\n"
         "        return LargeScan()\n")


def test_a_game_stopped_at_the_action_limit_is_played_again_to_the_same_end(tmp_path):
    (tmp_path / "class" / "loops").mkdir(parents=True)
    (tmp_path / "class" / "loops" / "agent.py").write_text(LOOPS)
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    db, runner = tmp_path / "r.sqlite", CliRunner()
    played = runner.invoke(cli, ["tournament", str(tmp_path / "class"), "--maps", str(tmp_path / "MAP_01.txt"),
                                 "--games", "1", "--db", str(db), "--seed", "3", "--jobs", "1",
                                 "--action-timeout", "1", "--game-timeout", "8"])
    assert played.exit_code == 1, played.output
    with Store(db) as store:
        (row,) = store.rows()
    assert (row.outcome, row.reason, row.turns) == ("failed", "action-timeout", 2)
    report = runner.invoke(cli, ["tournament", "--db", str(db), "--report", "--maps", str(tmp_path / "MAP_01.txt"),
                                 "--html", str(tmp_path / "pages")])
    assert report.exit_code == 0, report.output
    page = (tmp_path / "pages" / "teacher" / f"game-{row.game_id}.html").read_text()
    # played again under the run's 1 s limit it fails as stored, so its turns up to the failure have a page
    assert 'id="turns-link"' in page and "Watch its 2 turns up to the failure" in page
    assert (tmp_path / "pages" / "teacher" / f"game-{row.game_id}-turns.html").is_file()
