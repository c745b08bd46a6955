"""`treasure play MAP --serve`: a person plays on a page served from 127.0.0.1, by clicking, to a
win; the page refuses what the rules refuse, the server stops at the game's end, the log replays."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import read_log
from treasure_cli.rules import events as ev


def test_a_person_plays_to_a_win_on_the_page_and_the_log_replays(browser, tmp_path):
    the_map = ROOT / "input" / "MAP_01.txt"
    lines = the_map.read_text().splitlines()
    row, col = (int(x) for x in lines[4].split())  # the map's header names the treasure (the test knows it)
    proc = subprocess.Popen([sys.executable, "-m", "treasure_cli", "play", str(the_map), str(tmp_path / "mine"),
                             "--serve"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    context = browser.new_context()
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", first)
        assert url, first
        # Only its own name is served: a request naming another host is refused
        # and a page of another origin cannot send an action
        for asked in (urllib.request.Request(url[0] + "state", headers={"Host": "example.com"}),
                      urllib.request.Request(url[0] + "act", data=b"x", headers={"Origin": "http://example.com"})):
            try:
                urllib.request.urlopen(asked, timeout=30)
                refused = False
            except urllib.error.HTTPError as exc:
                refused = exc.code == 403
            assert refused, asked.full_url

        # A connection held open without a request (as a browser's spare one) holds nothing up
        idle = socket.create_connection(("127.0.0.1", int(url[0].rsplit(":", 1)[1].rstrip("/"))), timeout=30)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url[0])
        status = page.locator("#status")
        page.wait_for_function("document.querySelector('#status').textContent.startsWith('turn 1')")
        frame = page.locator("#frame").text_content() or ""
        assert "your game on " in frame and "$" not in frame.split("legend")[0]  # no treasure shown
        assert status.text_content() == "turn 1, action 1 of 2"
        board = page.locator("#board svg")  # drawn as replay --svg draws a frame, titled as the terminal's
        assert board.count() == 1 and "your game on " in (board.text_content() or "")

        page.fill("#hint", "1")
        page.click("#verify")  # hint 1 is known true: the rules refuse it, the page says so
        page.wait_for_function("document.querySelector('#error').textContent !== ''")
        assert "not possible: illegal action" in (page.locator("#error").text_content() or "")
        assert status.text_content() == "turn 1, action 1 of 2"

        page.fill("#row", str(row))
        page.fill("#col", str(col))
        page.click("#teleport")
        page.wait_for_function("document.querySelector('#frame').textContent.includes('the agent teleports')")
        assert status.text_content() == "turn 1, action 1 of 2"  # the teleport is free
        assert page.locator("#error").text_content() == ""
        page.click("#frame")
        page.keyboard.press("x")  # the scan's key
        page.wait_for_selector("#status[data-over='1']")
        assert (status.text_content() or "").startswith("you won on turn 1; the log: ")
        assert "$" in (page.locator("#frame").text_content() or "")  # the end shows where the treasure was
        assert page.locator("#scan").is_disabled()
        assert errors == []
        assert proc.wait(timeout=60) == 0  # the server stops with the game
        idle.close()
    finally:
        context.close()
        if proc.poll() is None:
            proc.kill()
    log = tmp_path / "mine" / "LOG_01.txt"
    events = read_log(log)
    assert events[0].agent == "person"
    assert [type(e) for e in events if type(e) in (ev.Teleported, ev.AreaScanned)] == [ev.Teleported, ev.AreaScanned]
    assert events[-1] == ev.GameEnded(1, ev.Outcome.WIN, ev.EndReason.FOUND)
    shown = CliRunner().invoke(cli, ["replay", str(log), "--map", str(the_map), "--no-pause", "--no-color"])
    assert shown.exit_code == 0, shown.output
    assert "game over, WIN: the agent's scan found the treasure" in shown.output


def test_ctrl_c_and_giving_up_stop_the_server_and_write_no_log(browser, tmp_path):
    the_map = ROOT / "input" / "MAP_01.txt"
    for stop in ("q", "ctrl-c"):
        out = tmp_path / stop
        proc = subprocess.Popen([sys.executable, "-m", "treasure_cli", "play", str(the_map), str(out), "--serve"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
        context = browser.new_context()
        try:
            assert proc.stdout is not None
            url = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline())
            assert url
            page = context.new_page()
            page.goto(url[0])
            page.wait_for_function("document.querySelector('#status').textContent.startsWith('turn 1')")
            page.click("#scan")  # one action played, then the person leaves
            page.wait_for_function("document.querySelector('#status').textContent.includes('action 2 of 2')")
            if stop == "q":
                page.fill("#line", "q")
                page.click("#send")
                page.wait_for_selector("#status[data-over='1']")
                assert "you gave up on turn 1" in (page.locator("#status").text_content() or "")
            else:
                proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=60) == 1
            said = proc.stdout.read()
            assert "Error: " in said and "no log written" in said and "Traceback" not in said, said
        finally:
            context.close()
            if proc.poll() is None:
                proc.kill()
        assert not (out / "LOG_01.txt").exists()


def test_a_page_that_loads_before_the_game_asks_its_first_action_shows_it_when_it_does(browser, tmp_path):
    # The server is up (and its address printed) before the game starts: a quick browser on a
    # busy machine fetched an empty state and showed nothing, ever.
    import contextlib
    import threading

    from treasure_cli.formats.map_file import read_map
    from treasure_cli.play.loop import play_agent
    from treasure_cli.rules.game import Game
    from treasure_cli.view.person import GaveUp
    from treasure_cli.view.play_page import PagePerson
    from treasure_cli.view.render import Renderer

    island = read_map(ROOT / "input" / "MAP_01.txt", [])
    game = Game(island, 7, agent_name="person", map_name="MAP_01.txt")
    person = PagePerson(game, Renderer(island.public(), color=False), lambda *a, **k: None)
    context = browser.new_context()
    playing: threading.Thread | None = None
    try:
        page = context.new_page()
        page.goto(person.url)
        page.wait_for_timeout(500)  # the page has asked for the state: there is none yet
        def play() -> None:
            with contextlib.suppress(GaveUp):  # how the test ends it
                list(play_agent(game, person))

        playing = threading.Thread(target=play, daemon=True)
        playing.start()
        page.wait_for_function("document.querySelector('#status').textContent.startsWith('turn 1')", timeout=10_000)
    finally:
        person.sent(person.choose("q"))  # the game ends (given up) and the thread with it
        if playing is not None:
            playing.join(timeout=10)
        context.close()
        person.close()


def test_giving_up_ends_the_game_only_once_the_page_has_its_answer():
    """The program ends with the game. On "q" the game ended at once, and on a busy machine the
    process was gone before the server wrote the page its answer: the page never showed the game
    over (test_ctrl_c_and_giving_up_stop_the_server_and_write_no_log timed out once in four
    suites). The game now waits for the answer to be written (`sent`), QUIT_WAIT at most."""
    import contextlib
    import threading
    import time

    from treasure_cli.formats.map_file import read_map
    from treasure_cli.play.loop import play_agent
    from treasure_cli.rules.game import Game
    from treasure_cli.view.person import GaveUp
    from treasure_cli.view.play_page import QUIT_WAIT, PagePerson
    from treasure_cli.view.render import Renderer

    island = read_map(ROOT / "input" / "MAP_01.txt", [])
    game = Game(island, 7, agent_name="person", map_name="MAP_01.txt")
    person = PagePerson(game, Renderer(island.public(), color=False), lambda *a, **k: None)
    ended: list[float] = []

    def play() -> None:
        with contextlib.suppress(GaveUp):
            list(play_agent(game, person))
        ended.append(time.monotonic())

    playing = threading.Thread(target=play, daemon=True)
    try:
        playing.start()
        for _ in range(200):  # until the game asks its first action
            with person.changed:
                if person.state:
                    break
            time.sleep(0.05)
        answer = person.choose("q")
        assert answer.get("over") and "you gave up" in answer["error"]
        time.sleep(0.5)
        assert not ended, "the game ended before the page's answer was written"
        written = time.monotonic()
        person.sent(answer)
        playing.join(timeout=QUIT_WAIT)
        assert ended and ended[0] - written < 1.0
    finally:
        person.close()
