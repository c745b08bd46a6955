"""The C++ example agent (examples/cpp) builds with make and g++ and plays through every command
that takes an agent: run, replay, bench --db, check-agent, as its README and
docs/writing-an-agent.md ("In any language") say.

It is built into a temporary folder laid out as the repository (input/ and
examples/cpp/build/treasure-agent), so the docs' commands run there word for
word and nothing is written inside the repository."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

CPP = ROOT / "examples" / "cpp"
BINARY = "examples/cpp/build/treasure-agent"  # as the docs write it, from the folder below
SPEC = f"exec:{BINARY}"
DOC = (ROOT / "docs" / "writing-an-agent.md").read_text()
README = (CPP / "README.md").read_text()


def _tree(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A folder with the shipped maps in input/ and the agent built by its Makefile."""
    compiler = os.environ.get("CXX", "g++")
    for tool, package in (("make", "make"), (compiler, "g++")):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not installed, so the C++ example agent cannot be built: "
                        f"`make test` installs it, or apt-get install {package}")
    where = tmp_path_factory.mktemp("cpp-agent")
    shutil.copytree(ROOT / "input", where / "input")
    before = _tree(CPP)
    done = subprocess.run(["make", "-s", "-C", str(CPP), f"BUILD={where / 'examples' / 'cpp' / 'build'}"],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"make -C examples/cpp failed:\n{done.stdout}{done.stderr}"
    assert "warning" not in done.stderr, done.stderr  # the example compiles clean with -Wall -Wextra
    assert (where / BINARY).is_file()
    assert _tree(CPP) == before, "building the example left files in the repository"
    return where


def invoke(args, folder, monkeypatch):
    monkeypatch.chdir(folder)
    return CliRunner().invoke(cli, args)


@pytest.fixture(scope="module")
def ran(folder):
    """`treasure run input/ out/ --agent exec:...`, once for the module."""
    with pytest.MonkeyPatch.context() as mp:
        result = invoke(["run", "input/", "out/", "--agent", SPEC, "--json"], folder, mp)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_run_plays_every_map_to_a_log_that_replays(ran, folder, monkeypatch):
    assert [r["map"] for r in ran] == [f"input/MAP_0{i}.txt" for i in range(1, 6)]
    assert all(r["outcome"] in ("WIN", "LOSE") and r["error"] is None for r in ran), ran
    assert sorted(p.name for p in (folder / "out").iterdir()) == [f"LOG_0{i}.txt" for i in range(1, 6)]
    for i, record in enumerate(ran, 1):
        header = (folder / "out" / f"LOG_0{i}.txt").read_text().splitlines()[:2]
        assert header[1] == record["outcome"]
    replay = invoke(["replay", "out/LOG_01.txt", "--no-pause", "--no-color"], folder, monkeypatch)
    assert replay.exit_code == 0, replay.output
    assert f"agent {SPEC}" in replay.output and "game over" in replay.output


def test_the_same_games_give_the_same_logs(ran, folder, monkeypatch):
    again = invoke(["run", "input/", "again/", "--agent", SPEC, "--jobs", "2"], folder, monkeypatch)
    assert again.exit_code == 0, again.output
    for i in range(1, 6):
        name = f"LOG_0{i}.txt"
        assert (folder / "again" / name).read_bytes() == (folder / "out" / name).read_bytes(), name


def test_bench_records_both_agents_and_reports_them(folder, monkeypatch):
    # A known seed: every game is asserted to end in WIN or LOSE, so the games are the same every run
    # (`bench --db` alone draws them from the store's secret seed, other games each run).
    bench = invoke(["bench", "--agents", f"logic,{SPEC}", "--maps", "input/", "--games", "2",
                    "--db", "results.sqlite", "--seed", "1"], folder, monkeypatch)
    assert bench.exit_code == 0, bench.output
    with sqlite3.connect(folder / "results.sqlite") as db:
        rows = db.execute("SELECT agent, outcome, COUNT(*) FROM games GROUP BY agent, outcome").fetchall()
        digests = dict(db.execute("SELECT DISTINCT agent, agent_digest FROM games").fetchall())
    games = {}
    for agent, outcome, count in rows:
        assert outcome in ("WIN", "LOSE"), rows
        games[agent] = games.get(agent, 0) + count
    assert games == {"logic": 10, SPEC: 10}
    assert digests[SPEC].startswith("exec:")
    report = invoke(["bench", "--db", "results.sqlite", "--report"], folder, monkeypatch)
    assert report.exit_code == 0, report.output
    assert re.search(rf"^\S+\s+{re.escape(SPEC)}\s+exec:\w+\s+10\s", report.output, flags=re.M), report.output


@pytest.mark.parametrize("isolation", ["auto", "process"])
def test_check_agent_passes_every_check(folder, monkeypatch, isolation):
    result = invoke(["check-agent", SPEC, "--agent-isolation", isolation], folder, monkeypatch)
    assert result.exit_code == 0, result.output
    checks = [line for line in result.stdout.splitlines() if not line.startswith(" ")]  # not the sizes' lines
    assert [line.split()[:2] for line in checks] == [
        ["ok", "loads:"], ["ok", "legal"], ["ok", "deterministic:"], ["ok", "time"]], result.output


def test_with_notes_it_explains_every_action_and_its_candidates_hold_the_treasure(ran, folder, monkeypatch):
    """`run --notes`: a note just before each of the agent's actions, "N candidates; why", with
    the N candidate tiles, which hold the treasure; the same games as without notes; and
    check-agent --beliefs finds no turn where its candidates left the treasure out."""
    from treasure_cli.formats.game_record import read_log
    from treasure_cli.formats.map_file import read_map
    from treasure_cli.rules import events as ev

    done = invoke(["run", "input/", "noted/", "--agent", SPEC, "--notes"], folder, monkeypatch)
    assert done.exit_code == 0, done.output
    for i in range(1, 6):
        name = f"LOG_0{i}.txt"
        plain = [line for line in (folder / "noted" / name).read_text().splitlines() if ": the agent notes " not in line]
        assert plain[3:] == (folder / "out" / name).read_text().splitlines()[3:], name  # the same game, its notes aside
        island = read_map(folder / "input" / f"MAP_0{i}.txt")
        events = read_log(folder / "noted" / name)
        treasure = next(e.treasure for e in events if isinstance(e, ev.TreasureHidden))
        # An action's first event: a move, a large scan (not a small move's scan), a verification, a teleport.
        starts = [k for k, e in enumerate(events) if isinstance(e, (ev.AgentMoved, ev.HintVerified, ev.Teleported))
                  or (isinstance(e, ev.AreaScanned) and not isinstance(events[k - 1], ev.AgentMoved))]
        notes = [k for k, e in enumerate(events) if isinstance(e, ev.AgentNoted)]
        assert starts and [k + 1 for k in notes] == starts, name
        shown = 0
        for k in notes:
            note = events[k]
            count = re.match(r"(\d+) candidates; \S", note.text)
            assert count is not None, note.text
            if note.tiles is not None:  # (left out of the log when they are the last note's)
                mask = note.tiles.mask(island.width, island.height)
                assert note.tiles.candidates and int(mask.sum()) == int(count.group(1)), note
                assert mask[treasure], (name, note)
                shown += 1
        assert shown > 0
    beliefs = invoke(["check-agent", SPEC, "--beliefs"], folder, monkeypatch)
    assert beliefs.exit_code == 0, beliefs.output
    assert re.search(r"^ok\s+beliefs: in 6 of 6 games the agent declared its candidates, and they always held "
                     r"the treasure$", beliefs.stdout, flags=re.M), beliefs.output


def test_the_readme_notes_are_what_it_writes(folder, monkeypatch):
    """examples/cpp/README.md, "Its notes": its run, and the first note lines of the log, cut as shown."""
    run, grep, shown = re.search(r"```\n\$ treasure (run [^\n]+)\n\$ (grep -m 4 [^\n]+)\n(.*?)```", README,
                                 flags=re.S).groups()
    done = invoke(run.split(), folder, monkeypatch)
    assert done.exit_code == 0, done.output
    cut = subprocess.run(["bash", "-c", grep], cwd=folder, capture_output=True, text=True, timeout=10)
    assert cut.returncode == 0, cut.stderr
    assert cut.stdout == shown


def _normal(text: str) -> str:
    """Output as it reads wherever it runs: no timings, and where the agent plays said one way."""
    text = re.sub(r"\d+\.\d+", "#", text)
    text = re.sub(r"processes of their own \(no sandbox; ", "a sandbox (bubblewrap; no network, ", text)
    text = text.replace("starts in a process of its own", "starts in a sandbox")
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("warning: "))


def test_the_docs_check_agent_output_is_what_it_prints(folder, monkeypatch):
    command, shown = re.search(r"```\n\$ treasure (check-agent exec:\S+)\n(.*?)```", DOC, flags=re.S).groups()
    result = invoke(command.split(), folder, monkeypatch)
    assert result.exit_code == 0, result.output
    assert _normal(result.output) == _normal(shown)


def test_the_docs_hello_by_hand_gets_its_answer(folder):
    command, shown = re.search(r"```\n\$ (printf [^\n]+)\n(.*?)```", DOC, flags=re.S).groups()
    done = subprocess.run(["bash", "-c", command], cwd=folder, capture_output=True, text=True, timeout=10)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown


def test_the_json_section_is_reusable_alone(tmp_path):
    """The README says the JSON section of agent.cpp needs nothing else in the file: it compiles
    alone, with a main of another agent's, and reads and writes a line as the README shows."""
    source = (CPP / "agent.cpp").read_text()
    head, marker, _ = source.partition("// ---------------------------------------------------------------- game ----")
    assert marker and "JsonParser(line).parseDocument()" in README
    main = '''
int main() {
    std::string line = R"({"type": "act", "turn": 3, "news": [true, null, "x\\n"]})";
    Json m = JsonParser(line).parseDocument();
    sendLine("{\\"type\\": " + jsonQuote(m["type"].str) + "}");
    return m["news"].at(0).b && m["news"].at(2).str == "x\\n" ? 0 : 1;
}
'''
    (tmp_path / "mine.cpp").write_text(head + main)
    compiler = os.environ.get("CXX", "g++")
    if shutil.which(compiler) is None:
        pytest.fail(f"{compiler} is needed (apt-get install g++)")
    built = subprocess.run([compiler, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-o", str(tmp_path / "mine"),
                            str(tmp_path / "mine.cpp")], capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(tmp_path / "mine")], capture_output=True, text=True, timeout=10)
    assert ran.returncode == 0 and ran.stdout == '{"type": "act"}\n', (ran.returncode, ran.stdout)
