"""The replay page of a game logged with --notes: the agent's notes, its tiles and the flagged turn."""

from __future__ import annotations

import shutil

from click.testing import CliRunner
from helpers import ROOT, planted_notes_agent as planted

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import format_event, read_log
from treasure_cli.rules import events as ev


def run(*args: str):
    result = CliRunner().invoke(cli, ["run", *args])
    assert result.exit_code == 0, result.output
    return result


def test_the_page_shows_the_notes_the_overlay_and_the_flag(tmp_path, watched):
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    run(str(tmp_path / "MAP_01.txt"), str(tmp_path / "out"), "--agent", planted(tmp_path), "--notes")
    log = tmp_path / "out" / "LOG_01.txt"
    page = tmp_path / "game.html"
    assert CliRunner().invoke(cli, ["replay", str(log), "--map", str(tmp_path / "MAP_01.txt"), "--html",
                                    str(page)]).exit_code == 0
    assert watched.open(page) == []  # no request besides the file
    p = watched.page
    # Step 0 does not print where the treasure is while "show the treasure" is off.
    assert "the treasure is hidden" in p.inner_text("#lines") and "treasure is at" not in p.inner_text("#lines")
    p.check("#showT")
    assert "the treasure is at (9, 13)" in p.inner_text("#lines")
    assert p.is_visible("#beliefCtl") and p.is_checked("#showB")
    events = read_log(log)
    notes = [e for e in events if isinstance(e, ev.AgentNoted)]
    flagged = []
    for step in range(p.evaluate("window.treasurePage.steps")):
        p.evaluate(f"window.treasurePage.show({step})")
        lines, miss = p.inner_text("#lines"), p.inner_text("#miss")
        for note in notes:
            if format_event(note) in lines:
                assert f"agent's note: {note.text}" in p.inner_text("#info")
        if miss:
            flagged.append((p.evaluate("document.getElementById('status').dataset.turn"), miss))
    assert flagged and all(turn == "3" and text == "turn 3: your agent ruled out the treasure's tile"
                           for turn, text in flagged)
    p.keyboard.press("n")
    assert not p.is_checked("#showB")
    # At 1200 px the header shows the whole outcome, not "game over, LO…".
    p.evaluate("window.treasurePage.show(window.treasurePage.steps - 1)")
    box = p.eval_on_selector("#outcome", "e => { const r = e.getBoundingClientRect(); return [r.right, innerWidth] }")
    assert p.inner_text("#outcome").startswith("game over, WIN") and box[0] <= box[1]
    assert watched.errors == []
