"""A group that knows where the treasure is, and waits a turn so as not to be flagged.

The report flags a group that wins on the first turn more often once it has played a map than in
its first game there (grading/early_wins.py): what a tile carried from an earlier game (the clock
between games, the page cache without memory groups: docs/security.md) buys. It looked at the
first turn alone, so a group that knew the tile and spent its first turn on two scans where it stood,
then teleported onto the treasure on the second, won every later game in two turns
and was not flagged. Now wins by the second and by the third turn are weighed too, by Fisher's exact
test (later games against first games), each chance times two. Five maps: with fewer first games
than that, no exact test can tell a rate apart at the flag's 1 in 1,000.

The tile is carried here as the flag's own test carries it: the group reads the map file at
`--agent-isolation process`, where it can, standing for whatever channel a group has.
"""

from __future__ import annotations

import json

from helpers import GREEDY_GROUP, invoke, shipped_maps

WAITER = """import json
from pathlib import Path

from treasure_cli import LargeScan, Teleport
from treasure_cli.agents.greedy import GreedyAgent

MEMO = Path({memo!r})
MAPS = {maps!r}


class Waiter(GreedyAgent):
    def __init__(self):
        super().__init__()
        self.plan = None

    def act(self, obs):
        if self.plan is None:
            known = json.loads(MEMO.read_text()) if MEMO.exists() else {{}}
            key = str(obs.island.width)
            if key in known:  # a later game: a turn that looks like play, then the tile
                tile = tuple(known[key])
                self.plan = [LargeScan(), LargeScan(), Teleport(tile), LargeScan()]
            else:  # its first game on the map: it plays, and learns the tile
                self.plan = []
                known[key] = [int(x) for x in Path(MAPS[key]).read_text().splitlines()[4].split()]
                MEMO.write_text(json.dumps(known))
        if self.plan:
            return self.plan.pop(0)
        return super().act(obs)
"""


GAMES = 6


def test_a_group_that_wins_on_the_second_turn_once_it_knows_the_map_is_flagged(tmp_path):
    names = ("MAP_01.txt", "MAP_02.txt", "MAP_03.txt", "MAP_04.txt", "MAP_05.txt")  # 16x16 to 128x128
    maps = shipped_maps(tmp_path / "maps", *names)
    klass = tmp_path / "class"
    klass.mkdir()
    memo = {(maps / name).read_text().split()[0]: str(maps / name) for name in names}
    (klass / "waits.py").write_text(WAITER.format(memo=str(tmp_path / "memo.json"), maps=memo))
    (klass / "plays.py").write_text(GREEDY_GROUP.format(name="Plays"))
    db = str(tmp_path / "r.sqlite")
    played = invoke("tournament", str(klass), "--maps", str(maps), "--db", db, "--games", str(GAMES), "--seed", "3",
                    "--agent-isolation", "process", "--jobs", "1")
    assert played.exit_code == 0, played.output
    report = invoke("tournament", "--db", db, "--report", "--json")
    assert report.exit_code == 0, report.output
    standings = {s["agent"]: s for s in json.loads(report.stdout)["standings"]}
    assert standings["waits"]["wins"] >= 5 * (GAMES - 1), standings["waits"]  # the cheat paid: every later game on turn 2
    text = invoke("tournament", "--db", db, "--report")
    flagged = [line.split()[0] for line in text.output.splitlines() if "once it had played their map" in line]
    assert flagged == ["waits"], text.output


def test_fishers_exact_tail():
    from math import comb

    from treasure_cli.grading.early_wins import hypergeometric_tail

    assert abs(hypergeometric_tail(25, 25, 26, 30) - 26 / comb(30, 25)) < 1e-15  # 25 of 25 later, 1 of 5 first
    assert abs(hypergeometric_tail(3, 5, 3, 10) - comb(7, 2) / comb(10, 5)) < 1e-15
    assert hypergeometric_tail(0, 5, 3, 10) == 1.0
    assert abs(sum(hypergeometric_tail(k, 5, 3, 10) - hypergeometric_tail(k + 1, 5, 3, 10) for k in range(6)) - 1) < 1e-12
