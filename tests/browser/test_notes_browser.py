"""The replay page of a game logged with --notes: the agent's notes, its tiles and the flagged turn."""

from __future__ import annotations

import io
import shutil

from click.testing import CliRunner
from helpers import ROOT, planted_notes_agent as planted

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import read_log
from treasure_cli.rules import events as ev
from treasure_cli.view.steps import shown_line


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
            if shown_line(note) in lines:
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


def test_the_rings_are_drawn_on_the_agents_tiles(tmp_path, watched):
    """Each tile of the latest note's mask, and no other, has a ring: at a step whose mask is
    several runs of tiles (the page once read the runs' gaps as their starts)."""
    from PIL import Image

    from treasure_cli.view.sources import open_log

    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    run(str(tmp_path / "MAP_01.txt"), str(tmp_path / "out"), "--agent", planted(tmp_path), "--notes")
    log = tmp_path / "out" / "LOG_01.txt"
    replay = open_log(log, str(tmp_path / "MAP_01.txt"))
    page = tmp_path / "game.html"
    assert CliRunner().invoke(cli, ["replay", str(log), "--html", str(page)]).exit_code == 0
    assert watched.open(page) == []
    p = watched.page
    steps = p.evaluate("window.treasurePage.steps")

    def pieces(mask) -> int:
        flat = mask.ravel().astype(int)
        return int(flat[0]) + int((flat[1:] > flat[:-1]).sum())

    step = next(i for i in range(steps) if replay.state(i).belief is not None and pieces(replay.state(i).belief) >= 3)
    state = replay.state(step)
    p.evaluate(f"window.treasurePage.show({step})")
    watched.settled()
    shot = Image.open(io.BytesIO(p.screenshot())).convert("RGB")
    (x0, y0), (x1, _) = (p.evaluate(f"window.treasurePage.tileCentre(0, {c})") for c in (0, 1))
    ring = max(1.5, (x1 - x0) * 0.28)  # the ring's radius, as the page draws it
    busy = {state.agent, state.pirate}  # the agent's and the pirate's marks cover their tiles
    drawn, wanted = set(), set()
    height, width = state.belief.shape
    for r in range(height):
        for c in range(width):
            if (r, c) in busy:
                continue
            x, y = p.evaluate(f"window.treasurePage.tileCentre({r}, {c})")
            if min(shot.getpixel((round(x + ring), round(y)))) >= 235:  # white: the ring's stroke
                drawn.add((r, c))
            if state.belief[r, c]:
                wanted.add((r, c))
    assert wanted and drawn == wanted
    assert watched.errors == []
