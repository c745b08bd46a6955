"""The results store: WAL, a schema version, bounded batches, and clear refusals."""

from __future__ import annotations

import sqlite3

import pytest

from treasure_cli.errors import TreasureError
from treasure_cli.grading.store import APPLICATION_ID, SCHEMA_VERSION, Row, Store
from treasure_cli.play.records import settings_key


def row(seed: int, agent: str = "logic", digest: str = "package:x") -> Row:
    return Row(agent, digest, settings_key(0.5, None, None), "maps/M.txt", "abcd", seed, seed, "16x16",
               "WIN", "found", None, 3, 0.01, "0.2.0", "2026-01-01T00:00:00.000+00:00")


def count(path) -> int:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM games").fetchone()[0]


def test_a_new_store_is_versioned_and_in_wal_mode(tmp_path):
    path = tmp_path / "r.sqlite"
    with Store(path) as store:
        store.add(row(1))
        store.add(row(1))  # the same game again: kept once
        store.add(row(2, digest="package:y"))  # a new version of the agent: a row of its own
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert count(path) == 2
    with Store(path) as again:
        assert len(again) == 2
        assert {r.agent_digest for r in again.rows()} == {"package:x", "package:y"}
        assert again.keys(settings_key(0.5, None, None)) == {r.key for r in again.rows()}
        assert again.keys(settings_key(0.9, None, None)) == set()


def test_rows_are_committed_in_bounded_batches(tmp_path):
    path = tmp_path / "r.sqlite"
    store = Store(path, batch=3, interval=3600)
    store.add(row(1))
    store.add(row(2))
    assert count(path) == 0  # not yet committed: at most a batch is ever at risk
    store.add(row(3))
    assert count(path) == 3
    store.add(row(4))
    store.close()  # closing commits the rest
    assert count(path) == 4


def test_a_store_from_a_newer_program_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "r.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(TreasureError, match=rf"newer treasure-cli \(store schema {SCHEMA_VERSION + 1}; .* upgrade"):
        Store(path)


def test_other_files_are_refused_and_left_alone(tmp_path):
    foreign = tmp_path / "other.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(TreasureError, match="not a results store of treasure-cli"):
        Store(foreign)
    with sqlite3.connect(foreign) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["t"]
    text = tmp_path / "notes.sqlite"
    text.write_text("hello, this is not a database at all" * 100)
    with pytest.raises(TreasureError, match="not a results store"):
        Store(text)
    with pytest.raises(TreasureError, match="no such results store"):
        Store(tmp_path / "missing.sqlite", create=False)


def test_an_older_store_is_migrated(tmp_path):
    """Version 0 is an empty file: opening it applies every migration up to the current schema."""
    path = tmp_path / "r.sqlite"
    sqlite3.connect(path).close()
    with Store(path) as store:
        store.add(row(1))
    assert count(path) == 1


def test_the_docs_give_the_current_schema_version():
    from helpers import ROOT

    doc = (ROOT / "docs" / "tournament.md").read_text()
    assert f"The schema version is `PRAGMA user_version` (now {SCHEMA_VERSION})" in doc
