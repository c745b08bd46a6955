"""Every command that plays or shows a game, with every kind of agent, at every isolation level
this machine offers (issue 42): a student's first try of any command with their own agent works.

One game each on a tiny map. The kinds: a built-in, a Python file, a Python file with a helper
module beside it, a module spec, a C++ program (examples/cpp, built here with g++), a Python
program speaking the protocol (examples/plain_agent.py, run as exec:), a script in another
language (POSIX sh, run as exec:), and a trained policy (a gym PolicyAgent behind a factory).
The commands: run (--step, --html, --notes, --json), check-agent, bench, tournament then replay --db, and contest (with its page). The
Gymnasium env has no opponent or policy slot that takes an agent: a trained policy plays
through --agent, which this covers.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from click.testing import CliRunner
from helpers import ROOT, SMALL_MAP

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import read_log
from treasure_cli.rules import events as ev
from treasure_cli.sandbox.levels import bwrap_works

LEVELS = ["none", "process"] + (["sandbox"] if bwrap_works() else [])

HELPER_AGENT = '''\
from tactics import first_scan


class HelperAgent:
    def act(self, obs):
        return first_scan()
'''
HELPER = '''\
from treasure_cli.rules.actions import LargeScan


def first_scan():
    return LargeScan()
'''

# A script in another language than Python: POSIX sh, which every machine and sandbox has. It
# scans where it stands at every action (a message's type is its first field).
SHELL_AGENT = """#!/bin/sh
while IFS= read -r line; do
  case "$line" in
    '{"type":"hello"'*|'{"type": "hello"'*) echo '{"type": "hello", "protocol": 1, "tiles": false}' ;;
    '{"type":"act"'*|'{"type": "act"'*) echo '{"type": "action", "action": "scan"}' ;;
    '{"type":"end"'*|'{"type": "end"'*) echo '{"type": "ready"}' ;;
    '{"type":"bye"'*|'{"type": "bye"'*) exit 0 ;;
  esac
done
"""

KINDS = ["builtin", "file", "package", "module", "cpp", "script", "shell", "policy"]

@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The tiny map in maps/, and every kind of agent's spec."""
    where = tmp_path_factory.mktemp("every-agent")
    (where / "maps").mkdir()
    (where / "maps" / "MAP_01.txt").write_text(SMALL_MAP)
    (where / "pkg").mkdir()
    (where / "pkg" / "agent.py").write_text(HELPER_AGENT)
    (where / "pkg" / "tactics.py").write_text(HELPER)
    (where / "sh").mkdir()
    (where / "sh" / "agent.sh").write_text(SHELL_AGENT)
    (where / "sh" / "agent.sh").chmod(0o755)
    if shutil.which("g++") is None or shutil.which("make") is None:
        pytest.fail("g++ and make are needed to build the C++ example agent (apt-get install g++ make)")
    build = where / "cpp"
    done = subprocess.run(["make", "-s", "-C", str(ROOT / "examples" / "cpp"), f"BUILD={build}"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    specs = {
        "builtin": "greedy",
        "file": f"{ROOT / 'examples' / 'densest_scan.py'}:DensestScan",
        "package": f"{where / 'pkg' / 'agent.py'}:HelperAgent",
        "module": "treasure_cli.agents.greedy:GreedyAgent",
        "cpp": f"exec:{build / 'treasure-agent'}",
        "script": f"exec:{ROOT / 'examples' / 'plain_agent.py'}",
        "shell": f"exec:{where / 'sh' / 'agent.sh'}",
        "policy": f"{ROOT / 'tests' / 'gym' / 'policy_example.py'}:make_agent",
    }
    return where, specs


def invoke(args, where, monkeypatch, **kw):
    monkeypatch.chdir(where)
    return CliRunner().invoke(cli, args, catch_exceptions=False, **kw)


def played_log(path):
    """A log's events, checked to end with the game over."""
    events = read_log(path)
    assert isinstance(events[-1], ev.GameEnded), path
    return events


def run_step(where, spec, level, monkeypatch):
    out = where / f"step-{level}"
    shutil.rmtree(out, ignore_errors=True)
    # Enter at each step, as a student watching it live; the rest is played unseen when input ends.
    result = invoke(["run", "maps/MAP_01.txt", str(out), "--step", "--agent", spec, "--agent-isolation", level,
                     "--game-timeout", "30"], where, monkeypatch, input="\n" * 6 + "q\n")
    assert result.exit_code == 0, result.output
    assert "Error" not in result.output, result.output
    assert "turn 1" in result.output  # it was seen, step by step
    played_log(out / "LOG_01.txt")


def run_html(where, spec, level, monkeypatch):
    out = where / f"html-{level}"
    result = invoke(["run", "maps/", str(out), "--html", "--agent", spec, "--agent-isolation", level],
                    where, monkeypatch)
    assert result.exit_code == 0, result.output
    played_log(out / "LOG_01.txt")
    assert "<html" in (out / "LOG_01.html").read_text().lower()


def run_notes(where, spec, level, monkeypatch):
    out = where / f"notes-{level}"
    result = invoke(["run", "maps/", str(out), "--notes", "--agent", spec, "--agent-isolation", level],
                    where, monkeypatch)
    assert result.exit_code == 0, result.output
    played_log(out / "LOG_01.txt")


def run_json(where, spec, level, monkeypatch):
    out = where / f"json-{level}"
    result = invoke(["run", "maps/", str(out), "--json", "--agent", spec, "--agent-isolation", level],
                    where, monkeypatch)
    assert result.exit_code == 0, result.output
    games = json.loads(result.stdout)
    assert len(games) == 1 and games[0]["outcome"] in ("WIN", "LOSE"), games


def check_agent(where, spec, level, monkeypatch):
    result = invoke(["check-agent", spec, "--games", "1", "--sizes", "10", "--agent-isolation", level],
                    where, monkeypatch)
    assert result.exit_code == 0, result.output


def bench(where, spec, level, monkeypatch):
    result = invoke(["bench", "--agents", spec, "--maps", "maps/", "--games", "1", "-j", "1", "--json",
                     "--agent-isolation", level], where, monkeypatch)
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)["stats"]
    assert sum(s["failed"] for s in stats) == 0 and sum(s["games"] for s in stats) == 1, stats


def tournament_and_replay(where, spec, level, monkeypatch):
    db = where / f"results-{level}.sqlite"
    db.unlink(missing_ok=True)
    # A known seed (with its warning): the game played, and so whether it fails, is the same every run.
    result = invoke(["tournament", "--with", spec, "--maps", "maps/", "--games", "1", "-j", "1", "--db", str(db),
                     "--seed", "1", "--json", "--agent-isolation", level], where, monkeypatch)
    assert result.exit_code == 0, result.output
    games = json.loads(result.stdout)["games"]
    assert len(games) == 1 and games[0]["outcome"] in ("WIN", "LOSE"), games
    shown = invoke(["replay", "--db", str(db), games[0]["game_id"], "--maps", "maps/", "--no-pause", "--no-color",
                    "--agent-isolation", level], where, monkeypatch)
    assert shown.exit_code == 0, shown.output
    assert "Error" not in shown.output and "turn 1" in shown.output, shown.output


def contest(where, spec, level, monkeypatch):
    """The agent plays a contest on the map (a built-in as a baseline, any other kind as a group),
    and the contest's page is written."""
    db = where / f"contest-{level}.sqlite"
    db.unlink(missing_ok=True)
    page = where / f"contest-{level}"
    shutil.rmtree(page, ignore_errors=True)
    result = invoke(["contest", "maps/MAP_01.txt", "--with", spec, "--games", "1", "-j", "1", "--db", str(db),
                     "--seed", "1", "--html", str(page), "--json", "--agent-isolation", level], where, monkeypatch)
    assert result.exit_code == 0, result.output
    (placing,) = json.loads(result.stdout)["placings"]
    assert placing["failed"] == 0 and [g["outcome"] for g in placing["games"]] in (["WIN"], ["LOSE"]), placing
    assert "<html" in (page / "index.html").read_text().lower()


COMMANDS = {"run_step": run_step, "run_html": run_html, "run_notes": run_notes, "run_json": run_json,
            "check_agent": check_agent, "bench": bench, "tournament_replay_db": tournament_and_replay,
            "contest": contest}


def cases():
    for command in COMMANDS:
        for kind in KINDS:
            for level in LEVELS:
                yield pytest.param(command, kind, level, id=f"{command}-{kind}-{level}")


@pytest.mark.parametrize(("command", "kind", "level"), list(cases()))
def test_every_command_with_every_agent(world, command, kind, level, monkeypatch):
    where, specs = world
    COMMANDS[command](where, specs[kind], level, monkeypatch)
