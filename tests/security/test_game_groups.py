"""A game's memory and CPUs are the referee's (sandbox/cgroups.py), where the machine gives
control groups: memory-hungry agents (forking, threaded) are stopped at --agent-memory for the
whole game, and an agent cannot widen its CPU set past the one the referee gave it. memfd pages,
which no address space counts, cannot be made in a game (the seccomp filter refuses
`memfd_create`). DOMjudge's runguard tests are the model."""

from __future__ import annotations

import errno
import textwrap
import time
import uuid

import numpy as np
import pytest
from helpers import agents_file, with_try_memfd

import treasure_cli
from treasure_cli.play.games import play_game
from treasure_cli.sandbox import cgroups, process as agent_process
from treasure_cli.sandbox.levels import AgentLimits, bwrap_works

TOKEN = "groups_" + uuid.uuid4().hex[:12]
LEVELS = ["process", pytest.param("sandbox", marks=pytest.mark.skipif(not bwrap_works(), reason="no bubblewrap"))]
MEMORY = 256 << 20  # the games' --agent-memory here
pytestmark = pytest.mark.usefixtures("fresh_agent_pool")

AGENTS = with_try_memfd(textwrap.dedent('''\
    import os
    import sys
    import threading
    import time

    from treasure_cli import LargeScan

    MIB = 1 << 20


    TRY_MEMFD


    def hold(mib):
        """`mib` MiB of anonymous memory, every page written: resident."""
        block = bytearray(mib * MIB)
        block[::4096] = b"x" * len(block[::4096])
        return block


    class Memfds:
        def act(self, obs):
            print(f"memfd {try_memfd()}", file=sys.stderr, flush=True)
            return LargeScan()


    class Forks:
        def act(self, obs):
            for n in range(4):  # four children of 96 MiB each, each far under its own limits
                if os.fork() == 0:
                    kept = hold(96)
                    time.sleep(30)
                    os._exit(0)
            time.sleep(5)
            print("four children held 384 MiB", file=sys.stderr, flush=True)
            return LargeScan()


    class ForksAndWaits:
        def act(self, obs):
            for n in range(8):  # eight children of 64 MiB each: the kernel's choice at the limit is one of them
                if os.fork() == 0:
                    block = bytearray(64 * MIB)
                    block[::4096] = b"x" * len(block[::4096])
                    time.sleep(20)
                    os._exit(0)
            for n in range(8):  # and this process waits for all eight before it acts
                os.wait()
            print("eight children held 512 MiB", file=sys.stderr, flush=True)
            return LargeScan()


    class Threads:
        def act(self, obs):
            kept, failed = [], []
            def hog():
                try:
                    kept.append(hold(96))  # 384 MiB over four threads
                except MemoryError as exc:
                    failed.append(exc)
            threading.stack_size(1 << 18)
            threads = [threading.Thread(target=hog) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if failed:
                raise failed[0]  # the game's error, as in one thread
            print(f"threads held {len(kept) * 96} MiB", file=sys.stderr, flush=True)
            return LargeScan()


    class Modest:
        def act(self, obs):
            if not hasattr(self, "kept"):
                self.kept = hold(64)  # well within the game's memory
            return LargeScan()


    class Widen:
        def __init__(self):
            before = sorted(os.sched_getaffinity(0))
            try:
                os.sched_setaffinity(0, range(256))  # (os.cpu_count() may not know, in the sandbox)
            except OSError as exc:
                print("refused:", exc, file=sys.stderr)
            after = sorted(os.sched_getaffinity(0))
            if os.fork() == 0:  # a child, asking again
                try:
                    os.sched_setaffinity(0, range(256))  # (os.cpu_count() may not know, in the sandbox)
                except OSError:
                    pass
                print("child", sorted(os.sched_getaffinity(0)), file=sys.stderr, flush=True)
                os._exit(0)
            os.wait()
            print("cpus", before, after, file=sys.stderr, flush=True)

        def act(self, obs):
            return LargeScan()
'''))

needs_memory = pytest.mark.skipif("memory" not in cgroups.available(), reason="no memory control group here")
needs_cpuset = pytest.mark.skipif("cpuset" not in cgroups.available(), reason="no cpuset control group here")


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    return agents_file(tmp_path_factory, TOKEN, AGENTS)


@pytest.fixture(scope="module")
def island():
    return treasure_cli.generate_island(12, 10, rng=np.random.default_rng(5))


def _play(agents, island, name, level, seed=1, files=1024):
    record, _ = play_game(island, f"{agents}:{name}", seed, map_name="m", isolation=level, max_turns=3,
                          limits=AgentLimits(memory=MEMORY, open_files=files), game_timeout=60)
    return record


@needs_memory
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", ["Forks", "Threads"])
def test_a_memory_hungry_game_is_stopped_at_its_memory_limit(agents, island, level, name):
    record = _play(agents, island, name, level)
    if name == "Threads" and record.reason == "agent-error":
        # Threads share one address space: its limit (--agent-memory too) may come before the group's.
        assert "MemoryError" in record.error, record.error
    else:
        assert record.failed and record.reason == "agent-died", (record.reason, record.error, record.output)
        assert "memory limit" in record.error, record.error
    assert "held" not in record.output  # it never got to say it held it
    # The next game of the same agent starts afresh, with all its memory.
    fine = _play(agents, island, "Modest", level, seed=2)
    assert not fine.failed, fine.error


@needs_memory
@pytest.mark.parametrize("level", LEVELS)
def test_a_child_killed_at_the_memory_limit_ends_the_whole_game(agents, island, level):
    """The kernel ends one process at a memory group's limit, the one holding the most: here a child.
    cgroup v2 then ends the whole game (`memory.oom.group`); with v1 the agent's own process waited
    for its children until they ended on their own (20 s) and played on. Told by the group's
    notification, the referee ends the game with the memory verdict at once, on v1 as on v2."""
    began = time.monotonic()
    record = _play(agents, island, "ForksAndWaits", level)
    assert record.failed and record.reason == "agent-died", (record.reason, record.error, record.output)
    assert "memory limit" in record.error, record.error
    assert "held" not in record.output
    assert time.monotonic() - began < 15, "the game went on after a process of it was killed at its memory limit"
    fine = _play(agents, island, "Modest", level, seed=2)
    assert not fine.failed, fine.error


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("groups", ["control groups", "none"])
def test_no_game_makes_a_memfd_file(agents, island, level, groups, monkeypatch):
    """memfd pages are no address space: a game asking for a memfd file, in its first thread or
    another, with control groups or without (where its open-file limit x its file size bounded them
    a process), is refused (ENOSYS), and plays on."""
    if groups == "none":
        monkeypatch.setenv("TREASURE_NO_CGROUPS", "1")
    cgroups._bases.cache_clear()
    try:
        record = _play(agents, island, "Memfds", level, files=AgentLimits().open_files)
    finally:
        agent_process.close_all()
        cgroups._bases.cache_clear()
    assert not record.failed, record.error
    assert f"memfd refused {errno.ENOSYS} refused {errno.ENOSYS}" in record.output, record.output


@needs_memory
def test_no_control_group_is_left_after_the_games(agents, island):
    for name in ("Modest", "Memfds"):
        _play(agents, island, name, "sandbox" if bwrap_works() else "process")
    agent_process.close_all()
    import os

    for base in cgroups._own_groups().values():
        # Other referees may be playing beside this test (another test worker): their folders are
        # theirs (and a gone process's folder is swept at the next start: its own test). Ours holds
        # no game's group any more.
        mine = os.path.join(base, f"treasure-{os.getpid()}")
        assert not os.path.isdir(mine) or not [e for e in os.listdir(mine) if e.startswith("game-")], mine


@needs_cpuset
@pytest.mark.parametrize("level", LEVELS)
def test_an_agent_cannot_widen_its_cpu_set(agents, island, level):
    record = _play(agents, island, "Widen", level)
    assert not record.failed, record.error
    (host,) = [p for p in agent_process._POOL.values() if p.launch.argv[-1].endswith(":Widen")]
    given = sorted(host.cpus or ())
    assert given, "the referee gave the game no CPU set of its own"
    lines = dict(line.split(" ", 1) for line in record.output.splitlines() if line.startswith(("cpus", "child")))
    before, after = eval(lines["cpus"].replace("] [", "], ["))  # two lists, as the agent printed them
    assert before == given and after == given, (given, lines)
    assert eval(lines["child"]) == given, (given, lines)


@needs_cpuset
@pytest.mark.parametrize("level", LEVELS)
def test_an_exec_program_cannot_widen_its_cpu_set(tmp_path, island, level):
    """The issue's own attack: an exec: agent (here taskset, from a shell) widening its set."""
    program = tmp_path / f"{TOKEN}.sh"
    program.write_text(textwrap.dedent("""\
        #!/bin/bash
        taskset -a -cp 0-255 $$ >/dev/null 2>&1
        echo "cpus $(taskset -cp $$ | sed 's/.*: //')" >&2
        while read line; do
          case "$line" in
            *'"hello"'*) echo '{"type": "hello", "protocol": 1}' ;;
            *'"act"'*) echo '{"type": "action", "action": "scan"}' ;;
            *'"end"'*) echo '{"type": "ready"}' ;;
            *'"bye"'*) exit 0 ;;
          esac
        done
        """))
    program.chmod(0o755)
    spec = f"exec:{program}"
    record, _ = play_game(island, spec, 1, map_name="m", isolation=level, max_turns=3)
    assert not record.failed, record.error
    (host,) = [p for p in agent_process._POOL.values() if p.forks]
    given = ",".join(str(c) for c in sorted(host.cpus or ()))
    assert given and record.output.strip() == f"cpus {given}", (given, record.output)


@needs_memory
def test_the_folders_of_a_worker_that_ended_without_its_exit_hooks_are_removed():
    """A pool's worker ends without running its exit hooks: its empty folders go at the next start."""
    import os

    import subprocess
    import sys

    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                           check=True).stdout.strip()  # a process number no one has now (started, not forked)
    own = cgroups._own_groups()
    stale = [os.path.join(folder, f"treasure-{child}") for folder in own.values()]
    for folder in stale:
        os.mkdir(folder)
        os.mkdir(os.path.join(folder, "game-1"))
    agent_process.close_all()  # (and this process's own folders, made again below)
    assert cgroups.available()
    assert not [folder for folder in stale if os.path.exists(folder)]
