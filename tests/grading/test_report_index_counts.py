"""The teacher's index says how many games its store holds, and in which store: the sentence was
once written without its f-string prefix, and the page showed `{counted(len(board.rows), 'game')}
in {html.escape(Path(db).name)}` as it stood in the code."""

from __future__ import annotations

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli


def test_the_teacher_index_names_its_games_and_store(tmp_path):
    runner, db = CliRunner(), tmp_path / "results.sqlite"
    played = runner.invoke(cli, ["tournament", "--with", "logic", "--maps", str(ROOT / "input" / "MAP_01.txt"),
                                 "--games", "2", "--db", str(db), "--seed", "1"])
    assert played.exit_code == 0, played.output
    report = runner.invoke(cli, ["tournament", "--db", str(db), "--report", "--html", str(tmp_path / "pages")])
    assert report.exit_code == 0, report.output
    index = (tmp_path / "pages" / "teacher" / "index.html").read_text()
    assert "2 games in results.sqlite, played with" in index
    body = index.split("<body", 1)[1].split("<script", 1)[0]
    assert "{" not in body and "counted(" not in body  # no code shown as text
