"""An agent sees a plugin kind's hints as the same values in the program's process and in a
process of its own (issue 25): the Observation's hints and its news, compared as the agent got them."""

from __future__ import annotations

import numpy as np
from helpers import ROOT

from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.hint_plugins import hint_set
from treasure_cli.play.games import play_game

RECORDER = '''
from treasure_cli.agents.logic import LogicAgent


class Recorder(LogicAgent):
    """logic, writing down each Observation's hints and hint news as it gets them."""

    def act(self, obs):
        with open({path!r}, "a") as out:
            given = [e for e in obs.news if type(e).__name__ == "HintGiven"]
            out.write(repr((obs.turn, obs.actions_left, obs.hints, given)) + "\\n")
        return super().act(obs)
'''


def test_plugin_hints_reach_an_agent_as_one_value_in_and_out_of_process(tmp_path):
    kinds = hint_set([str(ROOT / "examples" / "hints" / "kinds.py")], "builtin=0")
    island = generate_island(20, 20, rng=np.random.default_rng(5))
    seen = {}
    for isolation in ("none", "process"):
        path = tmp_path / f"{isolation}.txt"
        agent = tmp_path / f"recorder_{isolation}.py"
        agent.write_text(RECORDER.format(path=str(path)))
        record, _ = play_game(island, f"{agent}:Recorder", 7, map_name="m", keep_events=False,
                              isolation=isolation, hints=kinds)
        assert record.outcome != "failed" and record.isolation == ("in-process" if isolation == "none" else isolation), \
            (record.error, record.isolation)
        seen[isolation] = path.read_text().splitlines()
    assert len(seen["none"]) >= 2 and "TileSetHint(name='" in seen["none"][0]
    assert seen["process"] == seen["none"]
