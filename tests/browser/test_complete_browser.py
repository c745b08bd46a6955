"""The replay page's second overlay: the agent's tiles that the facts before its action rule out
(check-agent --beliefs --complete's finding), a red cross on each and on no other tile."""

from __future__ import annotations

import io

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.view.sources import open_log


def test_the_crosses_are_drawn_on_the_tiles_the_facts_rule_out(tmp_path, watched, monkeypatch):
    from PIL import Image

    (tmp_path / "forgetful.py").write_text((ROOT / "tests" / "grading" / "forgetful_agent.py").read_text())
    monkeypatch.chdir(tmp_path)
    checked = CliRunner().invoke(cli, ["check-agent", "forgetful.py:IgnoresRectangles", "--beliefs", "--complete",
                                       "--games", "1", "--keep-logs", "kept", "--agent-isolation", "process"])
    assert "FAIL  complete beliefs" in checked.output, checked.output
    log = tmp_path / "kept" / "LOG_01.txt"
    replay = open_log(log)
    page = tmp_path / "game.html"
    assert CliRunner().invoke(cli, ["replay", str(log), "--html", str(page)]).exit_code == 0
    assert watched.open(page) == []
    p = watched.page
    step = next(i for i in range(replay.last_step() + 1) if replay.state(i).excess_tiles is not None)
    state = replay.state(step)
    p.evaluate(f"window.treasurePage.show({step})")
    watched.settled()
    shot = Image.open(io.BytesIO(p.screenshot())).convert("RGB")
    (x0, _), (x1, _) = (p.evaluate(f"window.treasurePage.tileCentre(0, {c})") for c in (0, 1))
    arm = max(1.5, (x1 - x0) * 0.3) * 0.5  # halfway along a cross's arm, as the page draws it
    busy = {state.agent, state.pirate}
    drawn, wanted = set(), set()
    height, width = state.belief.shape
    for r in range(height):
        for c in range(width):
            if (r, c) in busy:
                continue
            x, y = p.evaluate(f"window.treasurePage.tileCentre({r}, {c})")
            red, green, blue = shot.getpixel((round(x + arm), round(y + arm)))
            if red >= 200 and green <= 120 and blue <= 120:
                drawn.add((r, c))
            if state.excess_tiles[r, c]:
                wanted.add((r, c))
    assert wanted and drawn == wanted - busy
    assert watched.errors == []
