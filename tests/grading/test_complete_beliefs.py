"""`check-agent --beliefs --complete`: an agent that ignores what one hint kind says is caught at
the first turn its declared candidates keep a tile such a hint rules out, and the kind is named."""

from __future__ import annotations

import re

import numpy as np
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import read_log
from treasure_cli.formats.map_file import read_map
from treasure_cli.rules import events as ev
from treasure_cli.view.page import page_data
from treasure_cli.view.sources import open_log

FORGETFUL = (ROOT / "tests" / "grading" / "forgetful_agent.py").read_text()


def first_rectangle_turn(log, island) -> int | None:
    """Read from the log alone: the turn of the first note keeping a tile that a rectangle hint
    of known truth rules out."""
    hints, truths, latest = {}, {}, None
    for e in read_log(log):
        if isinstance(e, ev.HintGiven):
            hints[e.number] = e.hint
            if e.truthful is not None and e.number == 1:
                truths[1] = e.truthful
        elif isinstance(e, ev.HintVerified):
            truths[e.number] = e.truthful
        elif isinstance(e, ev.AgentNoted):
            latest = e.tiles if e.tiles is not None else latest  # a note without tiles keeps the latest
            kept = latest.mask(island.width, island.height)
            for number, truthful in truths.items():
                if hints[number].kind.name != "IN_RECTANGLE":
                    continue
                tiles = hints[number].mask(island)
                if np.any(kept & (~tiles if truthful else tiles)):
                    return e.turn
    return None


def test_complete_names_the_ignored_kind_at_the_right_turn(tmp_path, monkeypatch):
    (tmp_path / "forgetful.py").write_text(FORGETFUL)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["check-agent", "forgetful.py:IgnoresRectangles", "--beliefs", "--complete",
                                      "--games", "6", "--keep-logs", "kept", "--agent-isolation", "process"])
    assert result.exit_code == 1, result.output
    assert "ok    beliefs:" in result.output  # it never left out the treasure: only --complete tells
    reported = dict(re.findall(r"^    game (\d+) \(.*?\): (turn \d+: .*)$", result.output, flags=re.M))
    assert reported, result.output
    for game in range(1, 7):
        log = tmp_path / "kept" / f"LOG_{game:02d}.txt"
        expected = first_rectangle_turn(log, read_map(tmp_path / "kept" / f"MAP_{game:02d}.txt").public())
        if expected is None:
            assert str(game) not in reported
            continue
        line = reported[str(game)]
        assert line.startswith(f"turn {expected}: your agent kept "), line
        assert re.search(r"hint \d+ \(kind in_rectangle, (true|false): the treasure is in the rectangle", line), line
        # The replay shows the same count under the agent's tiles, first at that turn's step.
        count = int(re.match(r"turn \d+: your agent kept (\d+) tile", line)[1])
        shown = CliRunner().invoke(cli, ["replay", str(log), "--no-pause", "--no-color"])
        frames = re.split(r"^(?=step \d+ of \d+, turn \d+)", shown.output, flags=re.M)[1:]
        first = next(f for f in frames if "of them the facts before this action rule out" in f)
        assert first.startswith("step ") and f", turn {expected}" in first.splitlines()[0]
        assert f"  {count} of them the facts before this action rule out" in first
        # The page: those tiles as a second overlay over the agent's, first at that step.
        data = page_data(open_log(log))
        steps = data["steps"]
        index = next(i for i, m in enumerate(steps["excess"]) if m >= 0)
        assert steps["turn"][index] == expected
        runs = data["masks"][steps["excess"][index]]
        assert sum(runs[1::2]) == count


def test_an_exact_agent_passes(tmp_path):
    result = CliRunner().invoke(cli, ["check-agent", "logic", "--beliefs", "--complete", "--games", "3"])
    assert result.exit_code == 0, result.output
    assert "ok    complete beliefs: in 3 of 3 games the agent declared its candidates" in result.output


def test_an_agent_that_declares_no_candidates_gets_no_ok_for_beliefs():
    """greedy has no explain(): the games are played, but the belief checks see nothing to check,
    and a check that saw nothing says so, not "ok" (issue 42)."""
    result = CliRunner().invoke(cli, ["check-agent", "greedy", "--beliefs", "--complete", "--games", "2"])
    assert result.exit_code == 1, result.output
    assert "ok    legal actions: 2 of 2 games played to the end" in result.output, result.output
    assert not re.search(r"^ok\s+(complete )?beliefs", result.output, flags=re.M), result.output
    for name in ("beliefs", "complete beliefs"):
        assert re.search(rf"^FAIL  {name}: the agent declared no candidates in 2 games .*nothing to check$",
                         result.output, flags=re.M), result.output
