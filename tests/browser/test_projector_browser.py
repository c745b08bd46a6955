"""The leaderboard's index on a projector: at 1400 and 1920 px wide no horizontal scroll, however many
agents and however long their failure messages; the pair grid scrolls inside its own box; built-in
baselines are marked."""

from __future__ import annotations

import pytest

from treasure_cli.grading.store import Row
from treasure_cli.grading.tournament import leaderboard
from treasure_cli.play.records import settings_key
from treasure_cli.view.leaderboard import index_html, page_names


def row(agent: str, seed: int, outcome: str, id_: int, error: str | None = None) -> Row:
    return Row(agent, "package:x" if agent in ("logic", "greedy") else f"file:{agent}", "{}", "M.txt", "d", seed,
               seed, "32x32", outcome, {"WIN": "found", "LOSE": "pirate", "failed": "agent-error"}[outcome], error,
               7, 0.01, "0", "", id_, name="" if agent in ("logic", "greedy") else agent)


@pytest.fixture
def index(tmp_path):
    rows = []
    agents = ["logic", "greedy"] + [f"students/group-{k:02d}-with-a-rather-long-name.py:Agent" for k in range(13)]
    n = 0
    for a, agent in enumerate(agents):
        for seed in range(12):
            n += 1
            if a == 5 and seed < 4:
                error = ("M.txt: agent " + agent + " failed: turn 3: the agent raised ValueError: "
                         + "x" * 400 + " " + "a-very-long-unbroken-word" * 12)
                rows.append(row(agent, seed, "failed", n, error))
            else:
                rows.append(row(agent, seed, "WIN" if (seed + a) % (a % 4 + 2) else "LOSE", n))
    board = leaderboard(rows, settings=settings_key(0.5, None, None))
    path = tmp_path / "index.html"
    path.write_text(index_html(board, "r.sqlite", set(), page_names([s.agent for s in board.standings])))
    return path


@pytest.mark.parametrize("width", [1400, 1920])
def test_the_index_has_no_horizontal_scroll_and_the_grid_scrolls_in_its_box(browser, index, width):
    context = browser.new_context(viewport={"width": width, "height": 1000}, device_scale_factor=1)
    page = context.new_page()
    page.goto(index.resolve().as_uri())
    page.wait_for_selector("body[data-ready='1']", state="attached")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    box = page.eval_on_selector("#pairs-box", "b => [b.clientWidth, b.scrollWidth, b.getBoundingClientRect().right]")
    assert box[2] <= width  # the grid's box fits; a wider grid scrolls inside it
    assert page.eval_on_selector_all("#ranking .tag", "ts => ts.map(t => t.textContent)") == ["baseline"] * 2
    context.close()
