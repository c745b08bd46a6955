"""A program's illegal action is quoted as the JSON it sent, not as this program's Python repr (issue 42)."""

from __future__ import annotations

import json
import sys

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


def test_an_illegal_action_of_a_program_is_quoted_as_sent(tmp_path, monkeypatch):
    (tmp_path / "MAP_01.txt").write_text(SMALL_MAP)
    program = tmp_path / "far.py"
    program.write_text(PROGRAM)
    program.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run", "MAP_01.txt", "out", "--json", "--agent", f"exec:{program}",
                                      "--agent-isolation", "process"])
    (game,) = json.loads(result.stdout)
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
