"""An agent's notes (`Agent.explain`, `run --notes`): in the log only when asked, in the replay
beside the referee's view, and a step whose declared candidates leave out the treasure is marked."""

from __future__ import annotations

import shutil

from click.testing import CliRunner
from helpers import GOLDEN, ROOT, planted_notes_agent as planted

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import format_event, read_log
from treasure_cli.play.beliefs import misses
from treasure_cli.rules import events as ev
from treasure_cli.view.steps import shown_line

def run(*args: str):
    result = CliRunner().invoke(cli, ["run", *args])
    assert result.exit_code == 0, result.output
    return result


def test_without_notes_the_logs_are_the_golden_ones_and_with_them_only_note_lines_are_added(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # the logs record the map's path as given
    run("input", str(tmp_path / "plain"))
    run("input", str(tmp_path / "noted"), "--notes")
    for golden in sorted(GOLDEN.glob("LOG_*.txt")):
        assert (tmp_path / "plain" / golden.name).read_bytes() == golden.read_bytes()
        noted = read_log(tmp_path / "noted" / golden.name)
        notes = [e for e in noted if isinstance(e, ev.AgentNoted)]
        # tiles on the first note, then only when they change (a note without keeps the latest)
        assert notes and notes[0].tiles is not None and all(n.tiles is None or n.tiles.candidates for n in notes)
        kept = [n.tiles for n in notes if n.tiles is not None]
        assert all(a != b for a, b in zip(kept, kept[1:]))
        assert [e for e in noted if not isinstance(e, ev.AgentNoted)] == read_log(golden)
        # logic's notes say what it chose and why, and its candidates always hold the treasure
        assert all(n.text.split(" ")[1] == "candidates;" and "saves" in n.text for n in notes)
        assert misses(noted) == []


def test_a_planted_bug_is_flagged_on_its_turn_in_the_terminal_replay(tmp_path):
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    run(str(tmp_path / "MAP_01.txt"), str(tmp_path / "out"), "--agent", planted(tmp_path), "--notes")
    log = tmp_path / "out" / "LOG_01.txt"
    events = read_log(log)
    missed = misses(events)
    assert missed and {m.turn for m in missed} == {3}  # each of its actions on turn 3
    frames = CliRunner().invoke(cli, ["replay", str(log), "--map", str(tmp_path / "MAP_01.txt"), "--no-pause",
                                      "--no-color"]).output
    assert frames.count("!! turn 3: your agent ruled out the treasure's tile") == len(missed)
    assert "ruled out the treasure's tile" not in frames.split("> turn 3: the turn starts")[0]
    # Every note is shown with its step, as the log words it.
    for note in (e for e in events if isinstance(e, ev.AgentNoted)):
        assert f"> {shown_line(note)}" in frames
        assert f"agent's note: {note.text}" in frames
    assert "in the agent's note (n hides)" in frames


def test_the_planted_bug_is_caught_by_check_agent_beliefs(tmp_path):
    result = CliRunner().invoke(cli, ["check-agent", planted(tmp_path), "--beliefs", "--games", "6"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if "ruled out the treasure's tile" in line]
    assert lines and all("turn 3: your agent ruled out" in line for line in lines)
    assert "FAIL  beliefs" in result.output
    fair = CliRunner().invoke(cli, ["check-agent", "logic", "--beliefs", "--games", "3"])
    assert fair.exit_code == 0 and "ok    beliefs: in 3 of 3 games" in fair.output


def test_notes_cross_the_sandbox_unchanged(tmp_path):
    shutil.copy(ROOT / "input" / "MAP_02.txt", tmp_path / "MAP_02.txt")
    spec = planted(tmp_path)
    run(str(tmp_path / "MAP_02.txt"), str(tmp_path / "here"), "--agent", spec, "--notes", "--agent-isolation", "none")
    run(str(tmp_path / "MAP_02.txt"), str(tmp_path / "there"), "--agent", spec, "--notes")
    assert (tmp_path / "here" / "LOG_02.txt").read_text() == (tmp_path / "there" / "LOG_02.txt").read_text()
    assert " the agent notes " in (tmp_path / "there" / "LOG_02.txt").read_text()


def test_a_note_that_is_not_a_note_fails_the_game_as_the_agents_error(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("from treasure_cli.agents.logic import LogicAgent\n\n"
                    "class Bad(LogicAgent):\n    def explain(self):\n        return 'a string'\n")
    result = CliRunner().invoke(cli, ["run", str(ROOT / "input" / "MAP_01.txt"), str(tmp_path / "out"),
                                      "--agent", f"{path}:Bad", "--notes", "--json"])
    assert result.exit_code == 1
    assert "explain() must return a Note or None, not str" in result.output
    # Without --notes, explain() is never called: the same agent plays.
    assert CliRunner().invoke(cli, ["run", str(ROOT / "input" / "MAP_01.txt"), str(tmp_path / "out2"),
                                    "--agent", f"{path}:Bad"]).exit_code == 0



def test_agent_md_shows_the_notes_logic_really_writes(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    run("input/MAP_02.txt", str(tmp_path), "--notes")
    written = [line.split(", candidates ")[0] for line in (tmp_path / "LOG_02.txt").read_text().splitlines()
               if " the agent notes " in line]
    doc = (ROOT / "docs" / "agent.md").read_text()
    shown = [line.split(", candidates ")[0] for line in doc.splitlines() if line.startswith("turn ") and
             " the agent notes " in line]
    assert shown == written


def test_the_terminal_replay_shows_a_notes_control_characters_as_escapes(tmp_path):
    """A note is an agent's words; a log may come from anyone. Its escape sequences, carriage
    returns and bells must not reach the terminal (they could recolour, clear or overwrite the
    frame); the log keeps them, JSON-escaped, as said."""
    (tmp_path / "loud.py").write_text(
        "from treasure_cli import LargeScan, Note\n\n\n"
        "class Loud:\n"
        "    def act(self, obs):\n"
        "        return LargeScan()\n\n"
        "    def explain(self):\n"
        "        return Note('\\x1b[2J\\x1b[31mred\\x1b[0m\\rover\\x07')\n")
    run(str(ROOT / "input" / "MAP_01.txt"), str(tmp_path / "out"), "--agent", f"{tmp_path / 'loud.py'}:Loud",
        "--notes", "--agent-isolation", "none")
    log = tmp_path / "out" / "LOG_01.txt"
    assert '"\\u001b[2J\\u001b[31mred\\u001b[0m\\rover\\u0007"' in log.read_text()
    shown = CliRunner().invoke(cli, ["replay", str(log), "--no-pause", "--no-color"])
    assert shown.exit_code == 0
    assert "agent's note: \\x1b[2J\\x1b[31mred\\x1b[0m over\\x07" in shown.output
    assert not any(c in shown.output for c in "\x1b\r\x07")


def test_the_prompt_offers_n_where_the_step_has_the_agents_tiles(tmp_path):
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    run(str(tmp_path / "MAP_01.txt"), str(tmp_path / "noted"), "--notes")
    run(str(tmp_path / "MAP_01.txt"), str(tmp_path / "plain"))
    shown = CliRunner().invoke(cli, ["replay", str(tmp_path / "noted" / "LOG_01.txt"), "--no-color"],
                               input="\n\n\nn\nq\n").output
    assert "go to that turn  [n] the agent's tiles  [q] quit: " in shown
    assert "the agent's tiles are hidden" in shown
    plain = CliRunner().invoke(cli, ["replay", str(tmp_path / "plain" / "LOG_01.txt"), "--no-color"],
                               input="\n\nq\n").output
    assert "[n]" not in plain and "go to that turn  [q] quit: " in plain


def test_a_frame_shows_a_notes_tiles_as_their_count_not_the_logs_base64(tmp_path):
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    run(str(tmp_path / "MAP_01.txt"), str(tmp_path / "out"), "--notes")
    log = tmp_path / "out" / "LOG_01.txt"
    first = next(e for e in read_log(log) if isinstance(e, ev.AgentNoted) and e.tiles is not None)
    count = int(first.tiles.mask(16, 16).sum())
    frames = CliRunner().invoke(cli, ["replay", str(log), "--no-pause", "--no-color"]).output
    assert f'> turn 1: the agent notes "{first.text}", candidates: {count} tiles (drawn)' in frames
    assert format_event(first).rpartition(" ")[2] not in frames  # the base64
