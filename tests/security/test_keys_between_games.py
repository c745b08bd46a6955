"""A key left by one game for the next, in the keyrings the kernel keeps after a game ends.

Where a warm host cannot jail its games (a kernel that refuses user namespaces inside the
sandbox: Ubuntu 24.04's AppArmor, for one), each game gets a bubblewrap sandbox of its own,
and a referee run as root runs it as its agent's user in the machine's first user namespace.
That user's user keyring and its persistent keyring (`KEYCTL_GET_PERSISTENT`, kept three days)
outlive the game: a key added to either in one game was found by every later game of the agent,
through `treasure tournament` (a tile, not a bit). The seccomp filter now refuses `add_key`,
`request_key` and every `keyctl` but the nameless session keyring a warm host's jail joins for
each game (sandbox/seccomp.py).
"""

from __future__ import annotations

import shutil
import uuid

import pytest
from helpers import ROOT, invoke, refuse_jail

from treasure_cli.grading.store import Store
from treasure_cli.sandbox import process as agent_process

MARK = "r52-" + uuid.uuid4().hex[:10]  # no other test's key

AGENT = '''\
import ctypes, os, sys
from treasure_cli.agents.planner import PlanningAgent  # the agent `logic` names

libc = ctypes.CDLL(None, use_errno=True)
KEYCTL, ADD_KEY = 250, 248  # x86_64
said = []
for name in ("persistent", "user", "user-session"):
    if name == "persistent":
        ring = libc.syscall(KEYCTL, 22, ctypes.c_long(-1), ctypes.c_long(-2))  # GET_PERSISTENT, own uid
    else:
        ring = libc.syscall(KEYCTL, 0, ctypes.c_long(-4 if name == "user" else -5), ctypes.c_long(1))
    if ring < 0:
        said.append(name + ":refused")
        continue
    if libc.syscall(KEYCTL, 10, ctypes.c_long(ring), b"user", MARK, ctypes.c_long(0)) >= 0:  # SEARCH
        said.append(name + ":FOUND")
    elif libc.syscall(ADD_KEY, b"user", MARK, b"(12, 3)", ctypes.c_size_t(7), ctypes.c_long(ring)) >= 0:
        said.append(name + ":added")
    else:
        said.append(name + ":not-added")
print("KEYS", " ".join(said), file=sys.stderr, flush=True)


class Agent:
    def __init__(self):
        self.fair = PlanningAgent()

    def act(self, obs):
        return self.fair.act(obs)
'''.replace("MARK", repr(MARK.encode()))


@pytest.mark.parametrize("route", ["a sandbox per game", "the warm host's jail"])
def test_no_game_finds_a_key_an_earlier_game_left(tmp_path, monkeypatch, route):
    import platform

    if platform.machine() != "x86_64":
        pytest.skip("the agent's system call numbers are x86_64's")
    if route == "a sandbox per game":
        refuse_jail(monkeypatch)
    (tmp_path / "class" / "keys").mkdir(parents=True)
    (tmp_path / "class" / "keys" / "agent.py").write_text(AGENT)
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps")
    db = tmp_path / "r.sqlite"
    agent_process.close_all()  # warm hosts of this test's own
    try:
        played = invoke("tournament", str(tmp_path / "class"), "--maps", str(tmp_path / "maps"), "--db", str(db),
                        "--games", "3", "--jobs", "1", "--seed", "1")
    finally:
        agent_process.close_all()
    assert played.exit_code == 0, played.output
    with Store(db) as store:
        said = [r.output for r in sorted(store.rows(), key=lambda r: r.finished_at)]
    assert len(said) == 3 and all(s.startswith("KEYS ") for s in said), said
    assert not any("FOUND" in s for s in said), said
