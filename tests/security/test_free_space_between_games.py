"""A game cannot read the disk's free space, which the referee's writes for an earlier game moved.

The files every game sees read-only (`/usr`, the interpreter, the agent's copy) sit on the
machine's disks, and so do the store and the logs the referee writes between games. What it
writes for a game depends on the game: the agent's printed lines (up to 64 KiB kept a game), its
error text. So a game that printed k pages moved the disk's count of free blocks by about k, and
the next game read the count with `statvfs("/usr")`. Measured through `treasure tournament` with
one worker, that agent alone, on an ext4 disk with `make test` writing beside it: in 9 of 11
hand-overs the count fell by the pages the game before had printed plus 5 or 6 (its row and
SQLite's pages), up to four bits a game; beside `logic`'s games the offset moved (9 to 20).

The seccomp filter refuses `statfs`, `fstatfs` and `ustat` (sandbox/seccomp.py). This agent asks
each path it can see for its free blocks and inodes in every game, and prints a number of pages
chosen by its starting tile (what a cheat would send); every question must be refused, and its
games must be `logic`'s, turn for turn.
"""

from __future__ import annotations

import errno
import re
import uuid

from helpers import cheat_beside_logic, hidden_maps

NAME = "space_" + uuid.uuid4().hex[:10]  # no other test's agent has this name

CHEAT = '''\
import os
import sys

from treasure_cli.agents.planner import PlanningAgent


def asked(where):
    try:
        s = os.fstatvfs(where) if isinstance(where, int) else os.statvfs(where)
    except OSError as e:
        return f"refused {e.errno}"
    return f"blocks {s.f_bfree} {s.f_bavail} inodes {s.f_ffree}"


class Agent:
    def __init__(self):
        for where in ("/usr", sys.prefix, os.getcwd(), os.path.dirname(os.__file__), "/", "/tmp", 2):
            print(f"free-space: {where}: {asked(where)}", file=sys.stderr, flush=True)
        self.fair = PlanningAgent()
        self.sent = False

    def act(self, obs):
        if not self.sent:  # what a cheat would carry: its starting tile, as a number of pages printed
            self.sent = True
            pages = (obs.position[0] + obs.position[1]) % 16
            print(f"free-space: sent {pages}", file=sys.stderr, flush=True)
            print("x" * (4096 * pages), file=sys.stderr, flush=True)
        return self.fair.act(obs)
'''


def test_no_game_reads_the_free_space_of_a_disk(tmp_path):
    maps, group = hidden_maps(tmp_path, 70), tmp_path / "students" / NAME
    group.mkdir(parents=True)
    (group / "agent.py").write_text(CHEAT)
    cheat, fair = cheat_beside_logic(group.parent, maps, tmp_path / "results.sqlite", NAME)
    for r in cheat:
        asked = re.findall(r"^free-space: (\S+): (.*)$", r.output, flags=re.M)
        assert len(asked) == 7, r.output[:2000]
        assert all(answer == f"refused {errno.ENOSYS}" for _, answer in asked), asked
    assert {(r.map_digest, r.seed): (r.outcome, r.turns) for r in cheat} == fair
