"""Small builders shared by the tests (imported as a plain module: pytest puts tests/ on the path)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import strategies as st

from treasure_cli.rules.actions import Action
from treasure_cli.formats.map_file import parse_map


ROOT = Path(__file__).resolve().parent.parent  # the repository
GOLDEN = ROOT / "tests" / "golden"


# A 6x8 island for island_from_grid: sea border, two regions, a mountain, one prison.
SMALL_ROWS = [
    "0 0 0 0 0 0 0 0",
    "0 1 1 1 2 2 2 0",
    "0 1 1M 1 2 2 2 0",
    "0 1 1 1 2 2 2 0",
    "0 1P 1 1 2 2 2 0",
    "0 0 0 0 0 0 0 0",
]


def island_from_grid(rows: list[str], treasure: tuple[int, int], r: int = 2, f: int = 4):
    """Build an Island from rows of space-separated cells in map-file syntax (e.g. '0 1 1M 1P')."""
    cells = [row.split() for row in rows]
    width = len(cells[0])
    header = f"{width} {len(cells)}\n{r}\n{f}\n9\n{treasure[0]} {treasure[1]}\n"
    return parse_map(header + "\n".join(";".join(row) for row in cells) + "\n", "test-map")


def play(game, agent) -> list:
    """Every event of `game` played to its end by `agent` (an illegal action raises)."""
    from treasure_cli.play.loop import play_agent

    return list(play_agent(game, agent))


def play_spec(island, agent: str, seed: int, **kw) -> list:
    """Every event of the game `build_game` sets up for an agent spec, played to its end."""
    from treasure_cli.play.games import build_game

    return play(*build_game(island, agent, seed, **kw))


class ScriptedAgent:
    """Plays a fixed list of actions, then large scans; records what it observed."""

    def __init__(self, actions: list[Action]):
        self.actions = list(actions)
        self.observations = []

    def act(self, obs):
        from treasure_cli.rules.actions import LargeScan

        self.observations.append(obs)
        return self.actions.pop(0) if self.actions else LargeScan()


# A small valid map in canonical form: 6 columns x 5 rows; the treasure (1, 2)
# is plain land of region 1 and both prisons reach it. Lines: header 1-5, rows 6-10.
SMALL_MAP = """\
6 5
2
5
3
1 2
0; 0; 0; 0; 0; 0
0; 1; 1; 2M; 2; 0
0; 1P; 1; 2; 2P; 0
0; 1; 1; 2; 2; 0
0; 0; 0; 0; 0; 0
"""


@st.composite
def region_grids(draw, max_side: int = 40) -> np.ndarray:
    """Region numbers (int64, to be made int32 by the island) of many shapes and layouts:
    specks of many regions, blobs with long shared borders, stripes, one region, all sea;
    numbers small, huge (up to 2**31 - 1) or negative, as a foreign caller may pass."""
    h, w = draw(st.integers(0, max_side)), draw(st.integers(0, max_side))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["specks", "blobs", "blobs", "stripes", "one region", "sea"]))
    if kind == "specks":
        regions = np.where(rng.random((h, w)) < draw(st.sampled_from([0.3, 0.7, 1.0])),
                           rng.integers(1, draw(st.sampled_from([3, 30, 300])), size=(h, w)), 0)
    elif kind == "blobs":
        k = int(rng.integers(1, 7))
        coarse = rng.integers(0, draw(st.sampled_from([3, 6, 40])), size=(h // k + 1, w // k + 1))
        regions = np.kron(coarse, np.ones((k, k), dtype=np.int64))[:h, :w]
    elif kind == "stripes":
        regions = np.broadcast_to(np.arange(w) % 3, (h, w)) if draw(st.booleans()) else \
            np.broadcast_to((np.arange(h) % 3)[:, None], (h, w))
    else:
        regions = np.full((h, w), 1 if kind == "one region" else 0)
    regions = np.asarray(regions, dtype=np.int64)
    numbers = draw(st.sampled_from(["small", "small", "small", "huge", "negative", "mixed"]))
    if numbers == "huge":
        regions = regions * (2**31 - 1) // max(1, int(regions.max(initial=0)))
    elif numbers == "negative":
        regions = -regions
    elif numbers == "mixed":  # both signs, and the extremes of int32
        sign = np.where(rng.random((h, w)) < 0.5, -1, 1)
        regions = np.where(regions == 7, 2**31 - 1, np.where(regions == 8, -2**31, regions * sign))
    return regions


class RandomTeleporter:
    """Uniformly random legal actions, teleports and verifications included: every kind of event
    turns up (the wire's and the Observer's tests)."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def act(self, obs):
        from treasure_cli.rules.actions import legal_actions

        actions = legal_actions(obs)
        return actions[int(self.rng.integers(len(actions)))]


def planted_notes_agent(tmp_path) -> str:
    """examples/inverted_mask.py (its notes' mask is inverted on turn 3) copied into tmp_path; its spec."""
    path = tmp_path / "inverted_mask.py"
    path.write_text((ROOT / "examples" / "inverted_mask.py").read_text())
    return f"{path}:Inverted"


def user_folder(tmp_path, monkeypatch, files: dict[str, str]):
    """A new user's folder for a doc's commands: the doc's files, a copy of input/, and the
    working directory there."""
    import shutil

    for name, source in files.items():
        (tmp_path / name).write_text(source)
    shutil.copytree(ROOT / "input", tmp_path / "input")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def build_expected() -> bool:
    """Whether installing the package could build its compiled modules here: a C compiler and
    Python's headers. setup.py builds them with optional=True, so without this a failed build
    would pass unnoticed, its parity tests skipped."""
    import shutil
    import sysconfig

    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(compiler) is not None and headers.is_file()


BUILD_EXPECTED = build_expected()


def needs_built(module: object, name: str, why: str = ""):
    """A parity test's mark: skipped when the compiled module `name` is missing and could not
    have been built; run (and so failed by the missing module) when the build was expected to make it."""
    import pytest

    return pytest.mark.skipif(module is None and not BUILD_EXPECTED,
                              reason=f"{name} not built, and no C compiler or Python headers here {why}".strip())


def gated_agent(folder: Path) -> tuple[str, Path, Path]:
    """A file agent that plays as greedy once the file `gate` exists, and until then stops at its
    first action, leaving a marker file in `markers` for each game that waits there: a test waits
    on the markers (an event) to know a run is held mid-way. Its spec (for a process of its own,
    not the bubblewrap sandbox, which does not see `folder`), the gate and the markers' folder."""
    gate, markers = folder / "gate", folder / "markers"
    markers.mkdir()
    # In a folder of its own: the gate and the markers beside it would be files of its copy, and
    # of its code's digest, which would then change when the gate opens.
    (folder / "gated").mkdir()
    path = folder / "gated" / "gated.py"
    path.write_text(
        "import os, tempfile, time\n"
        "from treasure_cli.agents.greedy import GreedyAgent\n\n\n"
        "class Agent(GreedyAgent):\n"
        "    def act(self, obs):\n"
        f"        if not os.path.exists({str(gate)!r}):\n"
        f"            tempfile.mkstemp(dir={str(markers)!r})\n"
        f"            while not os.path.exists({str(gate)!r}):\n"
        "                time.sleep(0.01)\n"
        "        return super().act(obs)\n")
    return f"{path}:Agent", gate, markers


class Listener:
    """A TCP port on 127.0.0.1 that counts who connects (the target of an agent's network attempt)."""

    def __init__(self):
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self.stop.set()
        self.thread.join()
        self.sock.close()


def refuse_jail(monkeypatch) -> None:
    """The warm host says at its start that it cannot jail a game (a kernel without user namespaces
    inside the sandbox): a sandboxed agent then gets a bubblewrap sandbox of its own for each game."""
    from treasure_cli.sandbox import process as agent_process

    said = agent_process.AgentProcess._host_hello

    def refused(self):
        said(self)
        raise agent_process.NoJail(0, "unshare: Operation not permitted")

    monkeypatch.setattr(agent_process.AgentProcess, "_host_hello", refused)
    monkeypatch.setattr(agent_process, "_NO_JAIL", None)


def hidden_maps(tmp_path: Path, seed: int, count: int = 2) -> Path:
    """`tmp_path`/hidden with `count` small islands (24x20, MAP_01...) made from `seed` on: a
    tournament's maps for a test."""
    from treasure_cli.formats.map_file import write_map
    from treasure_cli.islands.generator import generate_island

    maps = tmp_path / "hidden"
    maps.mkdir()
    for i in range(count):
        write_map(generate_island(24, 20, rng=np.random.default_rng(seed + i)), maps / f"MAP_{i + 1:02d}.txt")
    return maps


def without_control_groups(monkeypatch, route: str) -> Iterator[str]:
    """For a fixture (`yield from`): the machine without control groups (TREASURE_NO_CGROUPS), a
    game launched by `route`: "warm host", "a sandbox per game" (the warm host cannot jail a
    game) or "process"; every agent process closed before and after."""
    from treasure_cli.sandbox import cgroups, process as agent_process
    from treasure_cli.sandbox.levels import bwrap_works

    if route != "process" and not bwrap_works():
        pytest.fail("bubblewrap is needed (make test installs it)")
    monkeypatch.setenv("TREASURE_NO_CGROUPS", "1")
    cgroups._bases.cache_clear()
    if route == "a sandbox per game":
        refuse_jail(monkeypatch)
    agent_process.close_all()
    yield route
    agent_process.close_all()
    cgroups._bases.cache_clear()


# A group's agent file: the greedy baseline under a class name of the group's ({name}).
GREEDY_GROUP = "from treasure_cli.agents.greedy import GreedyAgent\n\n\nclass {name}(GreedyAgent):\n    pass\n"
# An agent's helper, put into agent sources that hold its name alone on a line (`with_try_memfd`):
# what `memfd_create` answers in its first thread and in another (the seccomp filter refuses it in
# a game; memfd pages were memory no address space counted).
TRY_MEMFD = '''\
def try_memfd():
    """"made" or "refused ERRNO" for this thread, then the same for a thread of its own."""
    said = []

    def once():
        try:
            os.close(os.memfd_create("m"))
            said.append("made")
        except OSError as exc:
            said.append(f"refused {exc.errno}")

    once()
    other = threading.Thread(target=once)
    other.start()
    other.join()
    return " ".join(said)
'''


def with_try_memfd(source: str) -> str:
    """`source` (an agent's, dedented, importing os and threading) with its line `TRY_MEMFD`
    replaced by that function."""
    assert "\nTRY_MEMFD\n" in source
    return source.replace("\nTRY_MEMFD\n", "\n" + TRY_MEMFD)


# A group that plays random legal moves, teleports left out (it loses games).
WANDERER = ("import random\n\nfrom treasure_cli import legal_actions\n\n\nclass Wanderer:\n"
            "    def reset(self, seed):\n        self.rng = random.Random(seed)\n\n"
            "    def act(self, obs):\n        return self.rng.choice(legal_actions(obs, teleports=False))\n")


def invoke(*args: str):
    """`treasure ARGS...` run in this process (click's CliRunner): its result."""
    from click.testing import CliRunner

    from treasure_cli.cli import cli

    return CliRunner().invoke(cli, list(args))


def class_folder(tmp_path: Path, monkeypatch, students: dict[str, str]) -> Path:
    """A class to grade in `tmp_path`, the working directory now: students/ with each file of
    `students` (its path there -> its text), and two of the shipped maps in hidden/ (16x16, 32x32)."""
    import shutil

    monkeypatch.chdir(tmp_path)
    for name, text in students.items():
        path = tmp_path / "students" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "hidden").mkdir()
    for name in ("MAP_01.txt", "MAP_02.txt"):
        shutil.copy(ROOT / "input" / name, tmp_path / "hidden")
    return tmp_path


def verdicts(klass: Path) -> dict[str, str]:
    """What the intake says of each group of a class folder: its language and entry, or why it is
    left out (a build log's path cut off)."""
    from treasure_cli.grading.submissions import find_submissions

    found, left_out = find_submissions([str(klass)])
    said = {s.name: f"{s.language} {s.entry}" for s in found}
    said.update({x.name: x.reason.partition(" (build log: ")[0] for x in left_out})
    return said


def agents_file(tmp_path_factory, token: str, text: str) -> Path:
    """A module's agents written to a file named by its token (`token`.py, in a folder of its own):
    their processes carry the token in their command line, where /proc finds them."""
    path = tmp_path_factory.mktemp("agents") / f"{token}.py"
    path.write_text(text)
    return path


def shipped_maps(folder: Path, *names: str) -> Path:
    """`folder`, made, holding copies of these maps of input/ (MAP_01.txt, ...)."""
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(ROOT / "input" / name, folder / name)
    return folder


def exec_cheat(students: Path, name: str, probe: str) -> str:
    """An exec: program in the class `students` named `name`: `probe` (Python of the standard
    library alone, run by the system's python3, saying what it finds on its standard error), then
    the starter agent in plain Python (examples/plain_agent.py); and beside it its fair twin, the
    starter agent alone, whose name this returns (for `cheat_beside_logic`'s `fair`). An exec
    program's game is not sealed: it may make the pipes and sockets a Python agent's may not."""
    fair = f"{name}_fair"
    probe_program(students / name, probe)
    (students / fair).write_text((ROOT / "examples" / "plain_agent.py").read_text())
    (students / fair).chmod(0o755)
    return fair


def cheat_beside_logic(students: Path, maps: Path, store: Path, name: str, fair: str = "logic") -> tuple[list, dict]:
    """A tournament of the class `students` with `logic` beside it, 3 games a map at --seed 5, one
    worker, in a warm host of its own: (the rows of the group `name`, logic's (outcome, turns) by
    (map digest, seed)), to check that an attack changed nothing of the games. `fair`, another
    group of the class (an exec program's twin: `exec_cheat`), is played and returned instead of
    logic."""
    from click.testing import CliRunner

    from treasure_cli.cli import cli
    from treasure_cli.grading.store import Store
    from treasure_cli.sandbox import process as agent_process

    agent_process.close_all()  # a warm host of its own, made by this tournament
    try:
        beside = ["--with", "logic"] if fair == "logic" else []
        played = CliRunner().invoke(cli, ["tournament", str(students), *beside, "--maps", str(maps),
                                          "--games", "3", "--seed", "5", "--db", str(store), "--jobs", "1",
                                          "--game-timeout", "20"])
    finally:
        agent_process.close_all()
    assert played.exit_code == 0, played.output
    with Store(store) as s:
        rows = s.rows()
    cheat = [r for r in rows if r.label == name]
    games = {(r.map_digest, r.seed): (r.outcome, r.turns) for r in rows if r.label == fair}
    assert len(cheat) == len(games) == 6, [(r.label, r.outcome) for r in rows]
    assert {r.isolation for r in cheat} == {"sandbox"}, {r.isolation for r in cheat}
    return cheat, games


def seccomp_answer(program: list[tuple[int, int, int, int]], arch: int, number: int, *args: int) -> int:
    """What a BPF program of seccomp's (loads of the architecture, the call's number and the low
    words of its first three arguments, jumps and returns only) answers for one call."""
    at, held, fields = 0, 0, {4: arch, 0: number, **{16 + 8 * i: a for i, a in enumerate(args)}}
    while True:
        code, true, false, k = program[at]
        if code == 0x20:  # load a word of seccomp_data
            held = fields[k]
            at += 1
        elif code in (0x15, 0x45):  # jump if equal, jump if any bit set
            at += 1 + (true if (held == k if code == 0x15 else held & k) else false)
        else:
            assert code == 0x06, code
            return k


# A probe's function (plain Python) that says the inode number the machine's counter gives a new
# pipe: pipes, sockets and a few other objects are numbered from one counter (`get_next_ino`).
PIPE_NUMBER = """
def pipe_number():
    r, w = os.pipe()
    number = os.fstat(r).st_ino
    os.close(r)
    os.close(w)
    return number
"""


def probe_program(path: Path, probe: str) -> Path:
    """An `exec:` program at `path`, run by the system's python3: `probe` (plain Python) first,
    then the starter agent of examples/plain_agent.py. Exec programs are not sealed (their
    runtimes make pipes and sockets: sandbox/seccomp.py), so an attack through a pipe or a socket
    is tried there."""
    path.write_text("#!/usr/bin/env python3\n" + probe + "\n\n"
                    + (ROOT / "examples" / "plain_agent.py").read_text().split("\n", 1)[1])
    path.chmod(0o755)
    return path


# `logic`'s play, after a probe: a Python agent whose module runs the probe in each game's process
FAIR_AGENT = '''
from treasure_cli.agents.planner import PlanningAgent  # the agent `logic` names


class Agent:
    def __init__(self):
        self.fair = PlanningAgent()

    def act(self, obs):
        return self.fair.act(obs)
'''


def probe_group(students: Path, name: str, probe: str, kind: str = "python") -> Path:
    """The group `name` of the class folder `students`, made: `probe` (plain Python, run as each
    game's process starts), then play, as a Python agent playing `logic`'s game ("python") or as an
    `exec:` program, the plain-Python starter agent (probe_program)."""
    students.mkdir(parents=True, exist_ok=True)
    if kind == "exec":
        return probe_program(students / name, probe)
    (students / name).mkdir()
    (students / name / "agent.py").write_text(probe + FAIR_AGENT)
    return students / name


ROUTES = ["the warm host's jail", "a sandbox per game", "process"]  # each way a game's process is made


def probe_on_route(tmp_path: Path, monkeypatch, route: str, kind: str, probe: str) -> list:
    """The store's rows of a tournament of the one group `probe_group` makes (2 games on
    input/MAP_01.txt, one worker, warm hosts of its own), its games launched by `route`."""
    import shutil

    from treasure_cli.grading.store import Store
    from treasure_cli.sandbox import process as agent_process

    if route == "a sandbox per game":
        refuse_jail(monkeypatch)
    probe_group(tmp_path / "class", "probe", probe, kind)
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps")
    more = ["--agent-isolation", "process"] if route == "process" else []
    agent_process.close_all()
    try:
        played = invoke("tournament", str(tmp_path / "class"), "--maps", str(tmp_path / "maps"),
                        "--db", str(tmp_path / "r.sqlite"), "--games", "2", "--jobs", "1", "--seed", "1", *more)
    finally:
        agent_process.close_all()
    assert played.exit_code == 0, played.output
    with Store(tmp_path / "r.sqlite") as store:
        rows = store.rows()
    assert len(rows) == 2, played.output
    return rows
