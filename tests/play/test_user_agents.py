"""A user's agent is untrusted code: it runs like ours, and when it fails only its own game fails."""

from __future__ import annotations

import json
import os
import shutil
import textwrap

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import read_log
from treasure_cli.play.runner import RunOptions, run_maps

SHIPPED = sorted((ROOT / "input").glob("MAP_*.txt"))[:3]  # 16x16, 32x32, 64x64

# Each agent misbehaves on 16x16 islands only and plays like `logic` elsewhere.
AGENTS = textwrap.dedent("""
    import time

    from treasure_cli import LargeScan, Move, Direction
    from treasure_cli.agents.logic import LogicAgent

    class Raises(LogicAgent):
        def act(self, obs):
            if obs.island.width == 16 and obs.turn == 1 and obs.actions_left == 1:
                raise RuntimeError("boom")
            return super().act(obs)

    class Sleeps(LogicAgent):
        def act(self, obs):
            if obs.island.width == 16:
                while True:
                    try:
                        time.sleep(60)
                    except Exception:  # a careless agent: the time limit must still stop it
                        pass
            return super().act(obs)

    class Illegal(LogicAgent):
        def act(self, obs):
            if obs.island.width == 16:
                return Move(Direction.N, 9)
            return super().act(obs)
""")


@pytest.fixture
def maps(tmp_path):
    folder = tmp_path / "maps"
    folder.mkdir()
    for path in SHIPPED:
        shutil.copy(path, folder / path.name)
    (tmp_path / "agents.py").write_text(AGENTS)
    return folder


# fork, asked for by name here, is the one method Python 3.12+ warns about in a threaded process.
FORK_WARNING = "ignore:This process .* is multi-threaded, use of fork:DeprecationWarning"


@pytest.mark.parametrize("start_method", [pytest.param("fork", marks=pytest.mark.filterwarnings(FORK_WARNING)),
                                          "spawn", "forkserver"])
def test_a_file_agent_plays_in_worker_processes_as_in_one(tmp_path, start_method):
    if start_method != "spawn" and os.environ.get("TREASURE_TEST_SPAWN_ONLY") == "1":
        pytest.skip("fork (the forkserver's too) is what this run takes away (tests/spawn_only)")
    options = RunOptions(agent=str(ROOT / "examples" / "densest_scan.py") + ":DensestScan")
    one = run_maps(SHIPPED, tmp_path / "one", options, jobs=1)
    two = run_maps(SHIPPED, tmp_path / "two", options, jobs=2, start_method=start_method)
    assert [r.outcome for r in one] == [r.outcome for r in two] and not any(r.failed for r in one)
    for path in (tmp_path / "one").iterdir():
        assert path.read_text() == (tmp_path / "two" / path.name).read_text()
    start = read_log(tmp_path / "one" / "LOG_01.txt")[0]
    assert start.agent == options.agent  # the spec as given, so a replay needs no import


@pytest.mark.parametrize(("agent", "kind", "cause", "extra"), [
    ("Raises", "agent-error", "turn 1: the agent raised RuntimeError: boom", []),
    ("Sleeps", "game-timeout", "the game ran past its 0.5 s limit", ["--game-timeout", "0.5"]),
    ("Illegal", "illegal-action", "illegal action Move(direction=<Direction.N: (-1, 0)>, steps=9)", []),
])
def test_a_failing_agent_fails_its_game_and_the_others_go_on(maps, tmp_path, agent, kind, cause, extra):
    spec = f"{tmp_path / 'agents.py'}:{agent}"
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["run", str(maps), str(out), "--agent", spec, "--jobs", "2", *extra])
    assert r.exit_code == 1, r.output
    [error] = [line for line in r.stderr.splitlines() if line.startswith("Error:")]
    assert error.startswith(f"Error: {maps / 'MAP_01.txt'}: agent {spec} failed: ")
    assert cause in error
    # the failed game's log: its turns up to the failure, then the line that says what failed
    assert sorted(p.name for p in out.iterdir()) == ["LOG_01.txt", "LOG_02.txt", "LOG_03.txt"]
    lines = (out / "LOG_01.txt").read_text().splitlines()
    assert lines[1] == "failed" and lines[-1].startswith(f"turn {lines[2]}: game failed, {kind}: ")
    assert cause in json.loads(lines[-1].partition(f"{kind}: ")[2])
    table = r.stdout.splitlines()
    assert any(line.startswith("MAP_01.txt") and f"failed ({kind})" in line for line in table)
    assert table[-1].startswith("2 played, ") and table[-1].endswith(", 1 failed")
    j = CliRunner().invoke(cli, ["run", str(maps), str(out), "--agent", spec, "--json", *extra])
    row = json.loads(j.stdout)[0]
    assert (row["outcome"], row["reason"], row["log"]) == ("failed", kind, str(out / "LOG_01.txt"))


def test_a_failed_game_counts_as_failed_in_the_bench_never_as_a_loss(tmp_path):
    (tmp_path / "agents.py").write_text(AGENTS)
    spec = f"{tmp_path / 'agents.py'}:Raises"
    r = CliRunner().invoke(cli, ["bench", "--agents", f"logic,{spec}", "--sizes", "16,20", "--games", "3",
                                 "--json", "--jobs", "1"])
    assert r.exit_code == 1, r.output  # a failed game fails the command, as in `run`
    stats = {(s["size"], s["agent"]): s for s in json.loads(r.stdout)["stats"]}
    failing = stats[("16x16", spec)]
    assert failing["failed"] + failing["wins"] == 3 and failing["failed"] >= 1
    assert failing["lost_to_pirate"] == failing["timeouts"] == 0
    assert stats[("20x20", spec)]["failed"] == 0
    games = [g for g in json.loads(r.stdout)["games"] if g["outcome"] == "failed"]
    assert games and all(g["reason"] == "agent-error" and "turn 1" in g["error"] for g in games)


def test_check_agent_passes_a_good_agent_and_names_what_a_bad_one_gets_wrong(tmp_path):
    good = CliRunner().invoke(cli, ["check-agent", str(ROOT / "examples" / "raw_observation.py") + ":RawObservation"])
    assert good.exit_code == 0, good.output
    assert [line.split(":")[0] for line in good.stdout.splitlines() if not line.startswith(" ")] == [
        "ok    loads", "ok    legal actions", "ok    deterministic", "ok    time per action"]
    (tmp_path / "bad.py").write_text(textwrap.dedent("""
        import random
        from treasure_cli import legal_actions

        class Unseeded:  # draws from the global generator, not from reset(seed)
            def act(self, obs):
                return random.choice(legal_actions(obs, teleports=False))
    """))
    bad = CliRunner().invoke(cli, ["check-agent", f"{tmp_path / 'bad.py'}:Unseeded", "--games", "6"])
    assert bad.exit_code == 1
    assert "FAIL  deterministic: game " in bad.output and "the two plays part at event" in bad.output
    (tmp_path / "agents.py").write_text(AGENTS)
    raises = CliRunner().invoke(cli, ["check-agent", f"{tmp_path / 'agents.py'}:Raises", "--games", "2"])
    assert raises.exit_code == 1 and "FAIL  legal actions" in raises.output
    assert "the agent raised RuntimeError: boom" in raises.output
    missing = CliRunner().invoke(cli, ["check-agent", "nope"])
    assert missing.exit_code == 1 and "FAIL  loads: unknown agent 'nope'" in missing.output


def test_an_unknown_agent_is_a_usage_error_for_run_and_step(tmp_path):
    for extra in ([str(tmp_path)], ["--step"]):
        r = CliRunner().invoke(cli, ["run", str(SHIPPED[0]), *extra, "--agent", "./nowhere.py:A"])
        assert r.exit_code == 2 and "Invalid value for --agent: agent './nowhere.py:A': no such file" in r.output


def test_check_agent_reports_an_agent_failing_to_build_in_its_games_as_a_problem_not_a_crash(tmp_path):
    """Its file loads (the check that it loads runs none of its classes); each game builds it anew."""
    from treasure_cli.grading.conformance import check_agent

    (tmp_path / "fragile.py").write_text(textwrap.dedent("""
        from treasure_cli.agents.greedy import GreedyAgent

        class Agent(GreedyAgent):
            def __init__(self):
                raise RuntimeError("out of luck")
    """))
    checks = {c.name: c for c in check_agent(f"{tmp_path / 'fragile.py'}:Agent", games=2)}
    assert checks["loads"].ok
    assert not checks["legal actions"].ok
    assert "building the agent raised RuntimeError: out of luck" in checks["legal actions"].detail


@pytest.mark.parametrize("level", ["none", "process"])
def test_check_agent_shows_the_last_lines_a_failing_agent_printed(tmp_path, level):
    """A student's debugging print() is often what says why a game failed: check-agent shows its
    last lines under the failure (all of it is in `run --json` and the store)."""
    (tmp_path / "talk.py").write_text(textwrap.dedent("""
        import sys
        from treasure_cli import LargeScan

        class Talk:
            def act(self, obs):
                print(f"turn {obs.turn}: {obs.actions_left} actions left")
                if obs.turn >= 4:
                    print("giving up", file=sys.stderr)
                    raise RuntimeError("no idea")
                return LargeScan()
    """))
    r = CliRunner().invoke(cli, ["check-agent", f"{tmp_path / 'talk.py'}:Talk", "--games", "1",
                                 "--agent-isolation", level])
    assert r.exit_code == 1
    failure = r.stdout.split("FAIL  legal actions: ")[1].split("\nFAIL")[0].splitlines()
    assert "turn 4: the agent raised RuntimeError: no idea" in failure[1]
    assert failure[2:] == ["      the last 5 of 8 lines it printed:", "        turn 2: 1 actions left",
                           "        turn 3: 2 actions left", "        turn 3: 1 actions left",
                           "        turn 4: 2 actions left", "        giving up"]


def test_check_agent_shows_an_agents_words_without_control_characters(tmp_path):
    """What check-agent quotes of an agent (its exception, its last printed lines) cannot reach
    the terminal as control characters: a carriage return or an escape sequence could overwrite
    the FAIL it is shown under, or clear the screen."""
    (tmp_path / "esc.py").write_text(textwrap.dedent("""
        class Esc:
            def act(self, obs):
                print("\\x1b[2J\\x1b[Hok    legal actions: all fine")
                raise RuntimeError("x\\rok    deterministic\\x1b[K")
    """))
    r = CliRunner().invoke(cli, ["check-agent", f"{tmp_path / 'esc.py'}:Esc", "--games", "1",
                                 "--agent-isolation", "none"])
    assert r.exit_code == 1
    assert "\x1b" not in r.stdout and "\r" not in r.stdout
    assert "RuntimeError: x\\rok    deterministic\\x1b[K" in r.stdout
    assert "\\x1b[2J\\x1b[Hok    legal actions: all fine" in r.stdout
