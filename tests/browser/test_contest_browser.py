"""The contest page in a real Chromium at projector size: 12 groups' boards all in view, playing in
step to the end, each ending on the turn the store holds, and no request leaving the folder."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.grading.store import Store

BASES = {"greedy": "from treasure_cli.agents.greedy import GreedyAgent as Base",
         "logic": "from treasure_cli.agents.logic import LogicAgent as Base",
         "random": "from treasure_cli.agents.random_agent import RandomAgent as Base"}
GIVES_UP = ("class Group(Base):\n    def act(self, obs):\n        if obs.turn >= 3:\n"
            "            raise RuntimeError('gives up')\n        return super().act(obs)\n")


@pytest.fixture(scope="module")
def contest(tmp_path_factory):
    folder = tmp_path_factory.mktemp("contest")
    groups = folder / "class"
    groups.mkdir()
    kinds = ["greedy", "logic", "random"]
    for k in range(12):
        base = kinds[k % 3]
        body = GIVES_UP if k == 11 else "class Group(Base):\n    pass\n"
        (groups / f"group{k:02d}.py").write_text(f"{BASES[base if k != 11 else 'greedy']}\n\n\n{body}")
    db = str(folder / "c.sqlite")
    played = CliRunner().invoke(cli, ["contest", str(ROOT / "input" / "MAP_02.txt"), str(groups), "--with", "logic",
                                      "--games", "2", "--seed", "3", "--db", db, "--html", str(folder / "page"),
                                      "--jobs", "1", "--agent-isolation", "none"])
    assert played.exit_code == 1, played.output  # group11 fails its games
    with Store(db) as store:
        rows = store.rows()
    return folder / "page" / "index.html", rows


@pytest.fixture
def projector(browser):
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, device_scale_factor=1)
    page = context.new_page()
    requests: list[str] = []
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    page.on("request", lambda req: requests.append(req.url))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page, requests, errors
    context.close()


BOARDS = """() => {
  const s = document.getElementById('status').dataset;
  return {turn: +s.turn, max: +s.max, over: s.over, boards: [...document.querySelectorAll('.board')].map(b => ({
    name: b.dataset.name, shown: +b.dataset.shownTurn, frame: +b.dataset.frame, final: +b.dataset.finalTurn,
    game: b.dataset.game, over: b.dataset.over, ending: b.querySelector('.ending').textContent}))};
}"""


def test_twelve_boards_fit_a_projector_and_play_to_the_end_in_step(projector, contest):
    page, requests, errors = projector
    path, rows = contest
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("body[data-ready='1']", state="attached")
    boxes = page.eval_on_selector_all(".board", "bs => bs.map(b => { const r = b.getBoundingClientRect(); "
                                      "return [r.left, r.top, r.right, r.bottom]; })")
    assert len(boxes) == 13  # 12 groups and the baseline
    assert all(left >= 0 and top >= 0 and right <= 1920 and bottom <= 1080 for left, top, right, bottom in boxes)
    assert page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]") == [
        1920, 1080]
    page.select_option("#speed", "8")
    page.click("#play")
    seen = []
    for _ in range(400):
        state = page.evaluate(BOARDS)
        seen.append(state)
        # in step: every board shows the page's turn, or its own last one once its game is over
        assert all(b["shown"] == min(state["turn"], b["final"]) for b in state["boards"])
        if state["over"] == "1":
            break
        page.wait_for_timeout(60)
    assert state["over"] == "1" and state["turn"] == state["max"] > 3
    assert len({s["turn"] for s in seen}) > 3  # it was watched playing, not only at its end
    by_id = {r.game_id: r for r in rows}
    for b in state["boards"]:
        stored = by_id[b["game"]]
        assert b["shown"] == stored.turns and b["over"] == "1"
        if stored.outcome != "failed":
            assert b["frame"] == stored.turns  # the board's last frame is the game's last turn
    endings = {b["name"]: b["ending"] for b in state["boards"]}
    assert endings["group11"].startswith("failed on turn 3")
    assert page.is_visible("#podium")
    assert page.eval_on_selector_all("#places li", "ls => ls.length") >= 3
    assert requests == [path.resolve().as_uri()] and errors == []


def test_step_slider_and_game_choice(projector, contest):
    page, requests, errors = projector
    path, rows = contest
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("body[data-ready='1']", state="attached")
    page.click("#step")
    page.click("#step")
    assert page.evaluate(BOARDS)["turn"] == 2
    page.fill("#turn", "5")
    page.dispatch_event("#turn", "input")
    state = page.evaluate(BOARDS)
    assert state["turn"] == 5 and all(b["shown"] == min(5, b["final"]) for b in state["boards"])
    first = {b["game"] for b in state["boards"]}
    page.select_option("#game", "1")
    state = page.evaluate(BOARDS)
    assert state["turn"] == 0 and {b["game"] for b in state["boards"]}.isdisjoint(first)
    assert {b["game"] for b in state["boards"]} == {r.game_id for r in rows if r.game_index == 1}
    assert errors == []
