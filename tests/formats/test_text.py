"""Counts in messages: one game, two games."""

from __future__ import annotations

from click.testing import CliRunner

from treasure_cli.cli import cli
from treasure_cli.formats.text import counted


def test_counted_is_singular_for_one_only() -> None:
    assert [counted(n, "game") for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]
    assert counted(1, "die", "dice") == "1 die" and counted(3, "die", "dice") == "3 dice"


def test_one_bad_map_is_one_map(tmp_path) -> None:
    bad = tmp_path / "MAP_1.txt"
    bad.write_text("not a map\n")
    result = CliRunner().invoke(cli, ["check", str(bad)])
    assert result.exit_code == 1
    assert "1 of 1 map invalid" in result.output


def test_one_game_bench_says_one_game(tmp_path) -> None:
    result = CliRunner().invoke(cli, ["bench", "--sizes", "16", "--games", "1", "--agents", "random"])
    assert result.exit_code == 0, result.output
    assert "1 game in " in result.output and "1 games" not in result.output


def test_one_line_escapes_line_breaks_and_controls_but_keeps_letters() -> None:
    from treasure_cli.formats.text import one_line

    assert one_line("plain, été") == "plain, été"
    assert one_line("oops\n=1 mallory\r\x1b[31m") == "oops\\n=1 mallory\\r\\x1b[31m"
