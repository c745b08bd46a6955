"""The replay page in a real Chromium: no network, keys and slider, and the agent drawn where the log says."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from playwright.sync_api import expect as expect_that
from helpers import GOLDEN, ROOT

from treasure_cli.cli import cli
from treasure_cli.view.page import FIXED_COLOURS, write_page
from treasure_cli.view.render import AGENT
from treasure_cli.view.sources import open_log

AGENT_RGB = tuple(int(FIXED_COLOURS[AGENT][i:i + 2], 16) for i in (1, 3, 5))


def agent_in_log(replay, index):
    return replay.state(index).agent


def assert_agent_drawn(w, replay, index):
    """The status names the log's agent position, and the screenshot has the agent's colour there."""
    st = w.status()
    assert int(st["step"]) == index
    frame = replay.state(index)
    assert int(st["turn"]) == frame.turn
    r, c = frame.agent
    assert (int(st["agentRow"]), int(st["agentCol"])) == (r, c)
    w.settled()
    x, y = w.page.evaluate(f"window.treasurePage.tileCentre({r}, {c})")
    got = w.pixel(x, y)
    assert max(abs(a - b) for a, b in zip(got, AGENT_RGB)) <= 8, (got, AGENT_RGB)


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    replay = open_log(GOLDEN / "LOG_03.txt", str(ROOT / "input" / "MAP_03.txt"))
    return replay, write_page(replay, tmp_path_factory.mktemp("page") / "LOG_03.html")


def test_the_request_counter_sees_a_network_request(watched, tmp_path):
    """The counter the other tests rely on does count what a page asks for."""
    page = tmp_path / "leaky.html"
    page.write_text('<html><body data-ready="1"><img src="http://example.invalid/x.png"></body></html>')
    assert watched.open(page) == ["http://example.invalid/x.png"]
    watched.errors.clear()  # the refused image is an error on the console


def test_page_keys_and_slider_follow_the_log(watched, game):
    replay, path = game
    assert watched.open(path) == []
    assert_agent_drawn(watched, replay, 0)
    for key, expect in [("Enter", 1), ("ArrowRight", 2), (" ", 3), ("b", 2), ("ArrowLeft", 1)]:
        watched.page.keyboard.press(key)
        assert int(watched.status()["step"]) == expect
    watched.page.keyboard.press("End")
    last = replay.last_step()
    assert_agent_drawn(watched, replay, last)
    assert "WIN" in watched.page.text_content("#outcome")
    watched.page.keyboard.press("Home")
    assert int(watched.status()["step"]) == 0
    # digits then Enter: the first step of that turn, as in the terminal
    watched.page.keyboard.type("2")
    watched.page.keyboard.press("Enter")
    assert int(watched.status()["step"]) == replay.step_of_turn(2)
    assert_agent_drawn(watched, replay, replay.step_of_turn(2))
    assert watched.page.text_content("#lines") == "\n".join(replay.state(replay.step_of_turn(2)).lines)
    # the slider reaches every step
    slider = watched.page.locator("#slider")
    assert slider.get_attribute("max") == str(last)
    for index in (last // 2, 1, last):
        slider.fill(str(index))
        assert_agent_drawn(watched, replay, index)
    # hover names the tile under the pointer
    watched.settled()
    x, y = watched.page.evaluate("window.treasurePage.tileCentre(10, 20)")
    watched.page.mouse.move(x, y)
    assert watched.page.text_content("#hover").startswith("row 10, col 20 · region ")
    assert watched.errors == []


def test_page_screenshot_is_not_blank_and_zoom_keeps_the_agent(watched, game, tmp_path):
    from PIL import Image, ImageStat

    replay, path = game
    watched.open(path)
    watched.page.keyboard.type("2")
    watched.page.keyboard.press("Enter")
    index = replay.step_of_turn(2)
    shot = tmp_path / "replay-page.png"  # benchmarks/page_first_frame.py makes the one in docs/img
    watched.page.screenshot(path=str(shot))
    image = Image.open(shot).convert("RGB")
    assert max(ImageStat.Stat(image).stddev) > 20  # not one flat colour
    assert len(image.getcolors(1 << 20)) > 20
    watched.page.keyboard.press("+")
    watched.page.keyboard.press("+")
    assert_agent_drawn(watched, replay, index)  # zoomed in, the view follows the agent
    watched.page.keyboard.press("f")
    assert_agent_drawn(watched, replay, index)
    assert watched.errors == []


def test_play_runs_to_the_end(watched, game):
    replay, path = game
    watched.open(path)
    watched.page.select_option("#speed", "30")
    watched.page.click("#play")
    # (waited for by locators: a string evaluated in the page is refused by its Content-Security-Policy)
    expect_that(watched.page.locator("#status")).to_have_attribute("data-step", str(replay.last_step()), timeout=10_000)
    # it stops by itself at the end
    expect_that(watched.page.locator("#play")).to_contain_text("play", timeout=2_000)
    assert int(watched.status()["step"]) == replay.last_step()
    assert watched.errors == []


@pytest.fixture(scope="module")
def big_game(tmp_path_factory):
    """A 256x256 game, generated and played for the test."""
    folder = tmp_path_factory.mktemp("big")
    runner = CliRunner()
    assert runner.invoke(cli, ["generate", "--size", "256", "--seed", "3", "-o", str(folder / "MAP_big.txt")]).exit_code == 0
    result = runner.invoke(cli, ["run", str(folder / "MAP_big.txt"), str(folder / "out"), "--html"])
    assert result.exit_code == 0, result.output
    log = folder / "out" / "LOG_big.txt"
    return open_log(log, str(folder / "MAP_big.txt")), Path(str(log)).with_suffix(".html")


def test_big_page_opens_and_steps(watched, big_game):
    replay, path = big_game
    assert path.stat().st_size < 2_000_000
    assert watched.open(path) == []
    assert_agent_drawn(watched, replay, 0)
    watched.page.keyboard.press("End")
    assert_agent_drawn(watched, replay, replay.last_step())
    for _ in range(3):
        watched.page.keyboard.press("b")
    assert_agent_drawn(watched, replay, replay.last_step() - 3)
    assert watched.errors == []
