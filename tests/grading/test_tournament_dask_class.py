"""A class on a Dask cluster of two workers that cannot see its folder: a C++ group handed in as
source (built once, by the referee, in the sandbox), a Python package with a data file, a group
whose helper raises, and a built-in. Each worker has a temporary folder of its own (TMPDIR), so what reached it and what
it built can be told apart from the referee's."""

from __future__ import annotations

import dataclasses
import os
import tempfile
from pathlib import Path

import pytest
from helpers import ROOT

from treasure_cli.grading.store import Store
from treasure_cli.grading.submissions import find_submissions
from treasure_cli.grading.tournament import run_tournament
from treasure_cli.play.bench import BenchOptions
from treasure_cli.sandbox import levels

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.skipif(not levels.bwrap_works(), reason="C++ source is built only in the sandbox")

MAPS = tuple(str(p) for p in sorted((ROOT / "input").glob("MAP_*.txt"))[:2])  # 16x16, 32x32
UID = os.getuid()

PACKAGE = {  # its entry below the group's top, beside which its package and data are (the whole tree travels)
    "src/agent.py": "import json\nfrom tools.base import Base\n\n\nclass Agent(Base):\n"
                    "    def __init__(self):\n        super().__init__(json.load(open('../data/weights.json'))['rule'])\n",
    "tools/__init__.py": "",
    "tools/base.py": "from treasure_cli.agents.greedy import GreedyAgent\n\nfrom .names import RULE\n\n\n"
                     "class Base(GreedyAgent):\n    def __init__(self, rule):\n"
                     "        assert rule == RULE, rule\n        super().__init__()\n",
    "tools/names.py": "RULE = 'densest'\n",
    "data/weights.json": '{"rule": "densest"}\n',
}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def cluster(tmp_path):
    """Two worker processes of one thread, each with its own TMPDIR."""
    homes = [tmp_path / "worker0", tmp_path / "worker1"]
    workers = {}
    for i, home in enumerate(homes):
        home.mkdir()
        workers[f"w{i}"] = {"cls": distributed.Nanny,
                            "options": {"nthreads": 1, "host": "127.0.0.1", "env": {"TMPDIR": str(home)}}}
    scheduler = {"cls": distributed.Scheduler, "options": {"host": "127.0.0.1", "dashboard_address": ":0"}}
    with distributed.SpecCluster(workers=workers, scheduler=scheduler) as c:
        with distributed.Client(c) as client:  # a worker's first game does not wait for its imports
            client.run(lambda: __import__("treasure_cli.grading.tournament"))
        yield c, homes


def untimed(store_path) -> list:
    with Store(store_path) as store:
        rows = [dataclasses.replace(r, seconds=0.0, finished_at="", id=None) for r in store.rows()]
    return sorted(rows, key=lambda r: r.key)


def test_a_class_plays_on_workers_that_cannot_see_its_folder(tmp_path, monkeypatch, cluster):
    c, homes = cluster
    referee = tmp_path / "referee"  # this process's temporary folder: its builds and copies
    referee.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(referee))
    klass = tmp_path / "class"
    write(klass / "cpp" / "src" / "agent.cpp", (ROOT / "examples" / "cpp" / "agent.cpp").read_text())
    write(klass / "cpp" / "src" / "Makefile", (ROOT / "examples" / "cpp" / "Makefile").read_text())
    for rel, text in PACKAGE.items():
        write(klass / "pkg" / rel, text)
    # A group whose helper raises: its error and traceback name the class's files, as on one machine.
    write(klass / "zcrash" / "agent.py", "from oops import fail\n\n\nclass Agent:\n    def act(self, obs):\n"
                                         "        fail()\n")
    write(klass / "zcrash" / "oops.py", "def fail():\n    raise RuntimeError('a helper gave up')\n")
    found, left_out = find_submissions([str(klass)])
    assert not left_out and {s.name: s.language for s in found} == {"cpp": "make", "pkg": "python",
                                                                    "zcrash": "python"}
    options = BenchOptions(agents=(*(s.spec for s in found), "greedy"), maps=MAPS, games=2, seed=11)
    program = Path(next(s.spec for s in found if s.name == "cpp").removeprefix("exec:"))
    built = program.read_bytes()

    hidden = tmp_path / "hidden"
    hidden.mkdir()

    def out_of_sight(todo, already) -> None:  # once the games are planned, nothing of the class is left to see
        os.rename(klass, hidden / "class")
        os.rename(referee, hidden / "referee")

    def back() -> None:
        os.rename(hidden / "class", klass)
        os.rename(hidden / "referee", referee)

    sent: list = []
    remote = run_tournament(options, tmp_path / "dask.sqlite", scheduler=c.scheduler_address, on_plan=out_of_sight,
                            on_start=sent.append)
    assert remote.played == len(remote.rows) == 4 * len(MAPS) * 2
    # A game's task names its agent's files by digest; no task carries them (the program's bytes included).
    assert {e.agent for e in sent if e.bundle is not None} == set(options.agents[:3])
    assert all(e.source is None for e in sent)
    failed = [r for r in remote.rows if r.outcome == "failed"]
    assert [(r.agent, r.error) for r in failed if "zcrash" not in r.agent] == []
    assert len(failed) == len(MAPS) * 2 and all(str(klass / "zcrash") in (r.traceback or "") for r in failed)
    # Built once, by the referee: one build's log, and no worker built anything.
    assert len(list((hidden / "referee" / f"treasure-cli-builds-{UID}").glob("*.log"))) == 1
    for home in homes:
        assert not list(home.glob("treasure-cli-builds-*"))
        # Each group's files arrived once, as one bundle unpacked once: the program, the package.
        received = sorted(home.glob(f"treasure-cli-received-{UID}/*/*"))
        assert {p.name for p in received} == {"src", "tools", "data", "agent.py", "oops.py"}, home
        assert [p.read_bytes() == built for p in home.glob(f"treasure-cli-received-{UID}/*/**/{program.name}")] == [True]
    back()

    # The C++ group's games alone: with nothing else to play, both workers play them (the fair
    # share leaves no worker idle), each from its own copy of the program built here.
    cpp = dataclasses.replace(options, agents=options.agents[:1], games=2)
    assert "exec:" in cpp.agents[0]
    alone = run_tournament(cpp, tmp_path / "cpp.sqlite", scheduler=c.scheduler_address, on_plan=out_of_sight)
    assert alone.played == 2 * len(MAPS) and not [r for r in alone.rows if r.outcome == "failed"]
    for home in homes:
        copies = list(home.glob(f"treasure-cli-agents-{UID}/*/**/{program.name}"))
        assert copies and all(p.read_bytes() == built for p in copies), home
    assert len(list((hidden / "referee" / f"treasure-cli-builds-{UID}").glob("*.log"))) == 1
    back()

    local = run_tournament(options, tmp_path / "local.sqlite", jobs=1)
    assert local.played == remote.played
    assert untimed(tmp_path / "dask.sqlite") == untimed(tmp_path / "local.sqlite")
