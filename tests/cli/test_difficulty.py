"""`generate --difficulty`: maps that tell agents apart, as measured (docs/grading.md's table)."""

from __future__ import annotations

from click.testing import CliRunner

from treasure_cli.cli import cli
from treasure_cli.formats.map_file import read_map
from treasure_cli.grading.tournament import store_leaderboard


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_on_hard_maps_greedy_and_logic_separate_at_p_001_within_30_games_each(tmp_path):
    made = invoke("generate", "--size", "32", "--difficulty", "hard", "--count", "10", "--seed", "1000",
                  "--output-dir", str(tmp_path / "hard"))
    assert made.exit_code == 0, made.output
    db = str(tmp_path / "r.sqlite")
    played = invoke("tournament", "--with", "greedy,logic", "--maps", str(tmp_path / "hard"), "--games", "3",
                    "--seed", "5", "--db", db, "--jobs", "1")
    assert played.exit_code == 0, played.output
    board = store_leaderboard(db)
    [pair] = board.pairs
    assert (pair.a, pair.games, pair.decided_by) == ("logic", 30, "wins") and pair.p_value < 0.01


def test_easy_gives_a_late_pirate_and_hard_a_maze_and_what_is_given_stays(tmp_path):
    assert invoke("generate", "--size", "32", "--difficulty", "easy", "-o", str(tmp_path / "e.txt")).exit_code == 0
    easy = read_map(tmp_path / "e.txt")
    assert (easy.reveal_turn, easy.free_turn) == (4, 4 + 16)
    assert invoke("generate", "--size", "32", "--difficulty", "easy", "--free-turn", "9",
                  "-o", str(tmp_path / "e9.txt")).exit_code == 0
    assert read_map(tmp_path / "e9.txt").free_turn == 9
    assert invoke("generate", "--size", "32", "--difficulty", "hard", "-o", str(tmp_path / "h.txt")).exit_code == 0
    assert invoke("generate", "--size", "32", "--style", "maze", "-o", str(tmp_path / "m.txt")).exit_code == 0
    assert (tmp_path / "h.txt").read_text() == (tmp_path / "m.txt").read_text()
    refused = invoke("generate", "--difficulty", "hard", "--style", "island")
    assert refused.exit_code == 2 and "leave out --style island" in refused.output
