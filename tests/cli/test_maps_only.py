"""A folder of maps as teachers keep it (cli/options.py: map_files, formats/map_file.py:
looks_like_map): files a search finds that are not maps (the logs `treasure run` wrote beside
the maps, a README) are skipped in one line without changing the exit status, in every command
that takes --maps; a broken map is still an error, and so is a file named by itself that is not
a map."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from treasure_cli.cli import cli

NOT_MAPS = "skipped 3 files under {}/ that are not maps: README.txt, logs/LOG_01.txt, logs/LOG_02.txt"


def invoke(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, list(args))
    return done.exit_code, done.output


@pytest.fixture
def hidden(tmp_path: Path) -> Path:
    """Two maps in s16/, the logs of a run on them in logs/, and a README."""
    folder = tmp_path / "hidden"
    code, said = invoke("generate", "--size", "16", "--count", "2", "--seed", "1", "--output-dir", str(folder / "s16"))
    assert code == 0, said
    code, said = invoke("run", str(folder / "s16"), str(folder / "logs"), "--agent", "greedy", "--seed", "1")
    assert code == 0, said
    assert sorted(p.name for p in (folder / "logs").iterdir()) == ["LOG_01.txt", "LOG_02.txt"]
    (folder / "README.txt").write_text("The hidden maps: one folder per size.\n")
    return folder


def test_bench_skips_logs_and_notes_under_maps_in_one_line_and_succeeds(hidden):
    code, said = invoke("bench", "--agents", "greedy", "--maps", str(hidden), "--recursive", "--games", "1",
                        "--seed", "1")
    assert code == 0, said
    assert NOT_MAPS.format(hidden) in said
    assert "2 games in" in said


def test_a_broken_map_among_them_is_still_an_error(hidden):
    text = (hidden / "s16" / "MAP_01.txt").read_text().splitlines()
    text[6] = "X" + text[6][1:]  # a map row's first cell
    (hidden / "s16" / "MAP_03.txt").write_text("\n".join(text) + "\n")
    code, said = invoke("bench", "--agents", "greedy", "--maps", str(hidden), "--recursive", "--games", "1",
                        "--seed", "1")
    assert code == 1, said
    assert "MAP_03.txt:7:1: cell (1, 0)" in said and NOT_MAPS.format(hidden) in said


def test_tournament_and_check_skip_them_too_but_a_log_named_by_itself_is_no_map(hidden, tmp_path):
    code, said = invoke("tournament", "--with", "greedy,random", "--maps", str(hidden), "--games", "1", "--seed", "1",
                        "--db", str(tmp_path / "results.sqlite"))
    assert code == 0, said
    assert NOT_MAPS.format(hidden) in said and "greedy" in said
    code, said = invoke("check", "--recursive", str(hidden))
    assert code == 0, said
    assert NOT_MAPS.format(hidden) in said and said.count(": ok, 16x16 island") == 2
    code, said = invoke("check", str(hidden / "logs" / "LOG_01.txt"))
    assert code == 1 and "LOG_01.txt:1:3: expected the width and height" in said, said


def test_what_starts_as_a_map_is_a_map(tmp_path):
    from treasure_cli.formats.map_file import looks_like_map

    cases = {
        "map.txt": "16 16\n3\n7\n6\n9 13\n0; 0\n",
        "commas.txt": "\ufeff16, 16\r\n\r\n3\r\n7\r\n6\r\n9,13\r\nX\r\n",  # a broken map, but a map
        "log.txt": "17\nWIN\n2\nthe treasure is at (3, 4)\n",
        "short.txt": "\n16 16\n3\n",  # a header cut short: a broken map
        "binary.txt": "\x00\x01\n",
        "notes.txt": "16 16 maps\n3\n7\n6\n9 13\n",
        "empty.txt": "\n\n",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
    assert [n for n in cases if looks_like_map(tmp_path / n)] == ["map.txt", "commas.txt", "short.txt"]
