"""Hostile names in the lines redrawn in place while a long command runs (ninth round).

The tournament's progress line (`412 of 2,700 games · ETA 3:21 · failed: carl 14`) names the
groups that failed, and a group is named after a file a student names. A line break in that name
broke the line redrawn in place (each redraw left a line behind, the next part of the name
starting a line of its own), its escapes were expanded after the line was cut to the terminal's
width (so it wrapped), and every `·` of the line came out as `\\xb7`. `check-agent --maps`'s
progress bar showed a map's file name as it is: its `ESC ]0;` set the terminal's title."""

from __future__ import annotations

import io
import shutil

from helpers import ROOT

from treasure_cli.cli.progress import ProgressLine
from treasure_cli.grading.progress import Estimate, Planned

NAME = "b\x1b]0;PWNED\x07\nforged line"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_names_a_failed_group_on_one_line_within_its_width(monkeypatch):
    monkeypatch.setattr(shutil, "get_terminal_size", lambda fallback=None: shutil.os.terminal_size((60, 20)))
    estimate = Estimate([Planned(NAME, 256), Planned("ann", 256)], clock=lambda: 100.0)
    estimate.finished(NAME, 256, 0.1, failed=True)
    stream = Terminal()
    line = ProgressLine("playing", estimate, stream)
    line.close()
    drawn = stream.getvalue().removesuffix("\n").split("\r")[-1]
    assert "\n" not in drawn and "\x1b" not in drawn and "\x07" not in drawn, repr(drawn)
    assert " · ETA " in drawn and "\\xb7" not in drawn, drawn
    assert len(drawn) <= 60, (len(drawn), drawn)
    assert estimate.line(200).endswith("failed: b\\x1b]0;PWNED\\x07\\nforged line 1")


def test_check_agent_shows_a_map_name_escaped_in_its_progress_bar(tmp_path):
    """click's bar is drawn only on a terminal: the command runs with a pseudo-terminal as stderr."""
    import os
    import subprocess
    import sys

    maps = tmp_path / "maps"
    maps.mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", maps / "MAP_\x1b]0;PWNED\x07.txt")
    main, side = os.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "treasure_cli", "check-agent", "logic", "--maps", str(maps),
                               "--games", "1"], stdout=subprocess.PIPE, stderr=side, timeout=60)
        os.close(side)
        drawn = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the other end closed and emptied
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(main)
    assert done.returncode == 0, done.stdout
    assert b"MAP_\\x1b]0;PWNED\\x07.txt" in drawn, drawn[:600]
    assert b"\x1b]0;" not in drawn
