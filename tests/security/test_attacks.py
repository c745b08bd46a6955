"""Hostile agents through `bench --db`, on this machine and on a local Dask cluster: no attack works.

Each attack ends as an ordinary game (a cheat plays exactly the games of the fair
agent it is built on, so it wins no more often) or as `failed (<cause>)`; the
maps, the output folder, a home folder and the store's rows are as they were;
nothing listens in; no process of an agent is left.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import uuid
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import Listener

from treasure_cli.cli import cli
from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.map_file import write_map
from treasure_cli.sandbox import process as agent_process
from treasure_cli.grading.store import Store

from security.attacks import CHEATS, write_agents

# The leave_child agent's sleep: a marker no other process has, not even this suite run from
# another checkout at the same time.
SLEEP = f"317.{os.getpid():07d}"
# In the agents' file names: their processes are this test run's, not those of another worker
# running the same agents from this checkout at the same time (pytest -n).
TOKEN = "_attacks_" + uuid.uuid4().hex[:12]

# How each misbehaving agent's games must end (None: played to the end, like `logic`).
EXPECTED = {
    "tamper": None, "network": None, "chatty": None,
    "leave_child": None,  # its game ends normally; the processes it left are killed after it
    # Process 1 of its own namespace, it has no parent it can see (getppid() is 0); kill(0) is its
    # own process group, and the kernel keeps a namespace's process 1 from signals sent inside it.
    "kill_parent": None,
    "memory_bomb": {"agent-error", "agent-died", "game-timeout"},  # MemoryError, or killed filling memory
    "fork_bomb": {"agent-error"},
    "garbage": {"protocol"},
    "close_stdin": {"protocol", "agent-died"},
    "ignore_sigterm": {"game-timeout"},
}


def digest_tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def agent_processes() -> list[str]:
    """Command lines of the processes that run one of this test run's hostile agents (their file
    names carry TOKEN) or what it left behind (SLEEP)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if SLEEP in cmd or TOKEN in cmd:
            found.append(f"{pid}: {cmd}")
    return found


# The store's secret base seed, fixed here (any value will do; a real store draws it from `secrets`):
# the games are played under a secret seed, as in grading, and yet are the same every run, so an
# attack's outcome (close_stdin may win before it reads) cannot pass one run and fail the next.
SECRET = 7_316_093_527_410_881_214


@pytest.fixture
def arena(tmp_path, monkeypatch):
    """Maps, a results store, an output folder with a log in it, a home folder, a listener, the agents."""
    monkeypatch.setattr(secrets, "randbits", lambda bits: SECRET)
    maps, out, home = tmp_path / "hidden", tmp_path / "out", tmp_path / "home"
    for folder in (maps, out, home):
        folder.mkdir()
    for i in range(2):
        write_map(generate_island(12, 12, rng=np.random.default_rng(40 + i)), maps / f"MAP_{i + 1:02d}.txt")
    (out / "LOG_01.txt").write_text("a log of an earlier run\n")
    (home / ".bashrc").write_text("# the teacher's own file\n")
    store = tmp_path / "results.sqlite"
    listener = Listener()
    config = {"maps": [str(maps)], "store": str(store), "port": listener.port, "sleep": SLEEP,
              "files": [*(str(p) for p in sorted(maps.iterdir())), str(out / "LOG_01.txt"), str(home / ".bashrc")],
              "folders": [str(maps), str(out), str(home)]}
    agents = tmp_path / "submissions"
    agents.mkdir()
    specs = write_agents(agents, config, TOKEN)
    yield {"maps": maps, "out": out, "home": home, "store": store, "listener": listener, "specs": specs,
           "tmp": tmp_path}
    listener.close()
    agent_process.close_all()


def play(arena, extra: list[str], store: Path) -> list[dict]:
    specs = arena["specs"]
    agents = ",".join(["logic", "random", *specs.values()])
    result = CliRunner().invoke(cli, ["bench", "--agents", agents, "--maps", str(arena["maps"]), "--games", "2",
                                      "--db", str(store), "--game-timeout", "2", "--json", "--no-timing",
                                      "--agent-isolation", "sandbox", *extra])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)["games"]  # valid JSON, whatever the agents printed


def check(arena, games: list[dict], store: Path, before: dict) -> None:
    by_agent: dict[str, list[dict]] = {}
    for g in games:
        by_agent.setdefault(g["agent"], []).append(g)
    name_of = {spec: name for name, spec in arena["specs"].items()}
    fair = {(g["map"], g["seed"]): (g["outcome"], g["turns"]) for g in by_agent["logic"]}
    for spec, rows in by_agent.items():
        name = name_of.get(spec)
        if name is None:
            continue
        assert len(rows) == len(fair), name
        for g in rows:
            assert "CHEATED" not in g.get("output", ""), (name, g)
            if g["outcome"] == "failed":
                # A failure of its own, of a kind this attack can cause.
                assert name not in CHEATS and EXPECTED[name] and g["reason"] in EXPECTED[name], (name, g)
            else:
                # An ordinary game: exactly logic's, so the attack bought nothing.
                assert (g["outcome"], g["turns"]) == fair[g["map"], g["seed"]], (name, g)
        if name not in CHEATS and EXPECTED[name] and name != "close_stdin":
            assert all(g["outcome"] == "failed" for g in rows), name  # (close_stdin may win before it reads)
    chatty = by_agent[arena["specs"]["chatty"]]
    assert all(len(g["output"]) <= 64 * 1024 + 100 and "more bytes not kept" in g["output"] for g in chatty)
    # Nothing outside the sandbox changed, and nobody got through.
    assert digest_tree(arena["maps"]) == before["maps"]
    assert digest_tree(arena["out"]) == before["out"]
    assert digest_tree(arena["home"]) == before["home"]
    assert arena["listener"].connections == 0
    with Store(store) as s:
        assert len(s) == len(games)  # every game recorded, none deleted
    # The processes the leave_child and fork_bomb agents started were killed with their games.
    assert not [p for p in agent_processes() if SLEEP in p]


def test_hostile_agents_on_this_machine(arena):
    before = {k: digest_tree(arena[k]) for k in ("maps", "out", "home")}
    store = arena["tmp"] / "local.sqlite"
    games = play(arena, ["--jobs", "2"], store)
    check(arena, games, store, before)
    agent_process.close_all()  # the agents kept for a next game: then nothing of theirs is left
    assert agent_processes() == []
    # The engine patch stayed in its own process: random, played in the same run, plays its usual games.
    with Store(store) as s:
        seed = s.secret_seed()  # the tournament's games came from the store's secret base seed
    assert seed == SECRET
    alone = CliRunner().invoke(cli, ["bench", "--agents", "random", "--maps", str(arena["maps"]), "--games", "2",
                                     "--json", "--no-timing", "--seed", str(seed)])
    assert [g for g in games if g["agent"] == "random"] == json.loads(alone.stdout)["games"]


def test_hostile_agents_on_a_dask_cluster(arena):
    distributed = pytest.importorskip("distributed")
    before = {k: digest_tree(arena[k]) for k in ("maps", "out", "home")}
    store = arena["tmp"] / "dask.sqlite"
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=":0", worker_dashboard_address=None) as cluster:
        games = play(arena, ["--scheduler", cluster.scheduler_address], store)
        check(arena, games, store, before)
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2  # no agent took a worker down
    assert agent_processes() == []  # the workers are gone, and every agent process with them


def test_the_cheats_are_real_attacks_without_isolation(arena):
    # The same agents in the referee's own process (--agent-isolation none) do find the treasure:
    # the tests above pass because of the wall, not because the attacks are harmless.
    specs = arena["specs"]
    agents = ",".join(specs[name] for name in ("stack_peek", "gc_peek", "read_maps"))
    result = CliRunner().invoke(cli, ["bench", "--agents", agents, "--maps", str(arena["maps"]), "--games", "2",
                                      "--json", "--no-timing", "--agent-isolation", "none"])
    games = json.loads(result.stdout)["games"]
    assert len(games) == 12 and all(g["outcome"] == "WIN" and g["turns"] == 1 for g in games)
    assert all("CHEATED" in g["output"] for g in games)
