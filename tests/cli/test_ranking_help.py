"""The help says how the contest and the tournament rank, and what the tournament's pages hold, as
the code does it: the contest's third part is time per action (its table's `ms/action`), the
tournament ranks by wins then turns to a win, and its teacher's pages replay every game, wins too."""

from __future__ import annotations

from click.testing import CliRunner

from treasure_cli.cli import cli


def help_of(command: str) -> str:
    shown = CliRunner().invoke(cli, [command, "--help"], terminal_width=200)
    assert shown.exit_code == 0
    return " ".join(shown.output.split())


def test_the_contest_help_ranks_by_time_per_action():
    assert "ranked by wins, then mean turns to a win, then time per action;" in help_of("contest")


def test_the_tournament_help_ranks_by_wins_then_turns_and_pages_every_game():
    shown = help_of("tournament")
    assert "rank the agents of --db by wins, then turns to a win, with paired sign tests" in shown
    assert "a replay page per game, wins included" in shown
