"""A game's cgroup v2 group on this machine's real cgroup2 tree, under a parent of this test's
own: made, a process tree placed in it, all of it ended by `cgroup.kill` (a chain of forks in
flight included), the group removed, none left.

These are the mechanics alone. Where this test was written the tree offers no memory
controller (memory is cgroup v1's there), so `memory.max` is not tried here: the files the
referee writes for it are checked on a fake tree (test_cgroups_v2.py)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from treasure_cli.sandbox import cgroup2

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
