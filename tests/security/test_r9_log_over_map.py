"""A log written over a map (ninth round).

A map may be named like a log (`LOG_02.txt`, a student's file, or a log's name picked by
hand). Played with its folder as OUTPUT, beside `MAP_02.txt`, `treasure run maps/ maps/` wrote
MAP_02.txt's log over it, and said "1 log of an earlier run replaced": the map was lost. A file
of OUTPUT that is a map (one being played, or any that starts as a map does) is never replaced;
the run is refused before anything is played, `run --step` before the game starts."""

from __future__ import annotations

import shutil

from helpers import ROOT, invoke


def _folder(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", maps / "MAP_02.txt")
    shutil.copy(ROOT / "input" / "MAP_02.txt", maps / "LOG_02.txt")  # a map, named as MAP_02.txt's log is
    return maps


def test_run_into_the_maps_folder_keeps_a_map_named_like_a_log(tmp_path):
    maps = _folder(tmp_path)
    before = {p.name: p.read_bytes() for p in maps.iterdir()}
    result = invoke("run", str(maps), str(maps))
    assert result.exit_code == 2, result.output
    assert "would be written over" in result.output and "which is a map, not a log" in result.output
    assert {p.name: p.read_bytes() for p in maps.iterdir()} == before


def test_a_map_in_another_output_folder_is_not_replaced(tmp_path):
    maps = _folder(tmp_path)
    (maps / "LOG_02.txt").rename(tmp_path / "kept.txt")
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy(tmp_path / "kept.txt", out / "LOG_02.txt")  # a map the user keeps in OUTPUT
    result = invoke("run", str(maps), str(out))
    assert result.exit_code == 2 and "which is a map, not a log" in result.output, result.output
    assert (out / "LOG_02.txt").read_bytes() == (tmp_path / "kept.txt").read_bytes()
    # a log of an earlier run is replaced, as before
    (out / "LOG_02.txt").unlink()
    assert invoke("run", str(maps), str(out)).exit_code == 0
    again = invoke("run", str(maps), str(out))
    assert again.exit_code == 0 and "1 log of an earlier run replaced" in again.output


def test_run_step_keeps_it_too(tmp_path):
    maps = _folder(tmp_path)
    kept = (maps / "LOG_02.txt").read_bytes()
    result = invoke("run", str(maps / "MAP_02.txt"), str(maps), "--step", "--no-pause", "--no-color")
    assert result.exit_code == 2 and "which is a map, not a log" in result.output, result.output[-300:]
    assert (maps / "LOG_02.txt").read_bytes() == kept
