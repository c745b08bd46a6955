"""An agent that guesses the base seed: with a known one it finds the treasure before its first move;
with the store's secret one (bench --db's default) it finds nothing and plays a fair agent's games.

The oracle uses only its observation and the program's public functions: for every tile the
treasure could be on, it rebuilds the island with the treasure there, derives the game seed as
`run` and `bench --maps` do from each base seed it can guess (the defaults 0 and 1, small ones)
and each game index, and keeps the tiles whose game starts the agent where it stands with the
first hint it was given. One tile left: it teleports there and scans. Otherwise it is `logic`.
"""

from __future__ import annotations

import json
import re
import secrets

import numpy as np
from click.testing import CliRunner

from treasure_cli.cli import cli
from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.map_file import read_map, write_map
from treasure_cli.sandbox import process as agent_process

from security.attacks import write_agent

# The body of attack(obs) (tests/security/attacks.py makes the agent around it).
ORACLE = """
import numpy as np
from treasure_cli.rules.seeds import bench_map_game_seed as map_game_seed
from treasure_cli.rules import events as ev
from treasure_cli.rules import seeds
from treasure_cli.rules.game import Game
from treasure_cli.rules.island import Island

isl = obs.island
start = next(e.pos for e in obs.news if type(e) is ev.AgentPlaced)
found = []
for r, c in zip(*np.nonzero(isl.walkable & ~isl.prison)):
    tile = (int(r), int(c))
    island = Island(isl.regions, isl.mountain, isl.prison, isl.reveal_turn, isl.free_turn, treasure=tile)
    # run's and bench's derivations from the base seeds it can guess (run's default 0, bench's 1).
    guesses = [s for base in range(3) for s in (seeds.map_seed(base, island.digest),
                                                 *(map_game_seed(base, island.digest, i) for i in range(3)))]
    for seed in guesses:
        try:
            events = Game(island, seed).start()
        except Exception:
            break
        placed = next(e.pos for e in events if type(e) is ev.AgentPlaced)
        given = next(e.hint for e in events if type(e) is ev.HintGiven)
        if placed == start and given == obs.hints[0]:
            found.append(tile)
            break
if len(found) == 1:
    return found[0]
"""


def test_the_seed_oracle_wins_with_a_known_seed_and_plays_fair_with_the_stores_secret(tmp_path, monkeypatch):
    # The store's secret, fixed here so that the test plays the same games every time (any value
    # the oracle does not guess will do; a real store draws it from `secrets`).
    monkeypatch.setattr(secrets, "randbits", lambda bits: 5_218_664_091_377_409_123)
    maps = tmp_path / "hidden"
    maps.mkdir()
    for i in range(3):
        write_map(generate_island(12, 12, rng=np.random.default_rng(70 + i)), maps / f"MAP_{i + 1:02d}.txt")
    oracle = write_agent(tmp_path / "oracle.py", ORACLE, {})

    def tournament(store: str, *args: str) -> dict[str, list[dict]]:
        result = CliRunner().invoke(cli, ["bench", "--agents", f"logic,{oracle}", "--maps", str(maps),
                                          "--games", "3", "--db", str(tmp_path / store), "--json", "--no-timing",
                                          "--game-timeout", "60", *args])
        assert result.exit_code == 0, result.output
        games: dict[str, list[dict]] = {}
        for g in json.loads(result.stdout)["games"]:
            games.setdefault("oracle" if g["agent"] == oracle else g["agent"], []).append(g)
        return games

    treasures = {p.name: read_map(p).treasure for p in maps.iterdir()}

    def named(games: list[dict]) -> list[bool]:
        """For each game the oracle claimed to recognise: whether the tile it named is the treasure."""
        out = []
        for g in games:
            said = re.search(r"CHEATED \((\d+), (\d+)\)", g.get("output", ""))
            if said:
                out.append((int(said[1]), int(said[2])) == treasures[g["map"]])
        return out

    try:
        # With bench's known default seed the attack works: it names the treasure in most games
        # (where two tiles' games start alike it cannot tell them apart), and wins them before a move.
        known = tournament("known.sqlite", "--seed", "1")
        assert named(known["oracle"]).count(True) >= len(known["oracle"]) // 2 and all(named(known["oracle"]))
        assert all(g["turns"] == 1 for g in known["oracle"] if "CHEATED" in g.get("output", ""))
        # With the store's secret seed it never names the treasure: what it still "recognises" (another
        # tile whose game under a guessed seed happens to start alike) is a wrong tile, and costs it.
        secret = tournament("secret.sqlite")
        assert named(secret["oracle"]).count(True) == 0
        fair = {(g["map"], g["seed"]): (g["outcome"], g["turns"]) for g in secret["logic"]}
        for g in secret["oracle"]:
            if "CHEATED" not in g.get("output", ""):
                assert (g["outcome"], g["turns"]) == fair[g["map"], g["seed"]]  # logic's own game
        one_turn = sum(g["outcome"] == "WIN" and g["turns"] == 1 for g in secret["oracle"])
        assert one_turn <= sum(g["outcome"] == "WIN" and g["turns"] == 1 for g in secret["logic"])
    finally:
        agent_process.close_all()
