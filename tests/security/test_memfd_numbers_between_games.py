"""A game cannot make a memfd file, whose inode number told it what the game before had left.

memfd files take their inode numbers from one counter the kernel keeps for its internal shmem
mount (each CPU takes batches of 1024 from a machine-wide count, which little else moves on a
quiet machine). A game moved it by making memfd files, and the next game read it from a memfd's
`fstat().st_ino`. Measured through `treasure tournament` with the defaults (the sandbox, warm
hosts, one worker): an agent that read `ino % 1024` as the message of the game before, then made
`(msg - 1 - ino) % 1024` more files to leave its own 10-bit message, passed 9 of 11 hand-overs
exactly (the two misses: the next game ran on the other CPU); 10 bits is a tile of a 32x32 island.

The seccomp filter refuses `memfd_create` (sandbox/seccomp.py). This agent tries that exchange
in every game, on both routes of the sandbox: each try must be refused with ENOSYS, and its
games must be `logic`'s. A shared anonymous mapping takes its number from the same counter, and
`/proc/self/maps` shows it: every game has an empty `/proc` (the warm host's jail made one; a
sandbox per game had the game's own, where the same exchange passed 8 of 10 messages, until it got
an empty one too), so the agent's look at its maps must fail as well. (At `process`, no wall, it
does not: docs/security.md, sixth round.)
"""

from __future__ import annotations

import errno
import re
import uuid

import pytest
from helpers import cheat_beside_logic, hidden_maps, refuse_jail

NAME = "memfd_" + uuid.uuid4().hex[:10]  # no other test's agent has this name

CHEAT = '''\
import mmap
import os
import random
import sys

from treasure_cli.agents.planner import PlanningAgent


def memfd_ino():
    fd = os.memfd_create("x")
    ino = os.fstat(fd).st_ino
    os.close(fd)
    return ino


class Agent:
    def __init__(self):
        try:
            v = memfd_ino()
        except OSError as e:
            print(f"memfd: refused {e.errno}", file=sys.stderr, flush=True)
        else:
            msg = random.randrange(1024)
            for _ in range((msg - 1 - v) % 1024):
                os.close(os.memfd_create("y"))
            print(f"memfd: got {v % 1024} sent {msg}", file=sys.stderr, flush=True)
        shared = mmap.mmap(-1, 4096)  # MAP_SHARED | MAP_ANONYMOUS: an inode of the same counter
        try:
            with open("/proc/self/maps") as f:
                seen = [line for line in f if "/dev/zero" in line]
            print(f"maps: read {len(seen)}", file=sys.stderr, flush=True)
        except OSError as e:
            print(f"maps: refused {e.errno}", file=sys.stderr, flush=True)
        shared.close()
        self.fair = PlanningAgent()

    def act(self, obs):
        return self.fair.act(obs)
'''


@pytest.mark.parametrize("route", ["the warm host's jail", "a sandbox per game"])
def test_no_game_makes_a_memfd_file_to_read_the_last_ones_number(tmp_path, monkeypatch, route):
    if route == "a sandbox per game":
        refuse_jail(monkeypatch)
    maps, group = hidden_maps(tmp_path, 70), tmp_path / "students" / NAME
    group.mkdir(parents=True)
    (group / "agent.py").write_text(CHEAT)
    cheat, fair = cheat_beside_logic(group.parent, maps, tmp_path / "results.sqlite", NAME)
    said = [re.findall(r"^memfd: (.*)$", r.output, flags=re.M) for r in sorted(cheat, key=lambda r: r.finished_at)]
    exchanged = [re.fullmatch(r"got (\d+) sent (\d+)", s[0]) for s in said if len(s) == 1]
    passed = sum(b.group(1) == a.group(2) for a, b in zip(exchanged, exchanged[1:]) if a and b)
    assert all(s == [f"refused {errno.ENOSYS}"] for s in said), (f"{passed} hand-overs passed", said)
    maps = [re.findall(r"^maps: (.*)$", r.output, flags=re.M) for r in cheat]
    assert all(m == [f"refused {errno.ENOENT}"] for m in maps), maps
    assert {(r.map_digest, r.seed): (r.outcome, r.turns) for r in cheat} == fair
