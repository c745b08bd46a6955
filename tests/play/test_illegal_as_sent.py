"""A program's illegal action is quoted as the JSON it sent, not as this program's Python repr (issue 42)."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner
from helpers import SMALL_MAP

from treasure_cli.cli import cli

PROGRAM = f'''#!{sys.executable}
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({{"type": "hello", "protocol": 1}}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({{"type": "action", "action": "move", "direction": "N", "steps": 9}}), flush=True)
'''


def played(tmp_path, monkeypatch, text: str) -> dict:
    """The one game `run` plays with the program `text` (an exec: agent) on a small map."""
    (tmp_path / "MAP_01.txt").write_text(SMALL_MAP)
    program = tmp_path / "far.py"
    program.write_text(text)
    program.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run", "MAP_01.txt", "out", "--json", "--agent", f"exec:{program}",
                                      "--agent-isolation", "process"])
    (game,) = json.loads(result.stdout)
    return game


def test_an_illegal_action_of_a_program_is_quoted_as_sent(tmp_path, monkeypatch):
    game = played(tmp_path, monkeypatch, PROGRAM)
    assert game["outcome"] == "failed" and game["reason"] == "illegal-action", game
    sent = '{"type": "action", "action": "move", "direction": "N", "steps": 9}'
    assert f"illegal action {sent} from the agent" in game["error"], game["error"]
    assert "Direction" not in game["error"]


def test_check_agent_quotes_a_programs_illegal_action_as_sent(tmp_path, monkeypatch):
    """check-agent times each action through a wrapper of its own: the quote must pass through it."""
    program = tmp_path / "far.py"
    program.write_text(PROGRAM)
    program.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["check-agent", f"exec:{program}", "--games", "1", "--sizes", "10",
                                      "--agent-isolation", "process"])
    assert result.exit_code == 1, result.output
    sent = '{"type": "action", "action": "move", "direction": "N", "steps": 9}'
    assert f"illegal action {sent} from the agent" in result.output, result.output
    assert "Direction" not in result.output


ANSWERS = [
    ('{"type": "action", "action": "move", "direction": "N", "steps": true}', '"steps" must be an integer, got true'),
    ('{"type": "action", "action": "verify", "hint": "3"}', '"hint" must be an integer, got "3"'),
    ('{"type": "action", "action": "verify"}', '"hint" must be an integer, it is missing'),
    ('{"type": "action", "action": "move", "direction": "up", "steps": 1}', 'N, E, S or W, got "up"'),
    ('{"type": "action", "action": "teleport", "to": [1, null]}', 'a teleport\'s "to" must be [row, col], got [1, null]'),
    ('{"type": "action", "action": "jump"}', 'unknown action "jump"'),
    ('{"type": "ready", "x": null}', 'the agent answered act with {"type": "ready", "x": null}'),
    ('[1, false]', "the agent wrote [1, false], not a JSON object"),
    ("I scan now", 'the agent wrote a line that is not JSON: "I scan now"'),
]


@pytest.mark.parametrize(("answer", "said"), ANSWERS, ids=[a[:40] for a, _ in ANSWERS])
def test_a_programs_malformed_answer_is_quoted_as_the_json_it_sent(answer, said, tmp_path, monkeypatch):
    """A program in any language reads JSON: what it sent comes back in JSON's words (true, null,
    "3"), not in this program's (True, None, '3', b'...')."""
    game = played(tmp_path, monkeypatch, PROGRAM.replace('json.dumps({{"type": "action", "action": "move", '
                                                         '"direction": "N", "steps": 9}})'
                                                         .replace("{{", "{").replace("}}", "}"), repr(answer)))
    assert game["outcome"] == "failed" and game["reason"] == "protocol", game
    assert "turn 1: " in game["error"] and said in game["error"], game["error"]
