"""A results store a student hands the teacher, its game ids edited (ninth round).

The pages of `tournament --report --html` are written to `game-<id>.html`, and `replay --db`
names the game by its id in what it prints. An id is 12 hex digits, a hash of what the row
holds; a stored one that is not (`/../../../x`, escapes, markup) wrote pages outside the pages'
folder and sent escapes to the terminal. Such an id is now computed again from the row, as an
older store's empty one is."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import invoke, shipped_maps

TITLE = "\x1b]0;PWNED\x07"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[Path, Path, str]:
    """A tournament's store of logic's one game on the first shipped map: (store, maps, its id)."""
    folder = tmp_path_factory.mktemp("hostile_store")
    maps = shipped_maps(folder / "maps", "MAP_01.txt")
    (folder / "class").mkdir()
    (folder / "class" / "ann.py").write_text("from treasure_cli import LargeScan\n\n\nclass Agent:\n"
                                            "    def act(self, obs):\n        return LargeScan()\n")
    db = folder / "r.sqlite"
    played = invoke("tournament", str(folder / "class"), "--with", "logic", "--maps", str(maps), "--db", str(db),
                    "--games", "1", "--seed", "1", "--agent-isolation", "process", "--jobs", "1")
    assert played.exit_code == 0, played.output
    with sqlite3.connect(db) as con:
        (game,) = con.execute("SELECT game_id FROM games WHERE agent = 'logic'").fetchone()
    return db, maps, game


def _edited(tmp_path: Path, store: tuple[Path, Path, str], sql: str, *args) -> Path:
    db = tmp_path / "handed_in.sqlite"
    db.write_bytes(store[0].read_bytes())
    with sqlite3.connect(db) as con:
        con.execute(sql, args)
    return db


def test_a_stored_id_with_dot_dots_writes_no_page_outside_the_folder(tmp_path, store):
    _, maps, game = store
    db = _edited(tmp_path, store, "UPDATE games SET game_id = ? WHERE agent = 'logic'", "/../../../escaped")
    pages = tmp_path / "a" / "b" / "pages"
    result = invoke("tournament", "--db", str(db), "--report", "--html", str(pages), "--maps", str(maps))
    assert result.exit_code == 0, result.output
    outside = [p for p in tmp_path.rglob("*") if p.is_file() and pages not in p.parents and p != db]
    assert outside == [], outside
    assert (pages / "teacher" / f"game-{game}.html").is_file()  # the id the row's content gives


def test_a_stored_id_with_markup_is_not_in_the_pages(tmp_path, store):
    _, maps, game = store
    markup = 'x"><form action=https://evil.example/><button>grades</button></form><a href="'
    db = _edited(tmp_path, store, "UPDATE games SET game_id = ? WHERE agent = 'logic'", markup)
    pages = tmp_path / "pages"
    assert invoke("tournament", "--db", str(db), "--report", "--html", str(pages), "--maps", str(maps)).exit_code == 0
    for page in pages.rglob("*.html"):
        assert "evil.example" not in page.read_text(), page
    assert f'href="game-{game}.html"' in (pages / "teacher" / "agent-logic.html").read_text()


def test_replay_of_a_stored_game_names_it_without_escapes(tmp_path, store):
    _, maps, game = store
    db = _edited(tmp_path, store, "UPDATE games SET game_id = ?, outcome = 'LOSE', turns = 99 WHERE agent = 'logic'",
                 f"{game}{TITLE}\nforged")
    result = invoke("replay", "--db", str(db), game[:6], "--maps", str(maps), "--no-pause", "--no-color")
    assert result.exit_code == 0, result.output
    assert "\x1b]" not in result.output and "\x07" not in result.output
    assert f"warning: game {game} is stored as LOSE on turn 99" in result.output
