"""Similarity flags: a renamed copy and an identical-play clone are flagged; distinct agents are not."""

from __future__ import annotations

import re
import shutil
import sqlite3
import textwrap

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.play.bench import BenchOptions
from treasure_cli.grading.normalise import code_print
from treasure_cli.grading.similarity import (
    SAME_CODE, SAME_NORMALISED, SAME_PLAY, similarity_flags, submission_sources,
)
from treasure_cli.play.records import play_digest
from treasure_cli.grading.store import MIGRATIONS, SCHEMA_VERSION, Store
from treasure_cli.grading.tournament import run_tournament

MAPS = tuple(str(p) for p in sorted((ROOT / "input").glob("MAP_*.txt"))[:2])  # 16x16, 32x32
DENSEST = ROOT / "examples" / "densest_scan.py"
RAW = ROOT / "examples" / "raw_observation.py"
# Agents that play differently. logic-no-race and logic-no-tie-break are left out: they differ
# from logic only in rare positions, and on a few small games they play exactly as it does.
DISTINCT = ("logic", "greedy", "random", "oracle", "logic-plan-two", "logic-soft-hints",
            f"{DENSEST}:DensestScan", f"{RAW}:RawObservation")

WRAPPER = '''
from treasure_cli.agents.greedy import GreedyAgent


class Mine:
    """All my own work."""

    def __init__(self):
        self.strategy = GreedyAgent()

    def act(self, obs):
        return self.strategy.act(obs)
'''


def renamed_copy(source: str) -> str:
    """`source` as a copier hides it: another docstring, comments, spacing, and every name
    the file defines renamed (its class, function, arguments, locals, attributes)."""
    source = re.sub(r'^""".*?"""\n', '"""My agent, written from scratch."""\n', source, flags=re.S)
    for old, new in [("densest_window", "best_tile"), ("DensestScan", "Explorer"), ("padded", "grid"),
                     ("sums", "acc"), ("cover", "reach"), ("walkable", "ok"), ("cand", "todo")]:
        source = re.sub(rf"(?<![.\w]){old}\b", new, source)  # not the game's attributes (obs.island.walkable)
    source = re.sub(r"\bknow\b", "facts", source)  # an attribute of its own: self.know
    source = source.replace("    def act(self, obs):", "    # the main loop\n\n    def act( self,obs ):  # called per action")
    return source.replace(", ", " , ")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A small tournament of the distinct agents, a renamed copy of one, an exact copy of
    another and a wrapper that delegates to greedy (in this process: fast)."""
    folder = tmp_path_factory.mktemp("class")
    (folder / "renamed.py").write_text(renamed_copy(DENSEST.read_text()))
    (folder / "same.py").write_bytes(RAW.read_bytes())
    (folder / "wrapper.py").write_text(WRAPPER)
    copies = (f"{folder / 'renamed.py'}:Explorer", f"{folder / 'same.py'}:RawObservation",
              f"{folder / 'wrapper.py'}:Mine")
    options = BenchOptions(agents=DISTINCT + copies, maps=MAPS, games=3, isolation="none")
    result = run_tournament(options, folder / "r.sqlite", jobs=1)
    return folder, result.rows, copies


def test_the_renamed_copy_really_differs_in_text_but_not_in_its_tree(played):
    folder, _, _ = played
    copy = (folder / "renamed.py").read_text()
    assert "densest" not in copy.lower() and "know" not in copy and "# the main loop" in copy
    assert code_print(folder / "renamed.py") == code_print(DENSEST)
    assert code_print(DENSEST).normalised and code_print(DENSEST) != code_print(RAW)


def test_a_renamed_copy_an_exact_copy_and_an_identical_play_clone_are_flagged_and_nothing_else(played):
    folder, rows, (renamed, same, wrapper) = played
    sources = {spec: spec.rpartition(":")[0] for spec in DISTINCT + (renamed, same, wrapper) if ":" in spec}
    flags = {(f.kind, f.agents) for f in similarity_flags(rows, sources)}
    assert flags == {
        (SAME_NORMALISED, tuple(sorted((f"{DENSEST}:DensestScan", renamed)))),
        (SAME_CODE, tuple(sorted((f"{RAW}:RawObservation", same)))),
        (SAME_PLAY, tuple(sorted(("greedy", wrapper)))),  # different code, the same play
    }


def test_without_the_sources_the_renamed_copy_is_not_seen_and_the_clones_still_are(played):
    _, rows, (renamed, same, wrapper) = played
    kinds = {f.kind: f for f in similarity_flags(rows)}
    assert set(kinds) == {SAME_CODE, SAME_PLAY}
    assert "identical actions on all 6 games both played to the end (2 maps)" == kinds[SAME_PLAY].evidence


def test_distinct_agents_are_not_flagged_and_a_copy_alone_is_not_a_pair(played):
    _, rows, copies = played
    sources = {spec: spec.rpartition(":")[0] for spec in DISTINCT if ":" in spec}
    assert similarity_flags([r for r in rows if r.agent in DISTINCT], sources) == []
    assert similarity_flags([r for r in rows if r.agent == copies[0]]) == []


def test_too_few_shared_games_say_nothing_about_play(played):
    _, rows, (_, _, wrapper) = played
    pair = [r for r in rows if r.agent in ("greedy", wrapper)]
    assert [f.kind for f in similarity_flags(pair, min_games=6)] == [SAME_PLAY]
    assert similarity_flags(pair, min_games=7) == []


def test_the_report_shows_the_flags_as_flags(played, tmp_path):
    folder, _, (renamed, same, wrapper) = played
    result = CliRunner().invoke(cli, ["bench", "--db", str(folder / "r.sqlite"), "--report"])
    assert result.exit_code == 0, result.output
    section = result.stdout.partition("\nSimilarity flags")[2]
    assert section.startswith(" (for you to look at; a flag is not a verdict):\n")
    lines = section.splitlines()[2:]
    assert len(lines) == 3
    assert lines[0].startswith("same code ") and same in lines[0] and "file:" in lines[0]
    assert lines[1].startswith("same code once normalised ") and renamed in lines[1]
    assert lines[2].startswith("same play ") and wrapper in lines[2] and "identical actions on all 6" in lines[2]


def test_a_report_without_flags_has_no_such_section(tmp_path):
    options = BenchOptions(agents=("logic", "random"), maps=MAPS[:1], games=5, isolation="none")
    run_tournament(options, tmp_path / "r.sqlite", jobs=1)
    result = CliRunner().invoke(cli, ["bench", "--db", str(tmp_path / "r.sqlite"), "--report"])
    assert result.exit_code == 0 and "rank" in result.stdout
    assert "Similarity" not in result.stdout


def test_a_submission_changed_since_its_games_is_compared_by_digest_only(played, tmp_path):
    _, rows, _ = played
    agent = tmp_path / "ann.py"
    agent.write_bytes(RAW.read_bytes())
    options = BenchOptions(agents=(f"{agent}:RawObservation",), maps=MAPS[:1], games=1, isolation="none")
    mine = run_tournament(options, tmp_path / "r.sqlite", jobs=1).rows
    assert set(submission_sources(mine)[0]) == {f"{agent}:RawObservation"}
    agent.write_text("# edited\n" + RAW.read_text())
    found, notes = submission_sources(mine)
    assert found == {} and notes == [f"{agent}:RawObservation: {agent} changed since its games: "
                                     "its code is compared by digest only"]
    agent.unlink()
    assert submission_sources(mine)[1] == [f"{agent}:RawObservation: {agent} is not here: "
                                           "its code is compared by digest only"]


def test_folders_are_compared_over_all_their_python_files_and_programs_by_bytes(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    (one / "pkg").mkdir(parents=True)
    (two / "lib").mkdir(parents=True)
    (one / "agent.py").write_text("from .pkg.helpers import step\n\nclass Agent:\n    def act(self, obs):\n"
                                  "        return step(obs)\n")
    (one / "pkg" / "helpers.py").write_text("def step(obs):\n    k = 2  # two\n    return k\n")
    (two / "main.py").write_text("from .lib.util import move\n\nclass Bot:\n    def act(self, o):\n"
                                 "        return move(o)\n")
    (two / "lib" / "util.py").write_text('def move(o):\n    """Go."""\n    n = 2\n    return n\n')
    assert code_print(one) == code_print(two) and code_print(one).normalised
    (two / "lib" / "util.py").write_text("def move(o):\n    n = 3\n    return n\n")  # another constant
    assert code_print(one) != code_print(two)
    program = tmp_path / "agent.bin"
    program.write_bytes(b"\x7fELF not python")
    assert not code_print(program).normalised and "exact bytes only" in code_print(program).note
    broken = tmp_path / "broken.py"
    broken.write_text("def (:\n")
    assert code_print(broken).digest.startswith("bytes:") and "not Python that parses" in code_print(broken).note


def test_the_play_digest_is_the_actions_only():
    from treasure_cli.rules.events import AgentMoved, AreaScanned, HintVerified, TurnStarted
    from treasure_cli.rules.grid import Direction

    moved = [TurnStarted(1), AgentMoved(1, Direction.N, 1, (5, 5), (4, 5)), AreaScanned(1, (4, 5), 3, False),
             HintVerified(1, 2, True)]
    assert play_digest(moved) == play_digest([e for e in moved if not isinstance(e, TurnStarted)])
    assert play_digest(moved) != play_digest(moved[:2] + [AreaScanned(1, (4, 5), 5, False)] + moved[3:])
    assert play_digest(moved) != play_digest([moved[0], HintVerified(1, 2, True), *moved[1:3]])


def test_a_store_of_schema_3_is_upgraded_and_its_old_rows_are_not_compared(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    for step in (1, 2, 3):
        db.executescript(MIGRATIONS[step])
    db.execute("PRAGMA user_version = 3")
    db.execute("PRAGMA application_id = 1414677843")
    for agent in ("a.py:A", "b.py:B"):
        for seed in range(6):
            db.execute("INSERT INTO games (agent, agent_digest, settings, map_path, map_digest, game_index, seed,"
                       " size, outcome, reason, turns, seconds, program_version, finished_at) VALUES "
                       "(?, 'file:1', '{}', 'M.txt', 'abcd', ?, ?, '16x16', 'WIN', 'found', 3, 0.1, '0.3.0', '')",
                       (agent, seed, seed))
    db.close()
    with Store(path) as store:
        rows = store.rows()
    assert len(rows) == 12 and {r.play_digest for r in rows} == {None}
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert [f.kind for f in similarity_flags(rows)] == [SAME_CODE]  # by digest, never by play


def test_the_two_plays_of_the_wrapper_are_the_same_games_as_greedys(played):
    _, rows, (_, _, wrapper) = played
    mine = {(r.map_digest, r.seed): r.play_digest for r in rows if r.agent == wrapper}
    greedy = {(r.map_digest, r.seed): r.play_digest for r in rows if r.agent == "greedy"}
    random = {(r.map_digest, r.seed): r.play_digest for r in rows if r.agent == "random"}
    assert mine == greedy and len(mine) == 6 and all(mine.values())
    assert all(random[g] != greedy[g] for g in greedy)


def test_a_failed_game_has_no_play_digest(tmp_path):
    (tmp_path / "boom.py").write_text(textwrap.dedent("""
        class Boom:
            def act(self, obs):
                raise RuntimeError("boom")
    """))
    options = BenchOptions(agents=(f"{tmp_path / 'boom.py'}:Boom",), maps=MAPS[:1], games=1, isolation="none")
    row, = run_tournament(options, tmp_path / "r.sqlite", jobs=1).rows
    assert row.outcome == "failed" and row.play_digest is None


def test_tournament_md_shows_what_the_report_prints(tmp_path, monkeypatch):
    """The doc's example, played as it says (in this process, for speed: flags do not depend on it)."""
    doc = (ROOT / "docs" / "tournament.md").read_text()
    play = re.search(r"```\n(treasure bench --agents logic,greedy,students/.*?)```", doc, flags=re.S).group(1)
    shown = re.search(r"```\n\$ treasure bench --db results.sqlite --report\n\.\.\.\n(Similarity flags.*?)```",
                      doc, flags=re.S).group(1)
    (tmp_path / "students").mkdir()
    (tmp_path / "students" / "ann.py").write_bytes(DENSEST.read_bytes())
    (tmp_path / "students" / "bob.py").write_bytes(RAW.read_bytes())
    (tmp_path / "students" / "cyd.py").write_bytes(RAW.read_bytes())
    (tmp_path / "students" / "dan.py").write_text(renamed_copy(DENSEST.read_text()))
    (tmp_path / "students" / "eve.py").write_text(WRAPPER)
    shutil.copytree(ROOT / "input", tmp_path / "input")
    monkeypatch.chdir(tmp_path)
    args = play.replace("\\\n", " ").split()[1:] + ["--agent-isolation", "none"]
    assert CliRunner().invoke(cli, args).exit_code == 0
    report = CliRunner().invoke(cli, ["bench", "--db", "results.sqlite", "--report"])
    assert report.exit_code == 0
    flags = report.stdout[report.stdout.index("Similarity flags"):]
    assert flags.partition("the store's secret base seed: ")[0] == shown  # the seed differs from store to store


def test_programs_are_told_apart_by_their_paths_and_two_copies_of_one_are_flagged():
    from treasure_cli.grading.store import Row

    def row(agent: str, digest: str, seed: int) -> Row:
        return Row(agent, digest, "{}", "M.txt", "abcd", seed, seed, "16x16", "LOSE", "pirate", None, 9, 0.1,
                   "0.3.0", play_digest=f"{agent}-{seed}")

    rows = [row(agent, digest, seed) for seed in range(6)
            for agent, digest in (("exec:ann/agent", "exec:1"), ("exec:bob/agent --fast", "exec:1"),
                                  ("exec:cyd/agent", "exec:2"), ("exec:cyd/agent --slow", "exec:2"))]
    flags = similarity_flags(rows)
    assert [(f.kind, f.agents) for f in flags] == [(SAME_CODE, ("exec:ann/agent", "exec:bob/agent --fast"))]
