"""The results store of a tournament: every finished game, one row, in SQLite.

`treasure tournament ... --db results.sqlite` writes here as games finish and reads
here first, so a rerun of the same command plays only what is missing: a
Ctrl-C, a crash or a killed machine costs at most the games in flight.

A game is keyed by what decides its result: the agent spec, the digest of
the agent's code, the game settings (truth rate, turn limit, time limit),
the map's content digest and the game seed. A resubmitted agent (new code
digest) is therefore played again, in rows of its own; the old rows stay.

The file uses WAL mode (readers never block the writer, a killed writer
leaves the file consistent) and `synchronous=NORMAL` (a commit survives the
process being killed; only a power cut can lose the last commits). Its
schema version is `PRAGMA user_version`; `PRAGMA application_id` marks the
file as a results store, so another SQLite file is refused, not altered.
"""

from __future__ import annotations

import dataclasses
import re
import sqlite3
import time
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path

from treasure_cli.errors import TreasureError
from treasure_cli.play.records import game_id
from treasure_cli.play.records import settings_key as settings_key  # for its old name, treasure_cli.play.store, until 0.5.0

SCHEMA_VERSION = 10
APPLICATION_ID = 0x54524553  # "TRES"

# MIGRATIONS[v] takes a store from version v - 1 to v (version 0: an empty file).
MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE games (
        id              INTEGER PRIMARY KEY,
        agent           TEXT    NOT NULL,  -- the agent spec as given
        agent_digest    TEXT    NOT NULL,  -- file:<sha256> | module:<sha256> | package:<name>==<version>
        settings        TEXT    NOT NULL,  -- JSON: truth_rate, max_turns, game_timeout
        map_path        TEXT    NOT NULL,  -- as given on the command line (informative)
        map_digest      TEXT    NOT NULL,  -- the map's content digest (part of the key)
        game_index      INTEGER NOT NULL,  -- game i on this map
        seed            INTEGER NOT NULL,  -- the game seed
        size            TEXT    NOT NULL,  -- WxH
        outcome         TEXT    NOT NULL CHECK (outcome IN ('WIN', 'LOSE', 'failed')),
        reason          TEXT    NOT NULL,  -- found / pirate / timeout, or the failure's kind
        error           TEXT,              -- why a failed game failed
        turns           INTEGER NOT NULL,
        seconds         REAL    NOT NULL,
        program_version TEXT    NOT NULL,  -- the treasure-cli that played it
        finished_at     TEXT    NOT NULL,  -- UTC, ISO 8601
        UNIQUE (agent, agent_digest, settings, map_digest, seed)
    );
    CREATE INDEX games_by_game ON games (settings, map_digest, seed);
    """,
    2: """
    ALTER TABLE games ADD COLUMN output TEXT NOT NULL DEFAULT '';  -- what the agent printed (cut)
    ALTER TABLE games ADD COLUMN traceback TEXT;                     -- the agent's own frames, when it raised
    ALTER TABLE games ADD COLUMN isolation TEXT NOT NULL DEFAULT ''; -- in-process / process / sandbox
    """,
    3: """
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL      -- base_seed: the secret base seed of the store's games
    );
    """,
    4: """
    ALTER TABLE games ADD COLUMN name TEXT NOT NULL DEFAULT '';     -- the student (tournament), else ''
    ALTER TABLE games ADD COLUMN game_id TEXT NOT NULL DEFAULT '';  -- records.game_id ('' in older rows)
    CREATE INDEX games_by_id ON games (game_id);
    """,
    5: """
    ALTER TABLE games ADD COLUMN play_digest TEXT;  -- the agent's actions, hashed (NULL: failed, or older rows)
    """,
    # meta's hint_kinds: the hint kinds the store's games are played with (formats/hint_plugins.hints_key,
    # or 'builtin'). Games stored before could only be played with the built-in kinds: recorded so,
    # and a store the first run has not played into yet takes that run's. The version bump also
    # keeps an older treasure-cli, which knows no hint kinds, from resuming a store of plugin kinds.
    6: """
    INSERT OR IGNORE INTO meta (key, value) SELECT 'hint_kinds', 'builtin' WHERE EXISTS (SELECT 1 FROM games);
    """,
    # Every group accounted for (grading/verdicts.py): a group that never reached a game has no row in
    # games, so its verdict is kept here for the report. And the maps whose games were published
    # (`--report --html DIR --public-maps GLOB`): a tournament on one of them warns.
    7: """
    CREATE TABLE IF NOT EXISTS verdicts (
        name        TEXT PRIMARY KEY,  -- the group
        status      TEXT NOT NULL,     -- 'left out' or 'build failed'
        reason      TEXT NOT NULL,     -- one line: why
        recorded_at TEXT NOT NULL      -- UTC, ISO 8601
    );
    CREATE TABLE IF NOT EXISTS published_maps (
        map_digest   TEXT PRIMARY KEY, -- the map's content digest
        map_path     TEXT NOT NULL,    -- as the report named it
        published_at TEXT NOT NULL     -- UTC, ISO 8601: the first report that published it
    );
    """,
    # The agent's actions in each game (one or two a turn), for the contest's time per action
    # (grading/contest.py). Rows stored before hold NULL: their time is compared per turn.
    8: """
    ALTER TABLE games ADD COLUMN actions INTEGER;  -- the agent's actions (NULL: older rows, or no game began)
    """,
    # The map's style as its terrain shows it (islands/style.py), named beside its path on the pages.
    # Rows stored before hold '': the pages then say nothing of it.
    9: """
    ALTER TABLE games ADD COLUMN map_style TEXT NOT NULL DEFAULT '';  -- island | maze ('' in older rows)
    """,
    # The roster's student id of each group (--roster), for the teacher's gradebook (--report --csv).
    10: """
    CREATE TABLE IF NOT EXISTS student_ids (
        name        TEXT PRIMARY KEY,  -- the group, as the roster names it
        student_id  TEXT NOT NULL      -- the roster's id for it
    );
    """,
}

COLUMNS = ("agent", "agent_digest", "settings", "map_path", "map_digest", "game_index", "seed", "size",
           "outcome", "reason", "error", "turns", "seconds", "program_version", "finished_at", "output",
           "traceback", "isolation", "name", "game_id", "play_digest", "actions", "map_style")
_GAME_ID = re.compile(r"[0-9a-f]{12}")  # records.game_id: 12 hex digits
KEY = ("agent", "agent_digest", "settings", "map_digest", "seed")


@dataclasses.dataclass(frozen=True)
class Row:
    """One finished game as stored."""

    agent: str
    agent_digest: str
    settings: str
    map_path: str
    map_digest: str
    game_index: int
    seed: int
    size: str
    outcome: str
    reason: str
    error: str | None
    turns: int
    seconds: float
    program_version: str
    finished_at: str = ""
    output: str = ""              # what the agent printed during the game, cut at the limit
    traceback: str | None = None  # the agent's own frames, when its code raised
    isolation: str = ""           # where it played: in-process, process or sandbox
    name: str = ""                # the student it stands for (a tournament's submissions), else ""
    game_id: str = ""             # computed when not given (rows of older stores hold "")
    play_digest: str | None = None  # the agent's actions, hashed (grading/similarity.py); None: failed, or older
    actions: int | None = None      # the agent's actions, up to its failure; None: older rows, or no game began
    map_style: str = ""             # island | maze, as the map's terrain shows it (islands/style.py); "": older
    id: int | None = None
    # Not stored: the worker's wall seconds for the whole game, the agent's start-up and end included
    # (`seconds` is the game's own time); what a game costs the run, for the progress line's ETA.
    busy: float = dataclasses.field(default=0.0, compare=False)

    def __post_init__(self) -> None:
        # A stored id that is not one (a store handed over, edited: `../x`, markup, escapes) is
        # computed again, as an older row's "" is: pages are written to game-<id>.html and link to it.
        if not _GAME_ID.fullmatch(self.game_id or ""):
            object.__setattr__(self, "game_id", game_id(self.agent, self.agent_digest, self.settings,
                                                        self.map_digest, self.game_index, self.seed))

    @property
    def key(self) -> tuple:
        return tuple(getattr(self, k) for k in KEY)

    @property
    def error_said(self) -> str | None:
        """The error as messages show it: its map named with the map's style where the row knows it
        (`m24/MAP_01.txt (maze): agent ... failed: ...`)."""
        if self.error and self.map_style and self.error.startswith(self.map_path + ": "):
            return f"{self.map_path} ({self.map_style})" + self.error[len(self.map_path):]
        return self.error

    @property
    def label(self) -> str:
        """Who played: the student's name, else the agent spec."""
        return self.name or self.agent




def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Store:
    """An open results store. Rows added are committed in bounded batches
    (`batch` rows or `interval` seconds, whichever comes first; 1 row by default)."""

    def __init__(self, path: str | Path, *, batch: int = 1, interval: float = 1.0, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise TreasureError(f"{path}: no such results store")
        if self.path.exists() and self.path.is_dir():
            raise TreasureError(f"{path}: is a folder, not a results store")
        self.batch, self.interval = max(1, batch), interval
        self._pending: list[Row] = []
        self._last_commit = time.monotonic()
        try:
            self.db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
            self._open()
        except sqlite3.DatabaseError as exc:
            raise TreasureError(f"{path}: not a results store ({exc})") from None

    def _open(self) -> None:
        db = self.db
        version = db.execute("PRAGMA user_version").fetchone()[0]
        app = db.execute("PRAGMA application_id").fetchone()[0]
        if version == 0:
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise TreasureError(f"{self.path}: an SQLite file that is not a results store of treasure-cli; "
                                    "give a new file name")
        elif app != APPLICATION_ID:
            raise TreasureError(f"{self.path}: an SQLite file that is not a results store of treasure-cli "
                                f"(application_id {app:#x}); give a new file name")
        if version > SCHEMA_VERSION:
            from treasure_cli.version import __version__

            raise TreasureError(f"{self.path}: written by a newer treasure-cli (store schema {version}; "
                                f"treasure-cli {__version__} reads schemas up to {SCHEMA_VERSION}): "
                                "upgrade treasure-cli to use it")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        if version < SCHEMA_VERSION:
            db.execute("BEGIN IMMEDIATE")
            try:
                # Someone else may have migrated it while this one waited for the lock.
                version = db.execute("PRAGMA user_version").fetchone()[0]
                for step in range(version + 1, SCHEMA_VERSION + 1):
                    for statement in _statements(MIGRATIONS[step]):
                        try:
                            db.execute(statement)
                        except sqlite3.OperationalError as exc:
                            # A store set back to an older version (by hand, or a test) already has
                            # the column: ADD COLUMN has no IF NOT EXISTS, and the step is done.
                            if not str(exc).startswith("duplicate column name"):
                                raise
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    # -- the secret base seed ---------------------------------------------------
    def secret_seed(self) -> int | None:
        """The store's secret base seed, if it has one yet (for the report; makes none)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'base_seed'").fetchone()
        return self._seed(row[0]) if row is not None else None

    def base_seed(self) -> tuple[int, bool]:
        """The base seed of this store's games, and whether it is the store's own secret.

        A store made by this version draws one from `secrets` when it is created and keeps it,
        so a tournament resumes with it and no agent can know it (a known base seed lets an agent
        recompute each game's hidden draws: docs/security.md). A store that already held games
        from an earlier version keeps their known seed, 1 (bench's default then), so resuming
        it plays the same games; the second value says so.
        """
        row = self.db.execute("SELECT value FROM meta WHERE key = 'base_seed'").fetchone()
        if row is not None:
            return self._seed(row[0]), True
        if len(self) and self.db.execute("SELECT count(*) FROM games WHERE program_version LIKE '0.2.%'").fetchone()[0]:
            return 1, False
        import secrets

        self.db.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have made it while this one waited for the lock: keep theirs.
            self.db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('base_seed', ?)",
                            (str(secrets.randbits(63)),))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return self._seed(self.db.execute("SELECT value FROM meta WHERE key = 'base_seed'").fetchone()[0]), True

    def _seed(self, value: object) -> int:
        """The stored base seed, checked: a store may be a file handed over or edited."""
        if not (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20):
            raise TreasureError(f"{self.path}: its base seed {value!r:.40} is damaged: this store was edited or "
                                "not written by treasure")
        return int(value)

    def _texts(self, table: str, rows: Iterable[tuple]) -> list[tuple]:
        """`rows` of `table`, each value text (SQLite keeps any value in any column)."""
        rows = list(rows)
        for row in rows:
            if not all(isinstance(value, str) for value in row):
                raise TreasureError(f"{self.path}: a row of its {table} is damaged ({row!r:.60}): this store was "
                                    "edited or not written by treasure")
        return rows

    # -- the hint kinds -------------------------------------------------------
    def hint_kinds(self) -> str | None:
        """The record of the hint kinds the store's games are played with (None: no game yet)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'hint_kinds'").fetchone()
        return None if row is None else self._texts("hint kinds", [row])[0][0]

    def claim_hint_kinds(self, record: str) -> str:
        """The store's hint kinds' record: `record` when it had none yet (kept from now on), else its own."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have made it while this one waited for the lock: theirs stands.
            self.db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('hint_kinds', ?)", (record,))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return self.hint_kinds() or record

    # -- the groups that never played, and the maps published ---------------------
    def set_verdicts(self, verdicts: Iterable[tuple[str, str, str]], clear: Iterable[str] = ()) -> None:
        """Record (name, status, reason) for groups that did not reach a game; forget those of `clear`."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.executemany("DELETE FROM verdicts WHERE name = ?", [(name,) for name in clear])
            self.db.executemany("INSERT OR REPLACE INTO verdicts (name, status, reason, recorded_at) "
                                "VALUES (?, ?, ?, ?)", [(*v, now()) for v in verdicts])
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def set_student_ids(self, ids: Mapping[str, str]) -> None:
        """Remember the roster's student id of each group (name -> id); a group named again takes its new id."""
        if not ids:
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.executemany("INSERT OR REPLACE INTO student_ids (name, student_id) VALUES (?, ?)",
                                sorted(ids.items()))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def student_ids(self) -> dict[str, str]:
        """group name -> the roster's student id, for the groups a roster named."""
        return dict(self._texts("student ids", self.db.execute("SELECT name, student_id FROM student_ids")))

    def verdicts(self) -> list[tuple[str, str, str]]:
        """(name, status, reason) of every group recorded as not played, by name."""
        return self._texts("verdicts", self.db.execute("SELECT name, status, reason FROM verdicts ORDER BY name"))

    def publish_maps(self, maps: Iterable[tuple[str, str]]) -> None:
        """Remember that the games of these maps (digest, path) were published (the first time is kept)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.executemany("INSERT OR IGNORE INTO published_maps (map_digest, map_path, published_at) "
                                "VALUES (?, ?, ?)", [(*m, now()) for m in maps])
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def published_maps(self) -> dict[str, tuple[str, str]]:
        """map digest -> (path, when) of every map whose games were published."""
        return {d: (p, t) for d, p, t in self._texts("published maps", self.db.execute(
            "SELECT map_digest, map_path, published_at FROM published_maps"))}

    # -- writing -------------------------------------------------------------
    def add(self, *rows: Row) -> None:
        """Record finished games (a game already recorded is left as it is)."""
        self._pending.extend(rows)
        if len(self._pending) >= self.batch or time.monotonic() - self._last_commit >= self.interval:
            self.flush()

    def flush(self) -> None:
        if self._pending:
            names = ", ".join(COLUMNS)
            marks = ", ".join("?" for _ in COLUMNS)
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.executemany(f"INSERT OR IGNORE INTO games ({names}) VALUES ({marks})",
                                    [tuple(getattr(r, c) for c in COLUMNS) for r in self._pending])
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self._pending.clear()
        self._last_commit = time.monotonic()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- reading -------------------------------------------------------------
    def keys(self, settings: str | None = None) -> set[tuple]:
        """The key of every game recorded (with these settings)."""
        sql = f"SELECT {', '.join(KEY)} FROM games" + (" WHERE settings = ?" if settings is not None else "")
        return set(self.db.execute(sql, () if settings is None else (settings,)).fetchall())

    def rows(self, settings: str | None = None) -> list[Row]:
        """Every row (with these settings), in the order they were recorded."""
        sql = f"SELECT {', '.join(COLUMNS)}, id FROM games" + (" WHERE settings = ?" if settings is not None else "")
        return [self._row(r) for r in self.db.execute(sql + " ORDER BY id", () if settings is None else (settings,))]

    def _row(self, values: tuple) -> Row:
        """A stored row, its values checked: a store may be a file handed over or edited, and
        SQLite keeps any value in any column (text for a seed, a settings that is no JSON)."""
        problem = _damage(dict(zip((*COLUMNS, "id"), values)))
        if problem:
            raise TreasureError(f"{self.path}: game row {values[-1]} is damaged ({problem}): this store was "
                                "edited or not written by treasure")
        return Row(*values)

    def find(self, game: str) -> Row:
        """The game whose id is `game` (or starts with it); TreasureError when none or several."""
        game = game.strip().lower()
        if not game or any(c not in "0123456789abcdef" for c in game):
            raise TreasureError(f"{game!r} is not a game id (hex digits, as the report and bench print them)")
        sql = f"SELECT {', '.join(COLUMNS)}, id FROM games"
        stored = [self._row(r) for r in self.db.execute(sql + " WHERE game_id LIKE ? ORDER BY id", (game + "%",))]
        if not stored:  # rows of an older store have no id written: computed from what they hold
            stored = [r for r in self.rows() if r.game_id.startswith(game)]
        if not stored:
            raise TreasureError(f"{self.path} holds no game {game}")
        if len({r.game_id for r in stored}) > 1:
            raise TreasureError(f"{game} is the start of several games' ids in {self.path}: "
                                + ", ".join(sorted({r.game_id for r in stored})[:5]) + "; give more digits")
        return stored[0]

    def settings_seen(self) -> list[str]:
        seen = [r[0] for r in self.db.execute("SELECT DISTINCT settings FROM games ORDER BY settings")]
        for settings in seen:
            if not isinstance(settings, str) or not _game_settings(settings):
                raise TreasureError(f"{self.path}: a game row is damaged (settings {settings!r:.40} are not a game's "
                                    "settings): this store was edited or not written by treasure")
        return seen

    def __len__(self) -> int:
        return self.db.execute("SELECT count(*) FROM games").fetchone()[0]


_TEXT = ("agent", "agent_digest", "settings", "map_path", "map_digest", "size", "outcome", "reason",
         "program_version", "finished_at", "output", "isolation", "name", "game_id", "map_style")
_SIZE = re.compile(r"[0-9]{1,6}x[0-9]{1,6}")


def _damage(row: dict) -> str:
    """What in a stored row no version of treasure writes (wrong types, settings that are no
    JSON object, a size not WxH, an unknown outcome); "" when nothing."""
    import math

    def shown(value: object) -> str:
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."

    for column in _TEXT:
        if not isinstance(row[column], str):
            return f"{column} {shown(row[column])} is not text"
    for column in ("error", "traceback", "play_digest"):
        if row[column] is not None and not isinstance(row[column], str):
            return f"{column} {shown(row[column])} is not text"
    for column in ("game_index", "seed", "turns", "actions"):
        value = row[column]
        if not (isinstance(value, int) or (value is None and column == "actions")):
            return f"{column} {shown(value)} is not a whole number"
    if not isinstance(row["seconds"], (int, float)) or not math.isfinite(row["seconds"]):
        return f"seconds {shown(row['seconds'])} is not a number"
    if row["outcome"] not in ("WIN", "LOSE", "failed"):
        return f"outcome {shown(row['outcome'])} is not WIN, LOSE or failed"
    if not _SIZE.fullmatch(row["size"]) and not (row["outcome"] == "failed" and row["size"] in ("", "-")):
        return f"size {shown(row['size'])} is not WxH"
    if not _game_settings(row["settings"]):
        return f"settings {shown(row['settings'])} are not a game's settings"
    return ""


def _game_settings(text: str) -> bool:
    """Whether `text` is a game's settings as records.settings_key writes them."""
    import json

    try:
        settings = json.loads(text)
    except ValueError:
        return False
    # (an old store's rows may hold "{}": each key is checked where it is given)
    return (isinstance(settings, dict)
            and (settings.get("truth_rate") is None or isinstance(settings["truth_rate"], (int, float)))
            and (settings.get("max_turns") is None or isinstance(settings["max_turns"], int))
            and (settings.get("game_timeout") is None or isinstance(settings["game_timeout"], (int, float)))
            and (settings.get("hints") is None or isinstance(settings["hints"], str)))


def _statements(script: str) -> Iterable[str]:
    """The statements of a migration script, one by one (so they run inside one transaction)."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""
    if buffer.strip():
        yield buffer.strip()
