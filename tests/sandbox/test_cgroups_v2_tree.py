"""A game's cgroup v2 group on this machine's real cgroup2 tree, under a parent of this test's
own: made, a process tree placed in it, all of it ended by `cgroup.kill` (a chain of forks in
flight included), the group removed, none left; and whole games played by the referee in
such groups.

These are the mechanics alone. Where this test was written the tree offers no memory
controller (memory is cgroup v1's there), so `memory.max` is not tried here: the files the
referee writes for it are checked on a fake tree (test_cgroups_v2.py)."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import textwrap
import time
import uuid

import numpy as np
import pytest

import treasure_cli
from treasure_cli.play.games import play_game
from treasure_cli.sandbox import cgroup2, cgroups, process as agent_process
from treasure_cli.sandbox.levels import AgentLimits, bwrap_works

TREE = textwrap.dedent("""\
    import os, sys, time
    sys.stdin.readline()  # (placed in its group first)
    for i in range(3):  # three children of two children each, asleep
        if os.fork() == 0:
            for j in range(2):
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
            time.sleep(60)
            os._exit(0)
    if os.fork() == 0:  # a chain: each process starts the next and ends (a moving target)
        end = time.monotonic() + 10
        while time.monotonic() < end and os.fork() == 0:
            pass
        os._exit(0)
    print("started", flush=True)
    time.sleep(60)
""")


@pytest.fixture
def parent():
    """A parent group of this test's own in the cgroup2 tree (skipped where none can be made)."""
    own, why = cgroup2.own_folder()
    if own is None:
        pytest.skip(why)
    folder = os.path.join(own, f"treasure-test-{uuid.uuid4().hex[:12]}")
    try:
        os.mkdir(folder)
    except OSError as exc:
        pytest.skip(f"cannot make a cgroup v2 group here: {exc}")
    yield folder
    for path, _, _ in os.walk(folder, topdown=False):  # whatever a failed test left
        with contextlib.suppress(OSError):
            cgroup2.FILES.write(os.path.join(path, "cgroup.kill"), "1")
        for _ in range(500):
            with contextlib.suppress(OSError):
                os.rmdir(path)
            if not os.path.exists(path):
                break
            time.sleep(0.01)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except OSError:
        return True


def test_a_game_group_holds_a_forking_tree_and_cgroup_kill_ends_it(parent):
    base = cgroup2.make_base(parent, os.getpid())
    group = cgroup2.Group(base, 1, 64 << 20, None)
    assert os.path.isdir(group.folder) and group.pids() == [] and not group.populated()
    # (-I: the game is a process of its own that may fork, also in the spawn_only session)
    game = subprocess.Popen([sys.executable, "-I", "-c", TREE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        group.add(game.pid)
        assert group.pids() == [game.pid] and group.populated()
        game.stdin.write("go\n")  # type: ignore[union-attr]
        game.stdin.flush()  # type: ignore[union-attr]
        assert game.stdout.readline() == "started\n"  # type: ignore[union-attr]
        deadline = time.monotonic() + 10
        while len(group.pids()) < 1 + 3 + 6 + 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        held = group.pids()
        assert len(held) >= 11, held  # every process it started is in its group
        assert group.close()
        assert game.wait(timeout=10) == -9
        assert all(_gone(pid) for pid in held), [pid for pid in held if not _gone(pid)]
        assert not os.path.exists(group.folder)
    finally:
        with contextlib.suppress(OSError):
            game.kill()
        game.wait()
    cgroup2.remove_base(base)
    assert [entry for entry in os.listdir(parent) if os.path.isdir(os.path.join(parent, entry))] == []


def test_a_gone_referees_folder_is_swept_and_a_live_ones_kept(parent):
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                           check=True).stdout.strip()  # a process number no one has now
    stale = os.path.join(parent, f"treasure-{child}")
    os.mkdir(stale)
    os.mkdir(os.path.join(stale, "game-1"))
    live = os.path.join(parent, f"treasure-{os.getppid()}")  # (a live process's, not this one's)
    os.mkdir(live)
    cgroup2.make_base(parent, os.getpid())
    assert not os.path.exists(stale) and os.path.isdir(live)


def test_a_process_started_for_one_game_enters_its_group_before_its_program(parent):
    """The way a process started for a single game is placed: it writes 0 (itself) into the
    group's cgroup.procs between fork and exec (sandbox/process.py's `prepare`)."""
    base = cgroup2.make_base(parent, os.getpid())
    group = cgroup2.Group(base, 1, 64 << 20, None)
    code = ("import sys; print([x for x in open('/proc/self/cgroup') if x.startswith('0::')][0], end='', flush=True); "
            "sys.stdin.read()")
    game = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            preexec_fn=lambda: group.add(0))
    try:
        said = game.stdout.readline()  # type: ignore[union-attr]
        where = "/".join([os.path.basename(parent), f"treasure-{os.getpid()}", "game-1"])
        assert said.startswith("0::/") and said.endswith(f"/{where}\n"), said
        assert group.pids() == [game.pid]
        assert group.close()
        assert game.wait(timeout=10) == -9
    finally:
        with contextlib.suppress(OSError):
            game.kill()
        game.wait()
    cgroup2.remove_base(base)


class MemoryOnPaper(cgroup2.Files):
    """The real tree, with its memory files on paper: this tree has no memory controller, so
    what the referee writes to them is kept here, and memory.events says no kill."""

    def __init__(self) -> None:
        self.written: list[tuple[str, str]] = []

    def exists(self, path: str) -> bool:
        return os.path.basename(path).startswith("memory.") or super().exists(path)

    def write(self, path: str, value: str) -> None:
        self.written.append((os.path.relpath(path, os.path.dirname(os.path.dirname(path))), value))
        if not os.path.basename(path).startswith("memory."):
            super().write(path, value)

    def read(self, path: str) -> str:
        name = os.path.basename(path)
        if name.startswith("memory."):
            return {"memory.events": "oom 0\noom_kill 0\noom_group_kill 0\n"}.get(name, "0\n")
        return super().read(path)


WHERE = textwrap.dedent("""\
    import sys

    from treasure_cli import LargeScan


    class Where:
        def act(self, obs):
            try:
                lines = open("/proc/self/cgroup").read().splitlines()
            except OSError:
                lines = ["0::hidden"]  # (the sandbox's /proc shows no groups)
            for line in lines:
                if line.startswith("0::"):
                    print("group", line, file=sys.stderr, flush=True)
            return LargeScan()
""")


@pytest.mark.usefixtures("fresh_agent_pool")
@pytest.mark.parametrize("level", [
    "process", pytest.param("sandbox", marks=pytest.mark.skipif(not bwrap_works(), reason="no bubblewrap"))])
def test_a_game_plays_in_its_v2_group_and_leaves_none(parent, tmp_path, monkeypatch, level):
    """A whole game through the referee (play_game, its warm host or its own process), its
    groups the v2 ones: the agent's process is in its game's group from its first action, the
    game's memory limit is written, and no game's group is left after it."""
    files = MemoryOnPaper()
    made = cgroup2.make_base(parent, os.getpid(), files)
    base = cgroup2.Base(made.folder, ("memory",), files)  # (memory on paper, the rest real)
    chosen = cgroups.Choice(kind="v2", v2=base, why="a test's own parent")
    monkeypatch.setattr(cgroups, "_bases", functools.cache(lambda pid: chosen))
    agents = tmp_path / f"where_{uuid.uuid4().hex[:8]}.py"
    agents.write_text(WHERE)
    island = treasure_cli.generate_island(12, 10, rng=np.random.default_rng(5))
    record, _ = play_game(island, f"{agents}:Where", 1, map_name="m", isolation=level, max_turns=2,
                          limits=AgentLimits(memory=256 << 20), game_timeout=60)
    assert not record.failed, record.error
    lines = {line for line in record.output.splitlines() if line.startswith("group ")}
    assert len(lines) == 1, record.output  # the same group at every action
    games = sorted({path.split("/")[0] for path, _ in files.written if path.startswith("game-")})
    assert len(games) == 1, files.written  # one game, one group
    game = games[0]
    assert files.written[:3] == [(f"{game}/memory.max", str(256 << 20)), (f"{game}/memory.swap.max", "0"),
                                 (f"{game}/memory.oom.group", "1")]
    placed = [value for path, value in files.written if path == f"{game}/cgroup.procs"]
    assert placed, files.written  # its process placed (the kernel took it: else the game had failed)
    assert (f"{game}/cgroup.kill", "1") in files.written
    (line,) = lines
    if level == "process":  # (the agent sees its own group)
        assert line.endswith(f"/{os.path.basename(parent)}/treasure-{os.getpid()}/{game}"), line
    agent_process.close_all()
    assert not os.path.exists(base.folder)  # its games' groups and its own folder, removed
