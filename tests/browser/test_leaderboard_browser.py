"""The tournament's leaderboard pages in a real Chromium: the ranks of `--report`, a loss one click from
its replay (showing the stored outcome and turns), and no network request on any page."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from helpers import ROOT, WANDERER

from treasure_cli.cli import cli
from treasure_cli.grading.store import Store

@pytest.fixture(scope="module")
def board(tmp_path_factory):
    folder = tmp_path_factory.mktemp("board")
    (folder / "students").mkdir()
    (folder / "students" / "wanda.py").write_text(WANDERER)
    (folder / "students" / "gus.py").write_text(
        "from treasure_cli.agents.greedy import GreedyAgent\n\n\nclass Gus(GreedyAgent):\n    pass\n")
    shutil.copytree(ROOT / "input", folder / "hidden")
    db = str(folder / "r.sqlite")
    # A known seed: the same games every run, so the games lost that a test opens are always there
    # (under the store's secret seed, which games are lost was drawn anew each run).
    played = CliRunner().invoke(cli, ["tournament", str(folder / "students"), "--with", "logic,random", "--maps",
                                      str(folder / "hidden"), "--games", "2", "--seed", "2", "--db", db,
                                      "--jobs", "1"])
    assert played.exit_code == 0, played.output
    text = CliRunner().invoke(cli, ["tournament", "--db", db, "--report"])
    pages = CliRunner().invoke(cli, ["tournament", "--db", db, "--report", "--maps", str(folder / "hidden"),
                                     "--html", str(folder / "site")])
    assert text.exit_code == 0 and pages.exit_code == 0, pages.output
    with Store(db) as store:
        rows = {r.game_id: r for r in store.rows()}
    return folder / "site" / "teacher", text.stdout, rows


def test_the_ranks_are_those_of_the_text_report(watched, board):
    site, text, _ = board
    assert watched.open(site / "index.html") == []
    table = text.split("\n\n")[0].splitlines()[1:]
    expected = [tuple(line.split()[:2]) for line in table]
    shown = watched.page.eval_on_selector_all(
        "#ranking tbody tr", "rows => rows.map(r => [r.querySelector('.rank').textContent, r.dataset.agent])")
    assert [tuple(x) for x in shown] == expected and len(expected) == 4
    # every agent has its own colour, and a page one click away
    swatches = watched.page.eval_on_selector_all("#ranking .sw", "s => s.map(e => e.style.background)")
    assert len(set(swatches)) == 4
    assert watched.errors == []


def test_a_loss_opens_its_replay_with_the_stored_outcome_and_turns(watched, board):
    site, _, rows = board
    assert watched.open(site / "index.html") == []
    losers = [r for r in rows.values() if r.outcome == "LOSE"]
    assert losers
    name = losers[0].name or losers[0].agent
    watched.page.click(f"#ranking tr[data-agent='{name}'] a")
    watched.page.wait_for_selector("#games")
    link = watched.page.locator("#games td.lose a").first
    game = link.locator("xpath=..").get_attribute("data-game")
    stored = rows[game]
    assert stored.outcome == "LOSE"
    link.click()
    watched.page.wait_for_selector("body[data-ready='1'] #status", state="attached")
    watched.page.keyboard.press("End")
    status = watched.status()
    assert int(status["turn"]) == stored.turns
    assert "LOSE" in watched.page.text_content("#outcome")
    assert all(url.startswith("file:") for url in watched.requests), watched.requests  # no network, ever
    assert watched.errors == []


def test_a_failure_cause_links_to_the_failed_game(watched, tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "oops.py").write_text("class Oops:\n    def act(self, obs):\n        raise ValueError('no')\n")
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path)
    db = str(tmp_path / "r.sqlite")
    played = CliRunner().invoke(cli, ["tournament", str(tmp_path / "s"), "--with", "random", "--maps",
                                      str(tmp_path / "MAP_01.txt"), "--games", "2", "--db", db])
    assert played.exit_code == 1  # games failed
    pages = CliRunner().invoke(cli, ["tournament", "--db", db, "--report", "--html", str(tmp_path / "site")])
    assert pages.exit_code == 0
    assert watched.open(tmp_path / "site" / "teacher" / "index.html") == []
    cells = watched.page.eval_on_selector_all("#failures td", "c => c.map(e => e.textContent)")
    assert cells[:3] == ["oops", "agent-error", "2"] and "ValueError: no" in cells[3]
    watched.page.click("#failures a[href^='game-']")
    watched.page.wait_for_selector("#outcome")
    assert watched.page.get_attribute("#outcome", "data-outcome") == "failed"
    assert "ValueError: no" in watched.page.text_content("body")
    assert all(url.startswith("file:") for url in watched.requests)
    assert watched.errors == []
