"""A group's agent.toml that names its class with a typo: the group's games fail, and the reason
says which class the file has ("did you mean"), as `--agent FILE:Class` does before any game
(issue 42's misspelt class, for a class found by the intake)."""

from __future__ import annotations

import json

from helpers import GREEDY_GROUP, class_folder, invoke


def test_a_misspelt_manifest_class_is_answered_with_the_class_the_file_has(tmp_path, monkeypatch):
    class_folder(tmp_path, monkeypatch, {
        "ann/agent.py": GREEDY_GROUP.format(name="StudentAgent"),
        "ann/agent.toml": 'entry = "agent.py"\nclass = "StudentAgnt"\n',
    })
    result = invoke("tournament", "students/", "--maps", "hidden/MAP_01.txt", "--games", "1", "-j", "1",
                    "--db", "results.sqlite", "--seed", "1", "--json", "--agent-isolation", "process")
    (game,) = json.loads(result.stdout)["games"]
    assert game["outcome"] == "failed", game
    assert "has no 'StudentAgnt'; did you mean 'StudentAgent'?" in game["error"], game["error"]
