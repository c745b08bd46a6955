"""The tournament: same games as bench, recorded once, resumed, ranked honestly."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
import sys

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.play.bench import BenchOptions, run_bench
from treasure_cli.grading.store import Row, Store
from treasure_cli.play.records import settings_key
from treasure_cli.grading.tournament import leaderboard, run_tournament, sign_test

MAPS = tuple(str(p) for p in sorted((ROOT / "input").glob("MAP_*.txt"))[:2])  # 16x16, 32x32
STUDENT = "from treasure_cli.agents.greedy import GreedyAgent\n\nclass Student(GreedyAgent):\n    version = {v}\n"


def untimed(row: Row) -> Row:
    return dataclasses.replace(row, seconds=0.0, finished_at="", id=None)


@pytest.fixture
def student(tmp_path):
    path = tmp_path / "student.py"
    path.write_text(STUDENT.format(v=1))
    return path


def test_a_tournament_plays_the_games_of_bench_and_records_each_once(tmp_path, student):
    options = BenchOptions(agents=("logic", "random", f"{student}:Student"), maps=MAPS, games=4, seed=3)
    result = run_tournament(options, tmp_path / "r.sqlite", jobs=2)
    bench = run_bench(options, jobs=1)
    assert result.played == len(bench.records) == 24 and result.already == 0
    mine = [(r.agent, r.seed, r.outcome, r.reason, r.turns, r.game_index) for r in result.rows]
    theirs = [(r.agent, r.seed, r.outcome, r.reason, r.turns, r.index) for r in bench.records]
    assert mine == theirs
    with Store(tmp_path / "r.sqlite") as store:
        assert len(store) == 24
        assert {r.agent_digest.split(":")[0] for r in store.rows()} == {"package", "file"}


def test_a_rerun_plays_only_what_is_missing(tmp_path, student):
    db = tmp_path / "r.sqlite"
    options = BenchOptions(agents=("logic", f"{student}:Student"), maps=MAPS, games=3)
    first = run_tournament(options, db)
    again = run_tournament(options, db)
    assert (again.played, again.already) == (0, 12)
    assert [untimed(r) for r in again.rows] == [untimed(r) for r in first.rows]
    more = run_tournament(dataclasses.replace(options, games=5), db)
    assert (more.played, more.already) == (8, 12)
    other = run_tournament(dataclasses.replace(options, truth_rate=0.9), db)  # other settings: other games
    assert other.played == 12


def test_a_resubmitted_agent_is_played_again_and_ranked_by_its_latest_code(tmp_path, student):
    db = tmp_path / "r.sqlite"
    options = BenchOptions(agents=("random", f"{student}:Student"), maps=MAPS, games=3)
    run_tournament(options, db)
    student.write_text(STUDENT.format(v=2))
    second = run_tournament(options, db)
    assert (second.played, second.already) == (6, 6)  # only the student's games
    with Store(db) as store:
        rows = store.rows()
    assert len(rows) == 18 and len({r.agent_digest for r in rows if r.agent.endswith(":Student")}) == 2
    board = leaderboard(rows)
    assert [s.games for s in board.standings] == [6, 6]
    latest = [s for s in board.standings if s.spec.endswith(":Student")][0]
    assert latest.agent_digest == rows[-1].agent_digest
    assert len(leaderboard(rows, all_versions=True).standings) == 3


def test_the_sign_test_is_exact():
    assert sign_test(0, 0) == 1.0 and sign_test(5, 5) == 1.0
    assert sign_test(10, 0) == sign_test(0, 10) == 2 / 1024
    assert sign_test(9, 1) == pytest.approx(2 * 11 / 1024)
    assert sign_test(6, 0) == 0.03125 and sign_test(5, 0) == 0.0625  # 5 lone wins are not enough at 5 %


def fake(agent: str, seed: int, won: bool, digest: str = "package:x", id_: int = 0) -> Row:
    return Row(agent, digest, "{}", "M.txt", "d", seed, seed, "16x16", "WIN" if won else "LOSE",
               "found" if won else "pirate", None, 4 if won else 9, 0.0, "0", "", id_ or seed)


def test_agents_a_little_apart_share_a_rank_and_clear_gaps_do_not():
    rows = ([fake("a", s, True) for s in range(40)]
            + [fake("b", s, s != 7) for s in range(40)]          # one game fewer than a
            + [fake("c", s, s < 20) for s in range(40)])         # 20 fewer: really worse
    board = leaderboard(rows)
    assert [(s.agent, s.rank, s.wins) for s in board.standings] == [("a", 1, 40), ("b", 1, 39), ("c", 3, 20)]
    pair = {(p.a, p.b): p for p in board.pairs}
    assert (pair["a", "b"].a_only, pair["a", "b"].b_only, pair["a", "b"].distinguishable) == (1, 0, False)
    assert pair["a", "c"].distinguishable and pair["b", "c"].distinguishable
    assert pair["a", "c"].p_value == sign_test(20, 0)


def test_tournament_and_report_from_the_command_line(tmp_path, student, monkeypatch):
    monkeypatch.chdir(tmp_path)
    maps = tmp_path / "hidden"
    maps.mkdir()
    for m in MAPS:
        shutil.copy(m, maps)
    # A seed of its own: with the store's secret one, random's six games were drawn anew each run,
    # and a lucky run ranked it above the student.
    args = ["tournament", f"{student.name}:Student", "--with", "logic,random", "--maps", "hidden", "--games", "3",
            "--db", "r.sqlite", "--jobs", "1", "--seed", "3"]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert "18 games played in" in first.output and "0 already in r.sqlite" in first.output
    again = CliRunner().invoke(cli, args + ["--json"])
    assert again.exit_code == 0
    assert len(json.loads(again.stdout)["games"]) == 18
    assert "18 games already in r.sqlite; 0 to play" in again.stderr
    report = CliRunner().invoke(cli, ["tournament", "--db", "r.sqlite", "--report"])
    assert report.exit_code == 0, report.output
    lines = report.output.splitlines()
    assert lines[0].split()[:4] == ["rank", "agent", "code", "games"]
    assert "exact sign test" in report.output and "18 games;" in report.output
    data = json.loads(CliRunner().invoke(cli, ["tournament", "--db", "r.sqlite", "--report", "--json"]).stdout)
    assert [s["games"] for s in data["standings"]] == [6, 6, 6] and len(data["pairs"]) == 3
    assert data["standings"][-1]["agent"] == "random"
    other = CliRunner().invoke(cli, ["tournament", "--db", "r.sqlite", "--report", "--truth-rate", "0.9"])
    assert other.exit_code == 1 and "holds no game played with --truth-rate 0.9" in other.output
    assert "it holds games played with --truth-rate 0.5" in other.output


def test_the_report_finds_the_store_s_options_or_lists_them(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "input", tmp_path / "input")
    monkeypatch.chdir(tmp_path)
    common = ["tournament", "--with", "random", "--maps", "input/MAP_01.txt", "--games", "1", "--db", "r.sqlite"]
    assert CliRunner().invoke(cli, common + ["--game-timeout", "9", "--max-turns", "50"]).exit_code == 0
    found = CliRunner().invoke(cli, ["tournament", "--db", "r.sqlite", "--report"])  # no option repeated
    assert found.exit_code == 0 and "1 game;" in found.output
    assert CliRunner().invoke(cli, common + ["--truth-rate", "0.7"]).exit_code == 0
    several = CliRunner().invoke(cli, ["tournament", "--db", "r.sqlite", "--report"])
    assert several.exit_code == 1
    assert ("holds games played with 2 sets of options; say which with `--truth-rate 0.5 --max-turns 50 "
            "--game-timeout 9` or with `--truth-rate 0.7`") in several.output
    chosen = CliRunner().invoke(cli, ["tournament", "--db", "r.sqlite", "--report", "--truth-rate", "0.7"])
    assert chosen.exit_code == 0 and "1 game;" in chosen.output


def test_bench_db_still_plays_a_tournament_and_points_to_the_new_command(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "input", tmp_path / "input")
    monkeypatch.chdir(tmp_path)
    old = CliRunner().invoke(cli, ["bench", "--agents", "random", "--maps", "input/MAP_01.txt", "--games", "1",
                                   "--db", "r.sqlite", "--json"])
    assert old.exit_code == 0 and len(json.loads(old.stdout)["games"]) == 1
    assert "warning: `bench --db`, `--report` and `--scheduler` are now `treasure tournament`" in old.stderr
    new = CliRunner().invoke(cli, ["tournament", "--with", "random", "--maps", "input/MAP_01.txt", "--games", "1",
                                   "--db", "r.sqlite"])
    assert "1 game already in r.sqlite; 0 to play" in new.stderr  # the same store, the same game
    assert "--db" not in CliRunner().invoke(cli, ["bench", "--help"]).output


@pytest.mark.parametrize("args, message", [
    (["--report"], "Missing option '--db'"),
    (["--all-versions", "--db", "x.sqlite"], "--all-versions, --html and --csv go with --report"),
    (["--db", "x.sqlite", "--with", "logic"], "give the maps to play with --maps DIR"),
    (["--db", "x.sqlite", "--maps", "input"], "no agent to play"),
    (["--db", "x.sqlite", "--report", "--with", "logic"], "--report plays nothing"),
    (["--db", "x.sqlite", "--maps", "input", "--with", "logic,logic"], "an agent is given twice"),
    (["--scheduler", "tcp://127.0.0.1:1", "--maps", "input", "--db", "x.sqlite", "--game-timeout", "1",
      "--with", "logic,examples/densest_scan.py:DensestScan", "--agent-isolation", "none"],
     "--game-timeout needs agents in processes of their own with --scheduler"),
])
def test_tournament_options_that_do_not_go_together(args, message, tmp_path, monkeypatch):
    shutil.copytree(ROOT / "input", tmp_path / "input")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["tournament", *args])
    assert result.exit_code == 2 and message in result.output


def test_without_dask_the_scheduler_option_says_what_to_install(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "input", tmp_path / "input")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now raises ImportError
    result = CliRunner().invoke(cli, ["tournament", "--with", "logic", "--maps", "input", "--games", "1",
                                      "--db", "r.sqlite", "--scheduler", "tcp://127.0.0.1:1"])
    assert result.exit_code == 1
    assert "Error: playing on a Dask cluster needs dask.distributed" in result.output
    assert "pip install 'treasure-cli[dask]'" in result.output
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 0


def test_settings_are_part_of_the_key():
    assert settings_key(0.5, None, None) != settings_key(0.5, 40, None) != settings_key(0.5, None, 2.0)


def test_a_file_nested_too_deep_to_parse_is_left_out_and_never_stops_the_report(tmp_path):
    """A long flat expression (1 + 1 + ...) is valid Python that the parser, or the similarity
    check's walk of it, cannot take: such a file is left out, or kept by its bytes, never a crash."""
    subs = tmp_path / "subs"
    subs.mkdir()
    for n in (1500, 5000):
        (subs / f"deep{n}.py").write_text("from treasure_cli import LargeScan\nx = " + "+".join(["1"] * n)
                                          + "\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n")
    db = str(tmp_path / "r.sqlite")
    played = CliRunner().invoke(cli, ["tournament", str(subs), "--maps", str(ROOT / "input" / "MAP_01.txt"),
                                      "--games", "1", "--db", db])
    assert played.exception is None or isinstance(played.exception, SystemExit), played.output
    # How deep the parser and the compiler go depends on the Python version and the stack: where
    # they take 5000 terms, the file plays, or fails to load in the agent's host (a failed game).
    left_out = f"left out: {subs / 'deep5000.py'}: Python cannot parse it (RecursionError" in played.stderr
    # Left out, it still has its row (its verdict and why), scoring zero; else it played.
    assert played.exit_code in (0, 1) and ("deep5000  left out  Python cannot parse it" in played.stdout) == left_out
    report = CliRunner().invoke(cli, ["tournament", "--db", db, "--report"])
    assert report.exit_code == 0, report.output
    assert "deep1500" in report.stdout and "deep5000" in report.stdout
    assert ("left out: Python cannot parse it" in report.stdout) == left_out


SCANNER = """#!/bin/sh
while read line; do
  case "$line" in
    *'"hello"'*) echo '{"type": "hello", "protocol": 1}' ;;
    *'"act"'*) echo '{"type": "action", "action": "scan"}' ;;
    *'"end"'*) echo '{"type": "ready"}' ;;
    *'"bye"'*) exit 0 ;;
  esac
done
"""


def test_a_programs_name_is_one_word_whatever_its_spaces_and_quotes(tmp_path):
    """Course exports name folders 'Bob Smith/': a program's path is one word of its command
    line, and a file named 'dan --help' plays itself, not dan's program with an argument."""
    subs = tmp_path / "subs"
    (subs / "bob smith").mkdir(parents=True)
    for where in ("bob smith/prog", "dan", "dan --help", "it's"):
        (subs / where).write_text(SCANNER)
        (subs / where).chmod(0o755)
    (subs / "dan --help").write_text(SCANNER + "# not dan's bytes\n")
    db = str(tmp_path / "r.sqlite")
    played = CliRunner().invoke(cli, ["tournament", str(subs), "--maps", str(ROOT / "input" / "MAP_01.txt"),
                                      "--games", "1", "--max-turns", "2", "--db", db, "--json"])
    assert played.exit_code == 0, played.output
    games = json.loads(played.stdout)["games"]
    assert sorted(g["agent"] for g in games) == ["bob smith", "dan", "dan --help", "it's"]
    assert not any(g["outcome"] == "failed" for g in games)
    with Store(db) as store:
        codes = {r.agent.rpartition("/")[2]: r.agent_digest for r in store.rows()}
    assert codes["dan --help'"] != codes["dan"]  # its own bytes played


def timed(agent: str, seed: int, turns: int | None) -> Row:
    """A game won in `turns` turns (None: lost)."""
    won = turns is not None
    return Row(agent, "package:x", "{}", "M.txt", "d", seed, seed, "16x16", "WIN" if won else "LOSE",
               "found" if won else "pirate", None, turns if won else 9, 0.0, "0", "", seed + 1)


def test_an_agent_with_the_same_wins_but_fewer_turns_ranks_higher():
    # slow and quick win the same 10 of 12 games; quick wins each in fewer turns: rank 1 against rank 2
    rows = ([timed("slow", s, None if s >= 10 else 8) for s in range(12)]
            + [timed("quick", s, None if s >= 10 else 5) for s in range(12)]
            + [timed("twin", s, None if s >= 10 else 5) for s in range(12)])
    board = leaderboard(rows)
    assert [(s.agent, s.rank, s.wins, s.above_wins, s.above_turns) for s in board.standings] == [
        ("quick", 1, 10, 0, 0), ("twin", 1, 10, 0, 0), ("slow", 3, 10, 0, 2)]
    pair = {(p.a, p.b): p for p in board.pairs}
    assert pair["quick", "slow"].decided_by == "turns" and pair["quick", "slow"].better == "quick"
    assert (pair["quick", "slow"].both_won, pair["quick", "slow"].a_faster, pair["quick", "slow"].b_faster) == (
        10, 10, 0)
    assert pair["quick", "slow"].turns_p_value == sign_test(10, 0)
    assert not pair["quick", "twin"].distinguishable  # as many wins in as many turns: a tie, never a rank apart


def test_wins_come_before_turns():
    # fast wins 6 games in 2 turns and loses 14; many wins 20 games in 9 turns: many ranks first
    rows = ([timed("fast", s, 2 if s < 6 else None) for s in range(20)]
            + [timed("many", s, 9) for s in range(20)])
    board = leaderboard(rows)
    assert [(s.agent, s.rank) for s in board.standings] == [("many", 1), ("fast", 2)]
    pair = board.pairs[0]
    assert pair.decided_by == "wins" and pair.better == "many" and pair.a_faster == 0 and pair.b_faster == 6


def test_a_few_faster_wins_are_not_enough_to_tell_two_agents_apart():
    rows = ([timed("a", s, 5) for s in range(5)] + [timed("b", s, 6) for s in range(5)])
    board = leaderboard(rows)
    assert [s.rank for s in board.standings] == [1, 1]  # 5 of 5 faster: p = 0.0625
