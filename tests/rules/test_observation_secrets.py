"""RULES §3: the observation an agent is handed does not contain the treasure, and leads to
nothing that does: not the game, not the referee's island, not the tables the hint draw keeps
for the treasure. An agent in the referee's process (a built-in, `--agent-isolation none`, the
Gymnasium env) sees the same objects; once, the public island shared the hint draw's tests of
the real treasure with the referee's, so `obs.island._shared` named the treasure's tile."""

from __future__ import annotations

import gc
import types

import pytest
from helpers import ROOT

from treasure_cli.agents.logic import LogicAgent
from treasure_cli.formats.map_file import read_map
from treasure_cli.play.loop import play_agent
from treasure_cli.rules import hint_draw
from treasure_cli.rules.game import Game
from treasure_cli.rules.island import Island

SKIPPED = (types.ModuleType, type, types.BuiltinFunctionType, types.CodeType, types.FrameType)


def secrets_reached(roots: list[object]) -> list[str]:
    """The paths from `roots` to the game, an island with its treasure, or the draw's tables of
    treasures. Follows every object's references, a function's closure and defaults but not
    its module's globals (from which anything is reachable by name, as from any import)."""
    found, seen = [], set()
    stack = [(root, type(root).__name__) for root in roots]
    while stack:
        obj, path = stack.pop()
        if id(obj) in seen or isinstance(obj, SKIPPED):
            continue
        seen.add(id(obj))
        if isinstance(obj, (Game, hint_draw._Tested)) or (isinstance(obj, Island) and obj.treasure is not None):
            found.append(path)
            continue
        if isinstance(obj, types.FunctionType):
            refs = [cell.cell_contents for cell in obj.__closure__ or ()] + list(obj.__defaults__ or ())
        elif isinstance(obj, types.MethodType):
            refs = [obj.__self__]
        else:
            refs = gc.get_referents(obj)
        stack += [(ref, f"{path} > {type(ref).__name__}") for ref in refs]
    return found


class Keeper:
    """`logic`, keeping every observation it is handed."""

    def __init__(self) -> None:
        self.agent, self.seen = LogicAgent(), []

    def act(self, obs):
        self.seen.append(obs)
        return self.agent.act(obs)


@pytest.mark.parametrize("name", ["MAP_01.txt", "MAP_03.txt"])
def test_no_observation_leads_to_the_treasure(name):
    island = read_map(ROOT / "input" / name)
    keepers = []
    for seed in range(3):  # games in a row on one island object, as bench and Gymnasium play them
        keeper = Keeper()
        list(play_agent(Game(island, seed, agent_name="logic", map_name=name), keeper))
        keepers.append(keeper)
    observations = [obs for keeper in keepers for obs in keeper.seen]
    assert observations and all(obs.island.treasure is None for obs in observations)
    assert secrets_reached(observations) == []
    assert secrets_reached([island]) != []  # the crawl finds them where they are: the referee's island


def test_the_draws_tables_of_treasures_stay_with_the_referees_island():
    island = read_map(ROOT / "input" / "MAP_02.txt")
    list(Game(island, 1, agent_name="logic", map_name="MAP_02.txt").start())
    tested = hint_draw._tested(island)
    assert island.treasure in tested.land_treasures
    assert hint_draw._Tested not in {type(value) for value in island.public()._shared.values()}
