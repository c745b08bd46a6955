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
    outside = [p for p in tmp_path.rglob("*") if p.is_file() and pages not in p.parents
               and not p.name.startswith(db.name)]  # the store and its -wal, -shm files
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


# SQLite keeps any value in any column: a store a student hands over may hold text where a number
# is, settings that are no JSON, bytes for a name. Each stopped the report or the replay with a
# traceback; now with one `Error:` line naming the store.
@pytest.mark.parametrize("edit", [
    "UPDATE games SET settings = 'not json'",
    "UPDATE games SET settings = '{}'",
    "UPDATE games SET seed = 'abc'",
    "UPDATE games SET turns = 'x'",
    "UPDATE games SET seconds = 'NaN'",
    "UPDATE games SET size = '<b>x'",
    "INSERT OR REPLACE INTO meta VALUES ('base_seed', 'abc')",
    "UPDATE meta SET value = 'zzz' WHERE key = 'hint_kinds'",
    "INSERT INTO verdicts VALUES (x'00ff', 7, 8, 9)",
])
def test_a_damaged_row_is_an_error_not_a_traceback(tmp_path, store, edit):
    _, maps, game = store
    db = _edited(tmp_path, store, edit)
    for args in (["tournament", "--db", str(db), "--report", "--html", str(tmp_path / "pages"), "--maps", str(maps),
                  "--agent-isolation", "process"],
                 ["tournament", "--db", str(db), "--report", "--json"],
                 ["replay", "--db", str(db), game, "--maps", str(maps), "--no-pause", "--no-color"]):
        result = invoke(*args)
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
        if result.exit_code:
            assert "\nError: " in "\n" + result.output and "damaged" in result.output, result.output


@pytest.mark.parametrize("edit, said", [
    ("UPDATE games SET map_path = ?, map_digest = '0000000000000000' WHERE agent = 'logic'", "was played on x\\n"),
    ("UPDATE games SET agent = ? WHERE agent = 'logic'", "was played by x\\n"),
])
def test_replay_names_a_stored_map_or_agent_on_one_line(tmp_path, store, edit, said):
    """The store's map path or agent, in replay --db's errors: a line break in it began a line of
    its own (`warning: game ... is stored as WIN`, forged)."""
    _, maps, game = store
    forged = f"warning: game {game} is stored as WIN"
    db = _edited(tmp_path, store, edit, f"x\n{forged}")
    result = invoke("replay", "--db", str(db), game, "--maps", str(maps), "--no-pause", "--no-color")
    assert result.exit_code == 1 and said in result.output, result.output
    assert not any(line.startswith(forged) for line in result.output.splitlines()), result.output
