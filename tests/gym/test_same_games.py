"""The env runs the engine of `treasure run`: the same agent gives the same log, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("gymnasium")

from helpers import ROOT  # noqa: E402
from treasure_cli.agents.planner import PlanningAgent  # noqa: E402  (the agent `logic` names)
from treasure_cli.formats.game_record import format_log  # noqa: E402
from treasure_cli.formats.map_file import read_map  # noqa: E402
from treasure_cli.gym import TreasureIslandEnv  # noqa: E402
from treasure_cli.play.runner import RunOptions, game_seed, map_label, play_map  # noqa: E402
from treasure_cli.rules import seeds  # noqa: E402

MAPS = sorted((ROOT / "input").glob("MAP_*.txt"))  # MAP_02 and MAP_05 use the teleport
POLICY = ROOT / "tests" / "gym" / "policy_example.py"


def env_log(map_path: Path, agent_name: str, choose, options: RunOptions, **env_options) -> str:
    """Play `treasure run`'s game of `map_path` in the env, `choose(env, obs, info)` picking each action."""
    env = TreasureIslandEnv(map_path, agent_name=agent_name, map_name=map_label(map_path),
                            truth_rate=options.truth_rate, **env_options)
    obs, info = env.reset(options={"game_seed": game_seed(read_map(map_path), options)})
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(choose(env, obs, info))
        done = terminated or truncated
    return format_log(env.events)


@pytest.mark.parametrize("map_path", MAPS, ids=lambda p: p.name)
def test_the_logic_agent_through_the_env_writes_the_log_of_treasure_run(map_path):
    options = RunOptions(agent="logic")
    _, reference = play_map(map_path, options)
    agent = PlanningAgent()
    if hasattr(agent, "reset"):
        agent.reset(seeds.agent_seed(game_seed(read_map(map_path), options)))

    def choose(env, obs, info):
        action = agent.act(info["observation"])
        index = env.encode(action)
        assert index is not None, f"the space cannot express {action}"
        return index

    # a teleport grid as large as the map: one teleport action per tile, so any teleport is expressible
    text = env_log(map_path, "logic", choose, options, raw_observation=True, teleport_grid=10_000)
    assert text == reference


def test_a_policy_agent_plays_the_same_game_in_treasure_run_and_in_the_env():
    import importlib.util

    spec = importlib.util.spec_from_file_location("policy_example", POLICY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    map_path = MAPS[0]
    options = RunOptions(agent=f"{POLICY}:make_agent")
    record, reference = play_map(map_path, options)
    assert reference is not None, record.error
    text = env_log(map_path, options.agent, lambda env, obs, info: module.policy(obs, info["action_mask"]), options)
    assert text == reference
