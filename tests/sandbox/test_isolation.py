"""Agents that are not built in play out of process (sandbox/launch.py, sandbox/process.py,
sandbox/levels.py): the same games as in process, their processes reused, timed, killed, their
output kept apart; exec: programs; specs checked without running them; the sandbox refused
where bubblewrap cannot run."""

from __future__ import annotations

import ctypes
import json
import os
import platform
import shutil
import subprocess
import sys
import textwrap
import time
import uuid

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import ROOT, SMALL_MAP, agents_file, refuse_jail

import treasure_cli
from treasure_cli.agents import registry
from treasure_cli.cli import cli
from treasure_cli.errors import AgentLoadError
from treasure_cli.sandbox import levels as sandbox, process as agent_process
from treasure_cli.play.games import play_game
from treasure_cli.sandbox.levels import AgentLimits

ISOLATED = ["process", "sandbox"]
TOKEN = "isolation_" + uuid.uuid4().hex[:12]  # in the agents' file name: finds their processes in /proc
pytestmark = pytest.mark.usefixtures("fresh_agent_pool")

AGENTS = textwrap.dedent("""\
    import os
    import signal
    import sys
    import time

    import numpy as np

    from treasure_cli import LargeScan, legal_actions

    GAMES = [0]


    def start(code):
        '''Python running `code` in a child, its command line carrying this file's name; started
        with fork and exec, as subprocess cannot here: a Python agent's game makes no pipe.'''
        pid = os.fork()
        if pid == 0:
            try:
                os.execv(sys.executable, [sys.executable, "-c", code, __file__])
            finally:
                os._exit(127)
        return pid


    class Random:
        def reset(self, seed):
            self.rng = np.random.default_rng(seed)

        def act(self, obs):
            actions = legal_actions(obs)
            return actions[int(self.rng.integers(len(actions)))]


    class Flaky:
        '''Fails the second game its process plays.'''

        def reset(self, seed):
            GAMES[0] += 1

        def act(self, obs):
            if GAMES[0] == 2:
                raise RuntimeError("second game")
            return LargeScan()


    class Sleeper:
        def act(self, obs):
            time.sleep(5)
            return LargeScan()


    class Stubborn:
        '''Ignores SIGTERM, starts a child that ignores it too, and never answers.'''

        def act(self, obs):
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            start("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)")
            while True:
                pass


    class LeavesAChild:
        '''Plays cleanly, but leaves a process running after its game.'''

        def act(self, obs):
            if not hasattr(self, "child"):
                self.child = start("import time; time.sleep(60)")
            return LargeScan()


    class Printer:
        '''Prints 1010 bytes at its first action.'''

        def act(self, obs):
            if not hasattr(self, "printed"):
                self.printed = True
                print("x" * 999)
                print("to stderr", file=sys.stderr)
            return LargeScan()


    class Raiser:
        def act(self, obs):
            raise ValueError("no candidate left")


    class BadInit:
        def __init__(self):
            raise RuntimeError("no model file")

        def act(self, obs):
            return LargeScan()


    class Crasher:
        '''Prints a line, then crashes the interpreter (as a bug in a C extension would).'''

        def act(self, obs):
            import ctypes
            print("reading a null pointer")
            return ctypes.string_at(0)
""")
RAISE_LINE = AGENTS.splitlines().index('        raise ValueError("no candidate left")') + 1
INIT_LINE = AGENTS.splitlines().index('        raise RuntimeError("no model file")') + 1
CRASH_LINE = AGENTS.splitlines().index('        return ctypes.string_at(0)') + 1


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    return agents_file(tmp_path_factory, TOKEN, AGENTS)


@pytest.fixture(scope="module")
def island():
    return treasure_cli.generate_island(12, 10, rng=np.random.default_rng(7))


@pytest.fixture
def small_map(tmp_path):
    folder = tmp_path / "maps"
    folder.mkdir()
    (folder / "MAP_01.txt").write_text(SMALL_MAP)
    return folder


def _children(pid: int) -> list[int]:
    out = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children") as f:
            out += [int(x) for x in f.read().split()]
    return out


def agent_processes(grace: float = 1.0) -> list[str]:
    """Every process on the machine running one of this module's agents (its file in the command
    line), and every child of this process that is an agent's, but for the warm hosts (see
    `_warm`): none may be left once a game is over. Those
    killed may take a moment to go (a sandbox's processes die with its namespace, after bwrap):
    they are looked for again for up to `grace` seconds."""
    deadline = time.monotonic() + grace
    while True:
        found = _agent_processes()
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


# What an agent's process runs as, seen from outside (other children of pytest, such as the browser
# tests' Playwright driver, are not agents).
_AGENT_MARKS = (TOKEN.encode(), b"bwrap", b"treasure_cli.sandbox.agent_host", b"treasure-cli-agents")


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rpartition(")")[2].split()[1])
    except (OSError, ValueError):
        return 0


def _warm(pid: int) -> bool:
    """A warm host (sandbox/warm_host.py) or the sandbox's processes around it: they run none of an
    agent's code, and stay for its next game. The game processes it forks carry its command line
    too; they are its children (or theirs)."""
    cmd = _cmdline(pid)
    if b"treasure_cli.sandbox.warm_host" not in cmd:
        return False
    parent = _parent(pid)
    return cmd.startswith(b"bwrap") or parent == os.getpid() or _cmdline(parent).startswith(b"bwrap")


def _agent_processes() -> list[str]:
    return sorted(line for line in _all_agent_processes() if not _warm(int(line.split()[0])))


def _all_agent_processes() -> list[str]:
    found = set()
    for pid in _children(os.getpid()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if any(mark in f.read() for mark in _AGENT_MARKS):
                    found.add(pid)
        except OSError:
            pass
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if TOKEN.encode() in f.read():
                        found.add(int(entry))
            except OSError:
                pass
    return sorted(f"{pid} {_describe(pid)}" for pid in found)


def _describe(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read().split(") ")[-1].split()[:2]  # its state and parent
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f"{stat} {f.read()[:200]!r}"
    except OSError:
        return "(gone)"


def pooled_pids(spec: str) -> list[int]:
    return [p.proc.pid for p in agent_process._POOL.values() if p.label == spec]


# ---------------------------------------------------------------- the same games
@pytest.mark.parametrize("which", ["densest", "random"])
def test_the_same_games_in_process_and_isolated(tmp_path, agents, island, which):
    if which == "densest":
        file = tmp_path / "densest_scan.py"
        shutil.copy(ROOT / "examples" / "densest_scan.py", file)
        spec = f"{file}:DensestScan"
    else:
        spec = f"{agents}:Random"
    played = {}
    for level in ["none", *ISOLATED]:
        games = []
        for seed in (1, 2, 3):
            record, events = play_game(island, spec, seed, map_name="m", isolation=level, keep_events=True)
            assert not record.failed, record.error
            assert record.isolation == ("in-process" if level == "none" else level)
            games.append((record.outcome, record.reason, record.turns, events))
        played[level] = games
    assert played["process"] == played["none"]
    assert played["sandbox"] == played["none"]
    if which == "random":  # the seeds matter: not three copies of one game
        assert len({tuple(map(repr, g[3])) for g in played["none"]}) == 3


# ---------------------------------------------------------------- a fresh process each game
@pytest.mark.parametrize("level", ISOLATED)
def test_each_game_is_a_fresh_process_forked_by_a_warm_host_that_stays(agents, island, level):
    """Flaky fails the second game its process plays: it never does, each game being a new
    process. The warm host that forks them stays, through a failed game too: it ran none of
    the agent's code."""
    spec = f"{agents}:Flaky"
    first, _ = play_game(island, spec, 1, map_name="m", isolation=level)
    assert first.outcome in ("WIN", "LOSE"), first.error
    [host] = pooled_pids(spec)
    for seed in (2, 3):
        again, _ = play_game(island, spec, seed, map_name="m", isolation=level)
        assert again.outcome in ("WIN", "LOSE"), again.error
    assert pooled_pids(spec) == [host]
    failed, _ = play_game(island, f"{agents}:Raiser", 1, map_name="m", isolation=level)
    assert failed.reason == "agent-error"
    [raiser_host] = pooled_pids(f"{agents}:Raiser")
    again, _ = play_game(island, f"{agents}:Raiser", 2, map_name="m", isolation=level)
    assert again.reason == "agent-error" and pooled_pids(f"{agents}:Raiser") == [raiser_host]
    assert agent_processes() == []


@pytest.mark.parametrize("level", ISOLATED)
def test_a_process_left_running_after_a_game_is_killed_with_the_game(agents, island, level):
    spec = f"{agents}:LeavesAChild"
    record, _ = play_game(island, spec, 1, map_name="m", isolation=level)
    assert not record.failed
    assert agent_processes() == []
    assert len(pooled_pids(spec)) == 1  # the warm host, for the next game


MEMO = textwrap.dedent('''\
    import ctypes
    import os
    import platform
    import sys

    from treasure_cli import LargeScan

    KEPT = []
    _libc = ctypes.CDLL(None, use_errno=True)
    KEY = 0x7E5700 + os.getuid() % 256
    KEYCTL, ADD_KEY = {"x86_64": (250, 248), "aarch64": (219, 217)}[platform.machine()]
    SESSION_KEYRING, KEYCTL_SEARCH = -3, 10


    class Memo:
        """Looks for what it left in its last game, in every place it can, then leaves it again."""

        def __init__(self):
            seen, unwritable = [], []
            if KEPT:
                seen.append("a module global")
            # "memo-here": in its working folder, its own folder, read-only in the sandbox
            for path in ("/tmp/memo", "/dev/shm/memo", "memo-here"):
                if os.path.exists(path):
                    seen.append(path)
                try:
                    with open(path, "w") as f:
                        f.write("the treasure was at (3, 4)")
                except OSError:
                    unwritable.append(path)
            if _libc.shmget(KEY, 4096, 0) >= 0:
                seen.append("a System V segment")
            if _libc.syscall(KEYCTL, KEYCTL_SEARCH, SESSION_KEYRING, b"user", b"memo", 0) >= 0:
                seen.append("a key in its session keyring")
            _libc.syscall(ADD_KEY, b"user", b"memo", b"(3, 4)", 6, SESSION_KEYRING)
            _libc.shmget(KEY, 4096, 0o1600)  # IPC_CREAT, 0600: it outlives its creator
            pids = []
            for n in range(40):  # the next process number, and 39 more used up: a count for the next game
                pid = os.fork()
                if pid == 0:
                    os._exit(0)
                os.waitpid(pid, 0)
                pids.append(pid)
            KEPT.append(1)
            print(f"seen: {', '.join(seen) or 'nothing'}; first child {pids[0]}; "
                  f"unwritable: {', '.join(unwritable) or 'none'}", file=sys.stderr)

        def act(self, obs):
            return LargeScan()
''')


@pytest.mark.parametrize("level", ISOLATED)
def test_nothing_an_agent_keeps_reaches_its_next_game(tmp_path, island, level):
    """Memory between games would let an agent that found the treasure once find it again at
    once on the same island. The sandbox gives each game a fresh process, files, segments and
    process numbers; a plain process (no sandbox) only a fresh process."""
    file = tmp_path / f"memo_{TOKEN}.py"
    file.write_text(MEMO)
    # As a login session has one: a session keyring, which every process started from here inherits.
    keyctl = {"x86_64": 250, "aarch64": 219}[platform.machine()]
    assert ctypes.CDLL(None, use_errno=True).syscall(keyctl, 1, f"test-{TOKEN}".encode()) >= 0
    said = []
    for seed in range(3):
        record, _ = play_game(island, f"{file}:Memo", seed, map_name="m", isolation=level)
        assert not record.failed, record.error
        said.append(record.output.strip())
    assert len(pooled_pids(f"{file}:Memo")) == 1  # one warm host forked the three
    if level == "sandbox":
        assert said[0] == said[1] == said[2], said  # the same first child's number each game
        assert said[0].startswith("seen: nothing;") and said[0].endswith("unwritable: memo-here"), said
    else:
        assert all("a module global" not in line for line in said), said
    assert agent_processes() == []


def test_a_game_jail_keeps_what_the_sandbox_shows_under_tmp(tmp_path):
    """The game's own /tmp must not hide what lives there: an interpreter or this package under
    /tmp (a clone of the project there, say), bound into the sandbox at the same path."""
    shown = tmp_path / "shown"
    shown.mkdir()
    (shown / "mark.txt").write_text("still here")
    code = ("import os; from treasure_cli.sandbox.warm_host import jail; jail(); "
            "open('/tmp/mine', 'w').write('x'); print(open('/tmp/deep/shown/mark.txt').read(), sorted(os.listdir('/tmp')))")
    argv = list(sandbox.launch([sys.executable, "-I", "-c", code], "sandbox", None, python=True).argv)
    at = argv.index("--chdir")
    argv[at:at] = ["--dir", "/tmp/deep", "--ro-bind", str(shown), "/tmp/deep/shown"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: sandbox.set_limits(AgentLimits()))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("still here ") and "'mine'" in done.stdout, done.stdout


@pytest.fixture
def no_jail(monkeypatch):
    """The warm host says at its start that it cannot jail a game (a kernel without user
    namespaces inside the sandbox)."""
    refuse_jail(monkeypatch)


def test_where_the_warm_host_cannot_jail_a_game_each_game_gets_a_fresh_sandbox(agents, island, no_jail):
    """The plain host then plays, a sandbox of its own for each game, none kept."""
    spec = f"{agents}:Flaky"
    for seed in (1, 2):
        record, _ = play_game(island, spec, seed, map_name="m", isolation="sandbox")
        assert record.outcome in ("WIN", "LOSE"), record.error  # a fresh process: never its second game
        assert pooled_pids(spec) == [] and agent_processes() == []
    assert agent_process._NO_JAIL == "unshare: Operation not permitted"


# ---------------------------------------------------------------- time limits
@pytest.mark.parametrize("level", ISOLATED)
def test_the_action_timeout_ends_the_game_quickly_and_kills_the_agent(agents, island, level):
    started = time.monotonic()
    record, events = play_game(island, f"{agents}:Sleeper", 1, map_name="m", isolation=level,
                               limits=AgentLimits(action_timeout=0.3))
    assert time.monotonic() - started < 3
    assert (record.outcome, record.reason, events) == ("failed", "action-timeout", None)
    assert record.error.endswith("turn 1: the agent ran past its 0.3 s action limit")
    assert agent_processes() == []


@pytest.mark.parametrize("level", ISOLATED)
def test_the_game_timeout_kills_an_agent_that_ignores_sigterm_and_its_children(agents, island, level):
    started = time.monotonic()
    record, _ = play_game(island, f"{agents}:Stubborn", 1, map_name="m", isolation=level, game_timeout=1.0)
    assert time.monotonic() - started < 4
    assert (record.outcome, record.reason) == ("failed", "game-timeout")
    assert record.error.endswith("turn 1: the game ran past its 1 s limit")
    assert agent_processes() == []


# ---------------------------------------------------------------- output
def test_what_an_agent_prints_is_in_the_json_record_not_in_ours(small_map, tmp_path, agents):
    r = CliRunner().invoke(cli, ["run", str(small_map), str(tmp_path / "out"), "--agent", f"{agents}:Printer",
                                 "--json", "--agent-isolation", "sandbox"])
    assert r.exit_code == 0, r.output
    [record] = json.loads(r.stdout)
    assert record["isolation"] == "sandbox" and record["outcome"] in ("WIN", "LOSE")
    assert record["output"] == "x" * 999 + "\nto stderr\n"
    assert "xxx" not in r.stderr


@pytest.mark.parametrize("level", ["none", *ISOLATED])
def test_output_is_capped_with_a_note(agents, island, level):
    record, _ = play_game(island, f"{agents}:Printer", 1, map_name="m", isolation=level,
                          limits=AgentLimits(output=100))
    assert not record.failed
    assert record.output == "x" * 100 + "\n[910 more bytes not kept]"


# ---------------------------------------------------------------- an agent that raises
@pytest.mark.parametrize("level", ["none", *ISOLATED])
def test_an_agent_that_raises_is_named_with_its_line(agents, island, level):
    record, _ = play_game(island, f"{agents}:Raiser", 1, map_name="m", isolation=level)
    assert (record.outcome, record.reason) == ("failed", "agent-error")
    assert record.error.endswith(f"turn 1: the agent raised ValueError: no candidate left "
                                 f"({TOKEN}.py:{RAISE_LINE} in act)")
    assert f'{TOKEN}.py", line {RAISE_LINE}, in act' in record.traceback
    assert record.traceback.rstrip().endswith("ValueError: no candidate left")
    assert "treasure_cli" not in record.traceback.replace(str(agents), "")


@pytest.mark.parametrize("level", ["none", *ISOLATED])
def test_an_agent_that_cannot_be_built_is_named_with_its_line(agents, island, level):
    record, _ = play_game(island, f"{agents}:BadInit", 1, map_name="m", isolation=level)
    assert (record.outcome, record.reason) == ("failed", "agent-error")
    # In process the agent is built before the game (turn 0), out of process at its start (turn 1).
    assert record.error.endswith(f"building the agent raised RuntimeError: no model file "
                                 f"({TOKEN}.py:{INIT_LINE} in __init__)")
    assert record.traceback.rstrip().endswith("RuntimeError: no model file")
    assert agent_processes() == []


@pytest.mark.parametrize("level", ISOLATED)
def test_an_agent_that_crashes_the_interpreter_is_named_with_its_line(agents, island, level):
    """A fatal signal gives no Python exception: the host's faulthandler report names the
    agent's frame, said in one line; the record keeps the whole report."""
    record, _ = play_game(island, f"{agents}:Crasher", 1, map_name="m", isolation=level)
    assert (record.outcome, record.reason) == ("failed", "agent-died")
    assert record.error.endswith("its process was killed by SIGSEGV (a crash); it said: reading a null pointer\\n"
                                 f"Fatal Python error: Segmentation fault, in {TOKEN}.py:{CRASH_LINE} in act")
    assert f'{TOKEN}.py", line {CRASH_LINE} in act' in record.output
    assert agent_processes() == []


# ---------------------------------------------------------------- exec: programs
def _program(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return f"exec:{path}"


@pytest.mark.parametrize("level", ISOLATED)
@pytest.mark.parametrize(("body", "reason", "says"), [
    ("""\
        read hello
        echo '{"type": "hello", "protocol": 2}'
        read more
     """, "protocol", "turn 0: the agent speaks protocol 2, this program 1"),
    ("""\
        read hello
        echo '{"type": "hello", "protocol": true}'
        read more
     """, "protocol", "turn 0: the agent speaks protocol true, this program 1"),
    ("""\
        read hello
        echo '{"type": "hello", "protocol": 1, "tiles": "no"}'
        read more
     """, "protocol", 'turn 0: the agent\'s hello has "tiles": "no"; it is true or false'),
    ("""\
        read hello
        echo '{"type": "hello", "protocol": 1, "agent": "sh"}'
        read start
        read act
        echo 'I scan now'
        read more
     """, "protocol", 'turn 1: the agent wrote a line that is not JSON: "I scan now"'),
    ("""\
        read hello
        echo '{"type": "hello", "protocol": 1}'
        read start
        read act
        echo '[1, 2]'
        read more
     """, "protocol", "turn 1: the agent wrote [1, 2], not a JSON object"),
    ("""\
        read hello
        echo '{"type": "hello", "protocol": 1}'
        read start
        read act
        echo '{"type": "action", "action": "move", "direction": "X", "steps": 1}'
        read more
     """, "protocol", 'turn 1: a move\'s direction must be N, E, S or W, got "X"'),
    ("""\
        read hello
        echo '{"type": "hello", "protocol": 1}'
        read start
        read act
        echo '{"type": "action", "action": "move", "direction": "N", "steps": 9}'
        read more
     """, "illegal-action", "turn 1: illegal action"),
    ("""\
        echo "cannot start: no model file" >&2
        exit 3
     """, "agent-died", "its process exited with status 3; it said: cannot start: no model file"),
    # What abort() does (a failed assert, an uncaught C++ exception): in a jail too, where the
    # program must not be its PID namespace's process 1, which no signal of its own can end
    ("""\
        read hello
        echo '{"type": "hello", "protocol": 1}'
        read start
        echo "assertion failed" >&2
        kill -ABRT $$
        read more
     """, "agent-died", "its process was killed by SIGABRT (it aborted: a failed assert"),
])
def test_an_exec_program_that_breaks_the_protocol_fails_its_game(tmp_path, island, level, body, reason, says):
    spec = _program(tmp_path, "agent.sh", body)
    record, _ = play_game(island, spec, 1, map_name="m", isolation=level)
    assert (record.outcome, record.reason) == ("failed", reason)
    assert says in record.error
    assert record.error.startswith(f"m: agent {spec} failed: ")
    assert agent_processes() == []


@pytest.mark.parametrize("level", ISOLATED)
def test_an_exec_program_plays_each_game_in_a_process_of_its_own(tmp_path, island, level):
    """A shell agent that only ever scans and counts the games it was told of: a process of its
    own for each game (one that plays on could keep what it learnt of the last), forked by a warm
    host that stays, and becomes the program."""
    spec = _program(tmp_path, "scanner.sh", """\
        games=0
        while read line; do
          case "$line" in
            *'"hello"'*) echo '{"type": "hello", "protocol": 1}' ;;
            *'"start"'*) games=$((games + 1)); echo "games: $games" >&2 ;;
            *'"act"'*) echo '{"type": "action", "action": "scan"}' ;;
            *'"end"'*) echo '{"type": "ready"}' ;;
            *'"bye"'*) exit 0 ;;
          esac
        done
     """)
    first, _ = play_game(island, spec, 1, map_name="m", isolation=level, max_turns=3)
    assert (first.outcome, first.isolation) in (("WIN", level), ("LOSE", level)), first.error
    [host] = pooled_pids(spec)
    assert agent_processes() == []
    second, _ = play_game(island, spec, 2, map_name="m", isolation=level, max_turns=3)
    assert not second.failed and pooled_pids(spec) == [host]
    assert first.output.strip() == second.output.strip() == "games: 1"
    assert agent_processes() == []


@pytest.mark.parametrize("level", ISOLATED)
def test_an_exec_program_that_cannot_start_fails_its_game_and_says_why(tmp_path, island, level):
    path = tmp_path / "no-shebang"
    path.write_bytes(b"\x7fELF not really")
    path.chmod(0o755)
    record, _ = play_game(island, f"exec:{path}", 1, map_name="m", isolation=level)
    assert (record.outcome, record.reason) == ("failed", "agent-died"), record.error
    assert "cannot start the agent" in record.error and "xec format error" in record.error, record.error
    assert agent_processes() == []


def test_where_the_warm_host_cannot_jail_a_game_an_exec_program_gets_a_fresh_sandbox(tmp_path, island, no_jail):
    """The program itself then plays, in a sandbox of its own for each game, none kept."""
    spec = _program(tmp_path, "scanner.sh", """\
        while read line; do
          case "$line" in
            *'"hello"'*) echo '{"type": "hello", "protocol": 1}' ;;
            *'"act"'*) echo '{"type": "action", "action": "scan"}' ;;
            *'"end"'*) echo '{"type": "ready"}' ;;
            *'"bye"'*) exit 0 ;;
          esac
        done
     """)
    for seed in (1, 2):
        record, _ = play_game(island, spec, seed, map_name="m", isolation="sandbox", max_turns=3)
        assert not record.failed, record.error
        assert pooled_pids(spec) == [] and agent_processes() == []


# ---------------------------------------------------------------- specs checked, never run
def test_check_spec_refuses_what_is_not_there(tmp_path):
    with pytest.raises(AgentLoadError, match=r"no such file '.*/missing\.py'"):
        registry.check_spec(f"{tmp_path}/missing.py:Agent")
    with pytest.raises(AgentLoadError, match=r"no such program '.*/missing-program'"):
        registry.check_spec(f"exec:{tmp_path}/missing-program --fast")
    plain = tmp_path / "plain"
    plain.write_text("#!/bin/sh\n")
    with pytest.raises(AgentLoadError, match=r"is not executable \(chmod \+x it\)"):
        registry.check_spec(f"exec:{plain}")
    with pytest.raises(AgentLoadError, match="cannot find the module 'no_such_module_xyz.agents'"):
        registry.check_spec("no_such_module_xyz.agents:Agent")
    with pytest.raises(AgentLoadError, match="'1Agent' is not a Python name"):
        registry.check_spec(f"{tmp_path}/missing.py:1Agent")
    with pytest.raises(AgentLoadError, match="give the program after exec:"):
        registry.check_spec("exec:  ")


def test_a_python_file_without_its_class_plays_its_one_agent_class(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    r = CliRunner().invoke(cli, ["run", "input/MAP_01.txt", str(tmp_path / "out"), "--json",
                                 "--agent", "examples/densest_scan.py"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)[0]["agent"] == "examples/densest_scan.py:DensestScan"


def test_a_python_file_with_several_or_no_agent_classes_names_what_it_found(monkeypatch, tmp_path):
    two = tmp_path / "two.py"
    two.write_text("class A:\n    def act(self, obs): pass\nclass Helper:\n    pass\n"
                   "class B(A):\n    def act(self, obs): return 1\n")
    none = tmp_path / "none.py"
    none.write_text("def act(obs):\n    pass\n")
    monkeypatch.chdir(ROOT)
    r = CliRunner().invoke(cli, ["run", "input/MAP_01.txt", str(tmp_path / "out"), "--agent", str(two)])
    assert r.exit_code == 2
    assert f"2 agent classes (A, B); say which: {two}:A or {two}:B" in r.stderr
    r = CliRunner().invoke(cli, ["run", "input/MAP_01.txt", str(tmp_path / "out"), "--agent", str(none)])
    assert r.exit_code == 2 and f"no class with an act(obs) method found; give the agent as {none}:ClassName" in r.stderr
    assert not (tmp_path / "out").exists()


def test_check_spec_and_agent_code_run_none_of_the_agent_s_code(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w').write('ran')\nclass Agent:\n    def act(self, obs): pass\n"
    file = tmp_path / "marked.py"
    file.write_text(code)
    package = tmp_path / "lib" / "markedpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(code)
    (package / "agent.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    for spec in (f"{file}:Agent", "markedpkg.agent:Agent"):
        assert registry.check_spec(spec) == spec
        assert registry.agent_code(spec).digest.split(":")[0] in ("file", "module")
        assert not marker.exists(), spec
    registry.resolve(f"{file}:Agent")  # the check above can fail: resolving does run the file
    assert marker.read_text() == "ran"


# ---------------------------------------------------------------- no bubblewrap
@pytest.fixture
def no_bwrap(monkeypatch):
    real = sandbox.bwrap_works
    real.cache_clear()
    monkeypatch.setattr(sandbox, "bwrap_works", lambda: False)
    yield
    real.cache_clear()


def test_the_sandbox_asked_for_by_name_is_refused_without_bubblewrap(no_bwrap, small_map, tmp_path, agents):
    r = CliRunner().invoke(cli, ["run", str(small_map), str(tmp_path / "out"), "--agent", f"{agents}:Random",
                                 "--agent-isolation", "sandbox"])
    assert r.exit_code == 2
    assert sandbox.NO_SANDBOX in r.stderr
    assert "use --agent-isolation process" in r.stderr
    assert not (tmp_path / "out").exists()


def test_auto_without_bubblewrap_warns_once_and_plays_in_processes(no_bwrap, small_map, tmp_path, agents):
    (small_map / "MAP_02.txt").write_text(SMALL_MAP)
    r = CliRunner().invoke(cli, ["run", str(small_map), str(tmp_path / "out"), "--agent", f"{agents}:Random",
                                 "--json"])
    assert r.exit_code == 0, r.output
    assert r.stderr.count("warning: bubblewrap cannot run here") == 1
    assert "in processes of their own (no sandbox; 1024 MiB)" in r.stderr
    assert [g["isolation"] for g in json.loads(r.stdout)] == ["process", "process"]


# ---------------------------------------------------------------- the command line
@pytest.mark.parametrize(("extra", "where"), [
    ([], "in a sandbox (bubblewrap; no network, 1024 MiB)"),
    (["--agent-isolation", "sandbox", "--agent-memory", "512M"], "in a sandbox (bubblewrap; no network, 512 MiB)"),
    (["--agent-isolation", "process"], "in processes of their own (no sandbox; 1024 MiB)"),
    (["--agent-isolation", "none"], "in this process (--agent-isolation none: no protection)"),
])
def test_a_run_says_where_its_agents_play_on_stderr_only(small_map, tmp_path, agents, extra, where):
    spec = f"{agents}:Random"
    r = CliRunner().invoke(cli, ["run", str(small_map), str(tmp_path / "out"), "--agent", spec, *extra])
    assert r.exit_code == 0, r.output
    assert f"agents: {spec} {where}\n" in r.stderr
    assert "agents:" not in r.stdout


def test_a_run_of_a_built_in_agent_says_nothing_about_isolation(small_map, tmp_path):
    r = CliRunner().invoke(cli, ["run", str(small_map), str(tmp_path / "out"), "--agent", "logic"])
    assert r.exit_code == 0, r.output
    assert "agents:" not in r.stderr + r.stdout


def test_a_python_agent_writes_the_same_logs_in_process_and_in_the_sandbox(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    outs = {}
    for level in ("none", "sandbox"):
        out = tmp_path / level
        r = CliRunner().invoke(cli, ["run", "input/", str(out), "--agent", "examples/densest_scan.py:DensestScan",
                                     "--agent-isolation", level])
        assert r.exit_code == 0, r.output
        outs[level] = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    assert sorted(outs["none"]) == [f"LOG_0{i}.txt" for i in range(1, 6)]
    assert outs["sandbox"] == outs["none"]


FAULTY = textwrap.dedent("""\
    class BadInit:
        def __init__(self):
            raise ValueError("no init")

        def act(self, obs):
            return None


    class BadReset:
        def reset(self, seed):
            raise KeyError(seed % 7)

        def act(self, obs):
            return None


    class NoAct:
        pass


    class Words:
        def act(self, obs):
            return "scan, please"
""")


@pytest.mark.parametrize("name", ["BadInit", "BadReset", "NoAct", "Words"])
def test_an_agent_fails_in_the_same_words_wherever_it_plays(tmp_path, name):
    path = tmp_path / "faulty.py"
    path.write_text(FAULTY)
    island = treasure_cli.read_map(ROOT / "input" / "MAP_01.txt")
    said = {}
    for level in ["none", *ISOLATED]:
        record, _ = play_game(island, f"{path}:{name}", 5, map_name="m", isolation=level)
        said[level] = (record.reason, record.error)
    assert said["process"] == said["sandbox"] == said["none"], said
    assert "/agent/" not in said["none"][1] and "treasure-cli-agents" not in said["none"][1]


def test_an_agents_copy_changed_between_games_is_made_again(tmp_path):
    # Without a sandbox an agent runs as this user and could rewrite another agent's copy: a copy
    # that is not the agent's bytes any more is written again before it plays.
    from treasure_cli.sandbox import launch as isolation

    path = tmp_path / "mine.py"
    path.write_text("class Agent:\n    pass\n")
    copy = isolation.agent_launch(f"{path}:Agent", "process").argv[-1].rpartition(":")[0]
    os.chmod(copy, 0o644)
    with open(copy, "w") as f:
        f.write("print('tampered')\n")
    again = isolation.agent_launch(f"{path}:Agent", "process").argv[-1].rpartition(":")[0]
    assert again == copy
    with open(copy) as f:
        assert f.read() == "class Agent:\n    pass\n"


def test_a_warm_host_compiles_every_hint_pattern_before_it_forks():
    """Each game's process is a fork of the warm host: a pattern the host left uncompiled would be
    compiled again in every game that meets its kind. The warm-up games meet only some kinds."""
    code = ("import socket; from treasure_cli.sandbox.warm_host import Zygote; from treasure_cli.rules import hints; "
            "Zygote('logic', False, socket.socketpair()[0]).prepare(); "
            "print(len(hints._PATTERNS), sum(p._compiled is not None for p in hints._PATTERNS))")
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    count, compiled = map(int, done.stdout.split())
    assert count >= 15 and compiled == count


def test_a_warm_host_reads_each_island_once_for_the_games_it_forks(tmp_path):
    """The referee sends a warm host the public island when it changes; each game's process
    is forked with it read, and reads the `start` message's copy only if its id is another."""
    from treasure_cli.errors import AgentError
    from treasure_cli.formats import wire
    from treasure_cli.formats.map_file import parse_map

    agent = tmp_path / "scanner.py"
    agent.write_text("from treasure_cli import LargeScan\n\n\nclass Scanner:\n"
                     "    def act(self, obs):\n        return LargeScan()\n")
    proc = agent_process.AgentProcess(isolation_launch(f"{agent}:Scanner"), AgentLimits(), "scanner")
    asked = []
    ask = proc._ask
    proc._ask = lambda message, deadline: asked.append(message) or ask(message, deadline)  # type: ignore[method-assign]
    island = parse_map(SMALL_MAP).public()
    data = wire.encode_island(island)
    act = {"type": "act", "turn": 1, "actions_left": 2, "position": [0, 0], "teleport_used": False, "news": []}

    def first_answer(island_data):
        start = {"type": "start", "seed": 1, "island": island_data, "options": {"truth_rate": 0.5, "max_turns": 10}}
        deadline = time.monotonic() + 60
        proc.write(wire.dump_line(start) + wire.dump_line(act), deadline, 1)
        try:
            return proc.receive(deadline, 1, None)
        finally:
            proc.end_game()

    try:
        for _ in range(2):
            proc.begin_game(time.monotonic() + 60, island)
            # Its tiles broken: only an island read already lets the game go on.
            assert first_answer({**data, "regions": "not the regions"})["type"] == "action"
        assert [m.get("island", {}).get("id") for m in asked if m["type"] == "game"] == [data["id"], None]
        proc.begin_game(time.monotonic() + 60, island)
        with pytest.raises(AgentError):  # another island's id: read from `start`, and found broken
            first_answer({**data, "id": "another island", "regions": "not the regions"})
    finally:
        proc.close()


def isolation_launch(spec: str):
    from treasure_cli.sandbox.launch import agent_launch

    return agent_launch(spec, "process")


def test_a_warm_host_near_its_lifetime_cpu_limit_is_replaced_between_games(tmp_path, monkeypatch):
    """A warm host's RLIMIT_CPU covers its whole life, its forks and reaps included: one that has
    used half of it is replaced before a game, not killed by SIGXCPU during one."""
    from treasure_cli.formats.map_file import parse_map
    from treasure_cli.sandbox.launch import agent_launch

    agent = tmp_path / "scanner.py"
    agent.write_text("from treasure_cli import LargeScan\n\n\nclass Scanner:\n"
                     "    def act(self, obs):\n        return LargeScan()\n")
    launch = agent_launch(f"{agent}:Scanner", "process")
    limits = AgentLimits()
    island = parse_map(SMALL_MAP).public()
    monkeypatch.setattr(agent_process, "HOST_CHECK_GAMES", 1)

    def one_game() -> agent_process.AgentProcess:
        process = agent_process.acquire(launch, limits, "scanner")
        process.begin_game(time.monotonic() + 60, island)
        agent_process.release(process)
        return process

    first = one_game()
    cpu = first.host_cpu_seconds()
    assert cpu is not None and 0 < cpu < limits.cpu_seconds / 2  # its warm-up, a few tenths of a second
    assert one_game() is first  # well under the limit: kept
    monkeypatch.setattr(agent_process.AgentProcess, "host_cpu_seconds", lambda self: limits.cpu_seconds * 0.6)
    second = one_game()
    assert second is not first and not first.alive()
    agent_process.close_all()


@pytest.mark.parametrize("note", ['{"text": 5}', '{"text": ["x"]}', '{"text": "ok", "candidates": "no"}',
                                  '{"text": "ok", "tiles": [0, 99999999]}', '"just text"'])
def test_an_exec_programs_note_of_the_wrong_form_fails_its_game(tmp_path, island, note):
    """docs/agent-protocol.md: a note that is not of the stated form ends the game as protocol;
    its text and candidates are not guessed at (5 once became "5", "no" became true)."""
    spec = _program(tmp_path, "noter.sh", f"""\
        read hello
        echo '{{"type": "hello", "protocol": 1}}'
        read start
        read act
        echo '{{"type": "action", "action": "scan", "note": {note}}}'
        read more
     """)
    record, _ = play_game(island, spec, 1, map_name="m", isolation="process", notes=True)
    assert (record.outcome, record.reason) == ("failed", "protocol"), record.error
    assert "the agent's note is not one the protocol allows" in record.error
    assert agent_processes() == []


def test_an_exec_programs_note_of_the_right_form_is_kept(tmp_path, island):
    spec = _program(tmp_path, "noter.sh", """\
        read hello
        echo '{"type": "hello", "protocol": 1}'
        read start
        while read line; do
          case "$line" in
            *'"act"'*) echo '{"type": "action", "action": "scan", "note": {"text": "scanning", "candidates": false}}' ;;
            *) exit 0 ;;
          esac
        done
     """)
    record, events = play_game(island, spec, 1, map_name="m", isolation="process", notes=True)
    assert record.outcome in ("WIN", "LOSE"), record.error
    notes = [e for e in events if type(e).__name__ == "AgentNoted"]
    assert notes and all(n.text == "scanning" and n.tiles is None for n in notes)


@pytest.mark.parametrize("level", ["none", *ISOLATED])
def test_an_agents_words_stay_on_its_error_line(tmp_path, island, level):
    """An exception message with line breaks must not start lines of a report that look like ours."""
    path = tmp_path / "forger.py"
    path.write_text("class Agent:\n    def act(self, obs):\n"
                    "        raise ValueError('oops\\n=1    mallory  file:0000  5  5  100.0\\r\\x1b[31m')\n")
    record, _ = play_game(island, f"{path}:Agent", 1, map_name="m", isolation=level)
    assert record.reason == "agent-error"
    assert "\n" not in record.error and "\r" not in record.error and "\x1b" not in record.error
    assert "raised ValueError: oops\\n=1    mallory  file:0000  5  5  100.0\\r\\x1b[31m (forger.py:3 in act)" in record.error


def test_a_program_with_isolation_none_plays_in_a_process_and_is_said_to(tmp_path, island, small_map):
    """A program cannot run in the referee's process: with none it has a process of its own, and
    the record and the run's "agents:" line say so, not "in this process"."""
    spec = _program(tmp_path, "scanner.sh", """\
        while read line; do
          case "$line" in
            *'"hello"'*) echo '{"type": "hello", "protocol": 1}' ;;
            *'"act"'*) echo '{"type": "action", "action": "scan"}' ;;
            *'"end"'*) echo '{"type": "ready"}' ;;
            *'"bye"'*) exit 0 ;;
          esac
        done
     """)
    record, _ = play_game(island, spec, 1, map_name="m", isolation="none", max_turns=3)
    assert not record.failed and record.isolation == "process", record.error
    result = CliRunner().invoke(cli, ["run", str(small_map), str(tmp_path / "out"), "--agent", spec,
                                      "--agent-isolation", "none", "--max-turns", "3"])
    assert result.exit_code == 0, result.output
    assert f"agents: {spec} in processes of their own (no sandbox; 1024 MiB)" in result.stderr
    assert "in this process" not in result.stderr


@pytest.mark.parametrize("level", ["none", *ISOLATED])
def test_check_agent_names_a_missing_class_in_the_users_file(agents, level):
    from treasure_cli.grading.conformance import check_agent

    [loads] = check_agent(f"{agents}:Nope", games=1, isolation=level)
    assert not loads.ok
    assert f"{agents} has no 'Nope'" in loads.detail and "/agent/" not in loads.detail


ODD_ACTIONS = {  # what a student's agent may return, and how the game in process takes it
    "numpy_teleport": "Teleport((np.int64(obs.position[0]), np.int64(obs.position[1])))",
    "numpy_steps": "Move(Direction.N, np.int64(1))",
    "str_direction": "Move('N', 1)",
    "infinite_teleport": "Teleport((float('inf'), 0))",
    "float_hint": "Verify(1.0)",
    "three_numbers": "Teleport((1, 2, 3))",
}


@pytest.mark.parametrize("odd", sorted(ODD_ACTIONS))
def test_an_odd_action_is_taken_or_refused_as_in_process(tmp_path, island, odd):
    """The same answer plays the same game in the referee's process and in the sandbox: numpy's
    integers where the game takes them, the same refusal where it does not; never a dead host."""
    path = tmp_path / f"{odd}.py"
    path.write_text("import numpy as np\nfrom treasure_cli import Direction, LargeScan, Move, Teleport, Verify\n\n"
                    "class Agent:\n    def act(self, obs):\n"
                    f"        return {ODD_ACTIONS[odd]} if obs.turn == 1 and obs.actions_left == 2 else LargeScan()\n")
    seen = []
    for level in ("none", "sandbox"):
        record, _ = play_game(island, f"{path}:Agent", 5, map_name="m", isolation=level, max_turns=4)
        seen.append((record.outcome, record.reason, record.turns))
    assert seen[0] == seen[1], seen
    assert seen[0][1] != "agent-died"


# ---------------------------------------------------------------- the one door: sandbox.seat
@pytest.mark.parametrize("way_out", ["game-over", "no-game", "agent-error", "timeout", "ctrl-c"])
@pytest.mark.parametrize("level", ISOLATED)
def test_every_way_out_of_a_seat_ends_the_games_process_and_unpins_this_thread(agents, island, level, way_out):
    """A game takes its agent's seat once; leaving the block, however it is left, ends the game's
    process and everything it started, restores this thread's CPUs, and keeps the warm host,
    which ran none of the agent's code, for the next game."""
    from treasure_cli.errors import AgentCrashError, GameTimeout
    from treasure_cli.play.loop import play_agent
    from treasure_cli.rules.game import Game
    from treasure_cli.sandbox.seat import seat

    spec = f"{agents}:LeavesAChild"  # starts a child that outlives its game unless it is killed
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    raised = {"agent-error": AgentCrashError(1, "the agent failed"), "timeout": GameTimeout(),
              "ctrl-c": KeyboardInterrupt()}.get(way_out)
    with pytest.raises(type(raised)) if raised is not None else _nothing():
        with seat(spec, level, AgentLimits(), None, 30) as taken:
            assert taken.in_own_process
            taken.begin(island.public())
            if way_out == "no-game":
                pass
            else:
                game = Game(island, 1, agent_name=spec)
                for event in play_agent(game, taken.agent):
                    if raised is not None and type(event).__name__ == "AreaScanned":  # after its first action
                        raise raised
                taken.game_over(game)
    assert agent_processes() == []
    assert len(pooled_pids(spec)) == 1  # the warm host stays
    if cpus is not None:
        assert os.sched_getaffinity(0) == cpus


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
