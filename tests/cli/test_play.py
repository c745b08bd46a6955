"""`treasure play`: a person plays by keys in a terminal (a pty here) to a win; the log replays."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import read_log
from treasure_cli.rules import events as ev

PROMPT = b"(? for the keys): "


def read_until(fd: int, marker: bytes, seen: bytearray, timeout: float = 60.0) -> bytes:
    """Read the terminal until `marker` appears after what was already read; the text up to it."""
    start = len(seen)
    end = time.monotonic() + timeout
    while marker not in seen[start:]:
        left = end - time.monotonic()
        assert left > 0, f"no {marker!r} in:\n{seen[start:].decode(errors='replace')}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the program ended and closed the terminal
                chunk = b""
            if not chunk:
                break
            seen += chunk
    return bytes(seen[start:])


def test_a_person_plays_to_a_win_by_keys_and_the_log_replays(tmp_path):
    lines = (ROOT / "input" / "MAP_01.txt").read_text().splitlines()
    row, col = (int(x) for x in lines[4].split())  # the map's header names the treasure (the test knows it)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "treasure_cli", "play", str(ROOT / "input" / "MAP_01.txt"),
                             str(tmp_path / "mine"), "--no-color"],
                            stdin=follower, stdout=follower, stderr=follower, cwd=tmp_path)
    os.close(follower)
    seen = bytearray()
    try:
        first = read_until(leader, PROMPT, seen)
        assert b"turn 1, action 1 of 2" in first and b"$" not in first.split(b"legend")[0]  # no treasure shown
        assert b"your game on " in first and b"seed" not in first  # not the game seed: it is not the agent's
        os.write(leader, b"?\n")
        assert b"teleport to row 12, column 7" in read_until(leader, PROMPT, seen)
        os.write(leader, b"n 9\n")
        assert b"not possible: a move goes 1 to 4 tiles" in read_until(leader, PROMPT, seen)
        os.write(leader, b"v 1\n")
        assert b"not possible: illegal action" in read_until(leader, PROMPT, seen)  # hint 1 is known true
        os.write(leader, f"t {row} {col}\n".encode())
        assert b"turn 1, action 1 of 2" in read_until(leader, PROMPT, seen)  # the teleport is free
        os.write(leader, b"x\n")
        end = read_until(leader, b"wrote ", seen)
        read_until(leader, b".txt", seen)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    assert b"you won on turn 1" in end
    log = tmp_path / "mine" / "LOG_01.txt"
    events = read_log(log)
    assert events[0].agent == "person"
    assert [type(e) for e in events if type(e) in (ev.Teleported, ev.AreaScanned)] == [ev.Teleported, ev.AreaScanned]
    assert events[-1] == ev.GameEnded(1, ev.Outcome.WIN, ev.EndReason.FOUND)
    shown = CliRunner().invoke(cli, ["replay", str(log), "--map", str(ROOT / "input" / "MAP_01.txt"), "--no-pause",
                                     "--no-color"])
    assert shown.exit_code == 0, shown.output
    assert "game over, WIN: the agent's scan found the treasure" in shown.output


def test_giving_up_writes_no_log(tmp_path):
    result = CliRunner().invoke(cli, ["play", str(ROOT / "input" / "MAP_01.txt"), str(tmp_path / "mine"),
                                      "--no-color"], input="x\nq\n")
    assert result.exit_code == 1
    assert "Error: you gave up on turn 1: no log written" in result.output
    assert not (tmp_path / "mine").exists()
