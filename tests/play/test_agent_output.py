"""What an agent printed, at the turn it printed it (`run --agent-output`, issue 42): in the log as
its own event, in the terminal replay and on the page beside that turn's step; without the
option, the log as before."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import read_log
from treasure_cli.play.loop import PRINTED_LINE_CHARS, PRINTED_LINES, printed_events
from treasure_cli.rules import events as ev
from treasure_cli.sandbox.levels import bwrap_works
from treasure_cli.view.page import page_data
from treasure_cli.view.sources import open_log

LEVELS = ["none", "process"] + (["sandbox"] if bwrap_works() else [])

# Scans where it stands (on this 64x64 map it finds nothing before the pirate wins, on turn 31),
# and prints at turns 2 and 5 only: a line on stdout, one with an escape character on stderr.
CHATTY = '''\
import sys

from treasure_cli.rules.actions import LargeScan


class Chatty:
    def act(self, obs):
        if obs.turn in (2, 5) and obs.actions_left == 2:
            print(f"thinking at turn {obs.turn}")
            print(f"worried\\x1b[31m at turn {obs.turn}", file=sys.stderr)
        return LargeScan()
'''

EXPECTED = [(turn, text) for turn in (2, 5) for text in (f"thinking at turn {turn}", f"worried\x1b[31m at turn {turn}")]


@pytest.fixture
def played(tmp_path, monkeypatch):
    (tmp_path / "prints_at_turns.py").write_text(CHATTY)
    shutil.copy(ROOT / "input" / "MAP_03.txt", tmp_path / "MAP_03.txt")
    monkeypatch.chdir(tmp_path)

    def play(level, *options):
        out = tmp_path / f"out-{level}-{len(options)}"
        result = CliRunner().invoke(cli, ["run", "MAP_03.txt", str(out), "--agent", "prints_at_turns.py:Chatty",
                                          "--agent-isolation", level, *options])
        assert result.exit_code == 0, result.output
        return out / "LOG_03.txt"
    return play


@pytest.mark.parametrize("level", LEVELS)
def test_printed_lines_are_in_the_log_the_replay_and_the_page_at_their_turn(played, level):
    log = played(level, "--agent-output", "--html")
    events = read_log(log)
    printed = [(e.turn, e.text) for e in events if isinstance(e, ev.AgentPrinted)]
    assert printed == EXPECTED
    text = log.read_text()
    assert 'turn 2: the agent printed "worried\\u001b[31m at turn 2"' in text  # escaped: one line, no escape byte
    assert "\x1b" not in text
    for i, e in enumerate(events):  # each comes right before the action it was printed while choosing
        if isinstance(e, ev.AgentPrinted):
            after = next(x for x in events[i + 1:] if not isinstance(x, ev.AgentPrinted))
            assert isinstance(after, ev.AreaScanned) and after.turn == e.turn

    # The terminal replay: the lines are in the frame of that turn's first action.
    shown = CliRunner().invoke(cli, ["replay", str(log), "--no-pause", "--no-color", "--window", "8x8"])
    assert shown.exit_code == 0, shown.output
    frames = re.split(r"^(?=step \d+ of \d+, turn \d+)", shown.output, flags=re.M)[1:]
    seen = [(int(re.match(r"step \d+ of \d+, turn (\d+)", f)[1]), line) for f in frames
            for line in re.findall(r"^> turn \d+: the agent printed (.*)$", f, flags=re.M)]
    assert seen == [(turn, json.dumps(text)) for turn, text in EXPECTED]
    assert all("scans" in f for f in frames if "the agent printed" in f)

    # The page: the same lines, in the steps of those turns.
    data = page_data(open_log(log))["steps"]
    on_page = [(turn, line) for turn, lines in zip(data["turn"], data["lines"]) for line in lines
               if "the agent printed" in line]
    assert on_page == [(turn, f"turn {turn}: the agent printed {json.dumps(text)}") for turn, text in EXPECTED]
    page = log.with_suffix(".html").read_text()
    assert json.dumps(on_page[0][1])[1:-1] in page


def test_without_the_option_the_log_is_as_before(played):
    events = read_log(played("process"))
    assert not any(isinstance(e, ev.AgentPrinted) for e in events)
    with_output = read_log(played("process", "--agent-output"))
    assert [e for e in with_output if not isinstance(e, ev.AgentPrinted)] == events


def test_printed_lines_are_bounded():
    many = "\n".join(f"line {i}" for i in range(PRINTED_LINES + 5))
    kept = printed_events(3, many)
    assert [e.text for e in kept[:-1]] == [f"line {i}" for i in range(PRINTED_LINES)]
    assert kept[-1] == ev.AgentPrinted(3, "[5 more lines not kept]")
    (long,) = printed_events(3, "x" * (PRINTED_LINE_CHARS + 50))
    assert long.text == "x" * PRINTED_LINE_CHARS + "..."
    assert printed_events(3, "") == []


@pytest.mark.parametrize("level", ["none", "process"])
def test_the_live_view_shows_the_printed_lines_at_their_turn_and_nothing_leaks(played, level, tmp_path):
    """run --step --agent-output: the lines are in the live frames of their turns; an agent in this
    process prints nothing into the watcher's terminal (its print() is kept, not shown raw)."""
    result = CliRunner().invoke(cli, ["run", "MAP_03.txt", str(tmp_path / "live"), "--step", "--no-pause",
                                      "--no-color", "--window", "8x8", "--agent", "prints_at_turns.py:Chatty",
                                      "--agent-isolation", level, "--agent-output"])
    assert result.exit_code == 0, result.output
    frames = re.split(r"^(?=step \d+ of \d+, turn \d+|step \d+, turn \d+)", result.output, flags=re.M)[1:]
    seen = [(int(re.search(r"turn (\d+)", f.splitlines()[0])[1]), line) for f in frames
            for line in re.findall(r"^> turn \d+: the agent printed (.*)$", f, flags=re.M)]
    assert seen == [(turn, json.dumps(text)) for turn, text in EXPECTED]
    assert not re.search(r"^(thinking|worried)", result.output, flags=re.M)  # never raw
    assert [(e.turn, e.text) for e in read_log(tmp_path / "live" / "LOG_03.txt")
            if isinstance(e, ev.AgentPrinted)] == EXPECTED


@pytest.mark.parametrize("level", ["none", "process"])
def test_bench_keeps_the_printed_lines_in_the_logs_it_keeps(played, level, tmp_path):
    """bench --keep-logs --agent-output: the kept log holds the lines at their turns, as run's does;
    without the option, the same game's kept log has none and is otherwise the same."""
    def kept(folder, *options):
        result = CliRunner().invoke(cli, ["bench", "--agents", "prints_at_turns.py:Chatty", "--maps", "MAP_03.txt",
                                          "--games", "1", "-j", "1", "--keep-logs", str(folder), "--keep", "all",
                                          "--agent-isolation", level, *options])
        assert result.exit_code == 0, result.output
        (log,) = folder.glob("*.txt")
        return read_log(log)

    with_output = kept(tmp_path / "with", "--agent-output")
    assert [(e.turn, e.text) for e in with_output if isinstance(e, ev.AgentPrinted)] == EXPECTED
    without = kept(tmp_path / "without")
    assert not any(isinstance(e, ev.AgentPrinted) for e in without)
    assert [e for e in with_output if not isinstance(e, ev.AgentPrinted)] == without


@pytest.mark.parametrize("level", ["none", "process"])
def test_check_agent_keeps_the_printed_lines_in_the_logs_it_keeps(played, level, tmp_path):
    """check-agent --keep-logs --agent-output: the lines at their turns in the log kept, and a
    play that prints is still deterministic (what it printed is not compared)."""
    result = CliRunner().invoke(cli, ["check-agent", "prints_at_turns.py:Chatty", "--games", "1", "--sizes", "32",
                                      "--keep-logs", str(tmp_path / "kept"), "--agent-output",
                                      "--agent-isolation", level])
    assert "ok    deterministic" in result.output, result.output
    events = read_log(tmp_path / "kept" / "LOG_01.txt")
    assert [(e.turn, e.text) for e in events if isinstance(e, ev.AgentPrinted)] == EXPECTED
    alone = CliRunner().invoke(cli, ["check-agent", "prints_at_turns.py:Chatty", "--games", "1", "--sizes", "32",
                                     "--agent-output"])
    assert alone.exit_code == 2 and "--agent-output goes with --keep-logs" in alone.output, alone.output
