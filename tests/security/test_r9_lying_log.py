"""A log a student hands the teacher that claims a game the rules did not give (ninth round).

`treasure replay LOG` (and `--html`) checks a log against its map: a scan says whether it
found the treasure, and the map says where the treasure is, so a scan that "found" it away
from it, a WIN with no scan that found it, or a game that goes on after one did, is a lie
the replay names instead of showing."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import invoke, shipped_maps


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> tuple[Path, list[str]]:
    """A won game of logic on the first shipped map: its folder and its log's lines."""
    folder = tmp_path_factory.mktemp("lying")
    maps = shipped_maps(folder / "in", "MAP_01.txt")
    played = invoke("run", str(maps), str(folder / "out"))
    assert played.exit_code == 0, played.output
    lines = (folder / "out" / "LOG_01.txt").read_text().splitlines()
    assert lines[1] == "WIN" and "treasure found" in lines[-2], lines[-3:]
    return folder, lines


def _replayed(folder: Path, name: str, lines: list[str]):
    log = folder / "out" / name
    log.write_text("\n".join([str(len(lines) - 3), *lines[1:]]) + "\n")  # the header's count made right
    return log, invoke("replay", str(log), "--no-pause", "--no-color")


def test_the_honest_log_replays(honest):
    folder, lines = honest
    _, result = _replayed(folder, "honest.txt", lines)
    assert result.exit_code == 0, result.output


def test_a_win_from_a_scan_away_from_the_treasure_is_named(honest):
    """The first scan of the game, which found nothing, rewritten to have found the treasure,
    and the game ended there as a WIN on that turn."""
    folder, lines = honest
    first = next(i for i, line in enumerate(lines) if "scans" in line and line.endswith(": empty"))
    turn = int(lines[first].split(":")[0].removeprefix("turn "))
    lying = lines[:first] + [lines[first].replace(": empty", ": treasure found"),
                             f"turn {turn}: game over, WIN: the agent's scan found the treasure"]
    lying[1:3] = ["WIN", str(turn)]
    log, result = _replayed(folder, "scan_lie.txt", lying)
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {log}:{first + 1}: the scan around "), result.output
    assert "says the treasure was found, but the treasure at" in result.output
    page = folder / "lie.html"
    assert invoke("replay", str(log), "--html", str(page)).exit_code == 1 and not page.exists()


def test_a_win_without_the_scan_that_found_it_is_named(honest):
    folder, lines = honest
    lying = lines[:-2] + lines[-1:]  # the scan that found the treasure left out, the WIN kept
    log, result = _replayed(folder, "no_scan.txt", lying)
    assert result.exit_code == 1
    assert result.output == f"Error: {log}:{len(lying)}: a WIN (found), but no scan found the treasure\n"


def test_a_found_treasure_said_empty_is_named(honest):
    folder, lines = honest
    lying = lines[:-2] + [lines[-2].replace(": treasure found", ": empty"), lines[-1]]
    log, result = _replayed(folder, "said_empty.txt", lying)
    assert result.exit_code == 1
    assert "says the treasure was not found, but the treasure at" in result.output


def test_a_lose_after_the_treasure_was_found_is_named(honest):
    folder, lines = honest
    turn = lines[2]
    lying = [lines[0], "LOSE", turn, *lines[3:-1], f"turn {turn}: game over, LOSE: timeout, the turn limit was reached"]
    log, result = _replayed(folder, "lose.txt", lying)
    assert result.exit_code == 1
    assert result.output == (f"Error: {log}:{len(lying)}: a LOSE (timeout) after the scan of line "
                             f"{len(lying) - 1} found the treasure\n")
