"""What the kernel keeps about files every game shares carries nothing from one game to another.

Every game of an agent sees the same inodes: its group's copy, the interpreter, `/usr`. Two
channels went through them, through `treasure tournament` and its defaults:

* the page cache: a game dropped the pages of its group's data file with
  `posix_fadvise(POSIX_FADV_DONTNEED)`, read back the pages of a 16-bit pattern, and a later
  game asked each page with `preadv2(RWF_NOWAIT)` (cached or not, without waiting): 2 of 6
  games read the pattern exactly;
* watches on a shared folder (`inotify`, `F_NOTIFY`), which a game running at the same time sees.

This agent tries both in every game, then plays `logic`: no game may read the pattern, each
call must be refused, and the games are logic's, turn for turn. Locks (`flock`, `fcntl`'s record
locks) are left to agents: SQLite takes them to read its own file, and a lock dies with its
process (the last test).
"""

from __future__ import annotations

import textwrap
import uuid

import numpy as np
from click.testing import CliRunner
from helpers import cheat_beside_logic, hidden_maps

from treasure_cli.cli import cli
from treasure_cli.formats.map_file import write_map
from treasure_cli.grading.store import Store
from treasure_cli.islands.generator import generate_island

NAME = "cache_" + uuid.uuid4().hex[:10]  # no other test's agent has this name

CHEAT = textwrap.dedent('''\
    import ctypes
    import fcntl
    import os
    import sys

    from treasure_cli.agents.planner import PlanningAgent  # the agent `logic` names

    PAGE, PATTERN = 4096, [int(c) for c in format(0xA5C3, "016b")]
    libc = ctypes.CDLL(None, use_errno=True)


    def cached(fd, page):
        try:
            os.preadv(fd, [bytearray(1)], page * PAGE, os.RWF_NOWAIT)
            return 1
        except BlockingIOError:
            return 0


    def attempt(name, call):
        try:
            call()
            return name + " worked"
        except OSError as e:
            return f"{name} refused ({e.errno})"


    class Agent:
        def __init__(self):
            fd = os.open("data.bin", os.O_RDONLY)
            tried = []
            try:
                seen = [cached(fd, i) for i in range(len(PATTERN))]
                tried.append("preadv2 worked")
            except OSError as e:
                seen, _ = [], tried.append(f"preadv2 refused ({e.errno})")
            self.saw = seen == PATTERN
            tried.append(attempt("fadvise", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)))
            tried.append(attempt("fadvise", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)))
            for i, bit in enumerate(PATTERN):
                if bit:
                    os.pread(fd, 1, i * PAGE)
            shared = os.open(os.path.realpath(os.__file__), os.O_RDONLY)
            folder = os.open(os.path.dirname(os.__file__), os.O_RDONLY)
            tried.append(attempt("F_NOTIFY", lambda: fcntl.fcntl(folder, fcntl.F_NOTIFY, fcntl.DN_ACCESS)))
            watch = libc.inotify_init1(0)
            tried.append("inotify worked" if watch >= 0 else f"inotify refused ({ctypes.get_errno()})")
            print("cache-attack read", "the pattern" if self.saw else "nothing", "tried", tried,
                  file=sys.stderr, flush=True)
            self.fair = PlanningAgent()

        def act(self, obs):
            if self.saw:
                raise RuntimeError("cache-attack: an earlier game left its pattern")
            return self.fair.act(obs)
''')


def test_no_game_reads_an_earlier_ones_pages_or_sees_a_lock_or_a_watch(tmp_path):
    maps, group = hidden_maps(tmp_path, 70), tmp_path / "students" / NAME
    group.mkdir(parents=True)
    (group / "agent.py").write_text(CHEAT)
    (group / "data.bin").write_bytes(bytes(range(256)) * 256)  # 64 kB: 16 pages, one bit each
    cheat, fair = cheat_beside_logic(group.parent, maps, tmp_path / "results.sqlite", NAME)
    for r in cheat:
        assert "cache-attack read nothing" in r.output, (r.outcome, r.error, r.output)
        tried = r.output.split(" tried ")[1]
        assert "worked" not in tried, tried
        for name in ("preadv2", "fadvise", "F_NOTIFY", "inotify"):
            assert f"{name} refused (" in tried, tried  # ENOSYS (glibc's preadv2 says EOPNOTSUPP)
    assert {(r.map_digest, r.seed): (r.outcome, r.turns) for r in cheat} == fair


SQLITE = textwrap.dedent('''\
    import fcntl
    import sqlite3
    from pathlib import Path

    from treasure_cli.agents.planner import PlanningAgent


    class Agent(PlanningAgent):
        def __init__(self):
            super().__init__()
            here = Path(__file__).with_name("table.db")
            self.x = sqlite3.connect(str(here)).execute("SELECT x FROM t").fetchone()[0]
            with open(here, "rb") as f:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
    ''')


def test_a_group_reads_its_own_sqlite_table_in_the_sandbox(tmp_path):
    """SQLite locks the file it reads: with the locks refused, the group failed every game with
    "disk I/O error" while building its agent."""
    import sqlite3

    maps, group = tmp_path / "hidden", tmp_path / "students" / "tables"
    maps.mkdir()
    group.mkdir(parents=True)
    write_map(generate_island(16, 16, rng=np.random.default_rng(7)), maps / "MAP_01.txt")
    (group / "agent.py").write_text(SQLITE)
    with sqlite3.connect(group / "table.db") as db:
        db.execute("CREATE TABLE t (x)")
        db.execute("INSERT INTO t VALUES (1)")
    db.close()
    store = tmp_path / "results.sqlite"
    played = CliRunner().invoke(cli, ["tournament", str(group.parent), "--maps", str(maps), "--games", "2",
                                      "--seed", "5", "--db", str(store), "--jobs", "1"])
    assert played.exit_code == 0, played.output
    with Store(store) as s:
        rows = s.rows()
    assert len(rows) == 2 and {r.isolation for r in rows} == {"sandbox"}
    assert {r.outcome for r in rows} <= {"WIN", "LOSE"}, [(r.outcome, r.error) for r in rows]
