"""The teacher's replay page of a game is the game that was graded, or says it is not.

`--report --html` (and `replay --db`) play each stored game again to draw it, and called the game
the same when it ended the same: the outcome, the reason and the turn. An agent that reaches the
same end by other actions was shown as it played the second time, with nothing to say so: a
teacher looking into a group's win saw a game that was not the one graded. Here the group knows
the treasure (it reads the map file at `--agent-isolation process`, as a channel would carry it)
and chooses at random between two ways to win on the first turn: a teleport onto it and a scan,
or a scan where it stands first. The store keeps each game's actions as a digest
(`play_digest`), and a game played again must now match it too.
"""

from __future__ import annotations

import re

from helpers import invoke, shipped_maps

DICE = """import os
from pathlib import Path

from treasure_cli import LargeScan, Teleport

MAPS = {maps!r}


class Dice:
    def __init__(self):
        self.plan = None

    def act(self, obs):
        if self.plan is None:
            tile = tuple(int(x) for x in Path(MAPS[str(obs.island.width)]).read_text().splitlines()[4].split())
            self.plan = [Teleport(tile), LargeScan()]
            if os.urandom(1)[0] & 1:  # another way to the same end, by chance
                self.plan.insert(0, LargeScan())
        return self.plan.pop(0)
"""

GAMES = 8


def test_a_replay_page_that_is_not_the_graded_game_says_so(tmp_path):
    maps = shipped_maps(tmp_path / "maps", "MAP_02.txt")
    klass = tmp_path / "class"
    klass.mkdir()
    (klass / "dice.py").write_text(DICE.format(maps={"32": str(maps / "MAP_02.txt")}))
    db = str(tmp_path / "r.sqlite")
    played = invoke("tournament", str(klass), "--maps", str(maps), "--db", db, "--games", str(GAMES), "--seed", "3",
                    "--agent-isolation", "process", "--jobs", "1")
    assert played.exit_code == 0, played.output
    pages = tmp_path / "pages"
    report = invoke("tournament", "--db", db, "--report", "--maps", str(maps), "--html", str(pages),
                    "--agent-isolation", "process")
    assert report.exit_code == 0, report.output
    games = sorted((pages / "teacher").glob("game-*.html"))
    assert len(games) == GAMES
    other = [p.name for p in games if "does not play the same game" in p.read_text(encoding="utf-8")]
    # Each game is played again the same way with a chance of 1 in 2: all 8 the same, 1 in 256.
    assert other, "every replay page was taken for the graded game"
    for page in other:  # and such a page draws no replay that could be taken for it
        text = (pages / "teacher" / page).read_text(encoding="utf-8")
        assert not re.search(r'<script id="game-data"', text), page
