"""Two agents' logs of one game on one page (`replay A B --html`): both boards step together,
each with its own lines and notes, as its log has them."""

from __future__ import annotations

import shutil

from click.testing import CliRunner
from helpers import ROOT, planted_notes_agent as planted

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import read_log
from treasure_cli.rules import events as ev
from treasure_cli.view.steps import shown_line


def _invoke(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_two_boards_step_together_each_with_its_own_notes(tmp_path, watched):
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    logs = []
    for name, agent in (("logic", "logic"), ("planted", planted(tmp_path))):
        _invoke("run", str(tmp_path / "MAP_01.txt"), str(tmp_path / name), "--agent", agent, "--notes")
        logs.append(tmp_path / name / "LOG_01.txt")
    page = tmp_path / "cmp.html"
    _invoke("replay", *map(str, logs), "--map", str(tmp_path / "MAP_01.txt"), "--html", str(page))
    assert watched.open(page) == []  # nothing fetched: both boards are inside the file
    p = watched.page
    boards = [p.frame_locator(f"#board{k}") for k in (0, 1)]
    for b in boards:
        b.locator("body[data-ready='1']").wait_for(state="attached")
    notes = [[shown_line(e) for e in read_log(log) if isinstance(e, ev.AgentNoted)] for log in logs]
    assert notes[0] and notes[1] and notes[0] != notes[1]  # two agents, each explaining its own play
    seen: list[list[str]] = [[], []]
    pairs = p.evaluate("window.treasureCompare.pairs")
    for position in range(len(pairs)):
        p.click("#next") if position else p.click("#first")
        for k, b in enumerate(boards):
            b.locator(f"#status[data-step='{pairs[position][k]}']").wait_for(state="attached")
            lines = b.locator("#lines").inner_text()
            seen[k] += [line for line in lines.split("\n") if line in notes[k]]
            # a board shows only its own agent's notes
            assert not any(line in notes[1 - k] and line not in notes[k] for line in lines.split("\n"))
    assert [list(dict.fromkeys(s)) for s in seen] == notes  # every note of each log, on its own board, in order
    for k, b in enumerate(boards):  # every step of each game was shown, in order
        total = int(b.locator("#status").get_attribute("data-total"))
        assert [pair[k] for pair in pairs] == sorted(pair[k] for pair in pairs)
        assert {pair[k] for pair in pairs} == set(range(total + 1))
    # A step taken inside one board moves the other to the step beside it.
    boards[0].locator("#last").click()
    last = pairs[-1]
    boards[1].locator(f"#status[data-step='{last[1]}']").wait_for(state="attached")
    assert p.eval_on_selector("#status", "e => +e.dataset.position") == len(pairs) - 1
    assert watched.errors == []


def test_a_turn_typed_then_enter_moves_both_boards_before_any_click(tmp_path, watched):
    shutil.copy(ROOT / "input" / "MAP_03.txt", tmp_path / "MAP_03.txt")
    logs = []
    for agent in ("logic", "greedy"):
        _invoke("run", str(tmp_path / "MAP_03.txt"), str(tmp_path / agent), "--agent", agent)
        logs.append(tmp_path / agent / "LOG_03.txt")
    page = tmp_path / "cmp.html"
    _invoke("replay", *map(str, logs), "--map", str(tmp_path / "MAP_03.txt"), "--html", str(page))
    assert watched.open(page) == []
    p = watched.page
    for k in (0, 1):
        p.frame_locator(f"#board{k}").locator("body[data-ready='1']").wait_for(state="attached")
    p.keyboard.type("3")
    assert "go to turn 3" in p.inner_text("#turnbuf")
    p.keyboard.press("Enter")
    position = p.eval_on_selector("#status", "e => +e.dataset.position")
    turns = p.evaluate("window.treasureCompare.turns")
    assert turns[position] == 3 and all(t < 3 for t in turns[:position])
    pair = p.evaluate("window.treasureCompare.pairs")[position]
    for k in (0, 1):
        p.frame_locator(f"#board{k}").locator(f"#status[data-step='{pair[k]}']").wait_for(state="attached")
    assert p.inner_text("#turnbuf") == "" and watched.errors == []
