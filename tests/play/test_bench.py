"""`treasure bench`: fair, deterministic comparisons and their summary."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from click.testing import CliRunner

from treasure_cli.play import bench
from treasure_cli.agents.registry import agent_names
from treasure_cli.play.bench import BenchOptions, iter_tasks, make_tasks, run_bench, task_island, wilson_interval
from treasure_cli.play.records import GameRecord
from treasure_cli.cli import cli
from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.map_file import format_map, write_map
from treasure_cli.play.games import build_game

SMALL = BenchOptions(agents=("random", "greedy", "logic"), sizes=(12, 10), games=4, seed=5)


def untimed(records: tuple[GameRecord, ...]) -> list[GameRecord]:
    return [dataclasses.replace(r, seconds=0.0) for r in records]


# -- statistics ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("wins", "games", "low", "high"),
    [
        (8, 10, 0.4902, 0.9433),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (50, 100, 0.4038, 0.5962),
        (1, 3, 0.0615, 0.7923),
    ],
)
def test_wilson_interval_on_known_values(wins, games, low, high):
    lo, hi = wilson_interval(wins, games)
    assert lo == pytest.approx(low, abs=1e-4) and hi == pytest.approx(high, abs=1e-4)


def test_wilson_interval_is_exact_at_the_ends_and_uninformative_without_games():
    assert wilson_interval(0, 7)[0] == 0.0
    assert wilson_interval(7, 7)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_summary_counts_turns_over_won_games_only():
    def rec(outcome, reason, turns):
        return GameRecord("logic", "bench-8x8-0", "8x8", 2, outcome, reason, turns, 0.01 * turns)

    [s] = bench.summarize([rec("WIN", "found", 3), rec("WIN", "found", 6), rec("LOSE", "pirate", 20),
                           rec("LOSE", "timeout", 64)], ["logic"])
    assert (s.games, s.wins, s.lost_to_pirate, s.timeouts) == (4, 2, 1, 1)
    assert s.mean_turns_win == 4.5 and s.median_turns_win == 4.5
    assert s.median_ms_game == pytest.approx(10 * (6 + 20) / 2)
    assert s.median_ms_turn == pytest.approx(10.0)


# -- determinism and fairness ------------------------------------------------
def test_same_seed_same_records_whatever_the_number_of_jobs():
    one = run_bench(SMALL, jobs=1)
    two = run_bench(SMALL, jobs=2)
    assert untimed(one.records) == untimed(two.records)
    assert len(one.records) == 2 * 4 * 3
    other = run_bench(dataclasses.replace(SMALL, seed=6), jobs=1)
    assert untimed(other.records) != untimed(one.records)


def test_every_agent_plays_the_same_islands_and_setups():
    records = run_bench(SMALL).records
    by_island: dict[tuple[str, int], set] = {}
    for r in records:
        by_island.setdefault((r.size, r.index), set()).add((r.island_seed, r.seed))
    assert len(by_island) == 2 * 4 and all(len(v) == 1 for v in by_island.values())
    for task in make_tasks(SMALL)[:3]:
        island = task_island(task, SMALL)
        assert island == task_island(task, SMALL)
        setups = {(g.prison, g.position) for g in
                  (build_game(island, a, task.game_seed)[0] for a in SMALL.agents)}
        assert len(setups) == 1  # same pirate prison and agent start for every agent


def test_an_island_depends_only_on_seed_size_and_index():
    wide = make_tasks(dataclasses.replace(SMALL, sizes=(10, 12, 16), games=6))
    narrow = make_tasks(dataclasses.replace(SMALL, sizes=(12,), games=2))
    assert narrow == [t for t in wide if t.width == 12][:2]


def test_a_bench_island_is_rebuilt_by_treasure_generate():
    task = make_tasks(dataclasses.replace(SMALL, sizes=(12,), games=1))[0]
    result = CliRunner().invoke(cli, ["generate", "--size", "12", "--seed", str(task.island_seed)])
    assert result.exit_code == 0, result.output
    assert result.output == format_map(task_island(task, SMALL))


# -- the command -------------------------------------------------------------
def test_bench_table_layout():
    args = ["bench", "--games", "3", "--sizes", "12", "--agents", "random,greedy", "--no-timing"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert result.output == (
        "size   agent   games  wins  win %      95% CI  mean turns  median turns\n"
        "12x12  random      3     0    0.0    0.0-56.1           -             -\n"
        "12x12  greedy      3     3  100.0  43.9-100.0         5.3           4.0\n"
    )
    again = CliRunner().invoke(cli, args + ["--jobs", "2"])
    assert again.output == result.output


def test_bench_with_timing_adds_the_time_columns_and_a_total():
    result = CliRunner().invoke(cli, ["bench", "--games", "2", "--sizes", "8", "--agents", "logic", "-j", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[-2:] == ["ms/game", "ms/turn"]
    assert lines[1].split()[:2] == ["8x8", "logic"] and len(lines[1].split()) == 10
    assert lines[2].startswith("2 games in ")


def test_bench_json_holds_stats_and_games():
    args = ["bench", "--games", "2", "--sizes", "8,10", "--agents", "greedy,random", "--json"]
    data = json.loads(CliRunner().invoke(cli, args).output)
    assert [(s["size"], s["agent"]) for s in data["stats"]] == [
        ("8x8", "greedy"), ("8x8", "random"), ("10x10", "greedy"), ("10x10", "random"),
        ("all", "greedy"), ("all", "random")]
    pooled = data["stats"][-2]
    assert pooled["games"] == 4 and pooled["wins"] == data["stats"][0]["wins"] + data["stats"][2]["wins"]
    assert len(data["games"]) == 8 and data["options"]["games"] == 2
    assert {"win_low", "win_high", "median_ms_turn", "lost_to_pirate"} <= set(data["stats"][0])
    assert "seconds" in data["games"][0] and "seconds" in data
    bare = json.loads(CliRunner().invoke(cli, args + ["--no-timing"]).output)
    assert "seconds" not in bare and "seconds" not in bare["games"][0]
    assert "median_ms_game" not in bare["stats"][0]


def test_bench_on_a_folder_of_maps(tmp_path):
    for name, size, seed in (("MAP_a.txt", 10, 1), ("MAP_b.txt", 12, 2)):
        write_map(generate_island(size, size, rng=np.random.default_rng(seed)), tmp_path / name)
    (tmp_path / "notes.md").write_text("not a map")
    args = ["bench", "--maps", str(tmp_path), "--games", "2", "--agents", "logic,random", "--json"]
    data = json.loads(CliRunner().invoke(cli, args).output)
    assert [(s["size"], s["agent"], s["games"]) for s in data["stats"]] == [
        ("10x10", "logic", 2), ("10x10", "random", 2), ("12x12", "logic", 2), ("12x12", "random", 2),
        ("all", "logic", 4), ("all", "random", 4)]
    assert {g["map"] for g in data["games"]} == {"MAP_a.txt", "MAP_b.txt"}
    assert all(g["island_seed"] is None for g in data["games"])
    # Adding a map changes no other map's games.
    write_map(generate_island(8, 8, rng=np.random.default_rng(3)), tmp_path / "MAP_c.txt")
    more = json.loads(CliRunner().invoke(cli, args).output)
    old = {(g["map"], g["index"], g["agent"]): (g["seed"], g["outcome"], g["turns"]) for g in data["games"]}
    new = {(g["map"], g["index"], g["agent"]): (g["seed"], g["outcome"], g["turns"]) for g in more["games"]}
    assert all(new[k] == v for k, v in old.items())


def test_bench_rejects_a_broken_map(tmp_path):
    (tmp_path / "MAP_x.txt").write_text("5 5\n2\n4\n")
    result = CliRunner().invoke(cli, ["bench", "--maps", str(tmp_path), "--games", "1"])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: no map could be played:\n{tmp_path / 'MAP_x.txt'}:")


def test_bench_leaves_out_maps_it_cannot_play_and_benches_the_rest(tmp_path):
    (tmp_path / "MAP_bad.txt").write_text("5 5\n2\n4\n")
    # valid, but the only walkable tiles are the prison and the treasure
    (tmp_path / "MAP_tiny.txt").write_text("4 3\n2\n4\n2\n1 1\n0;0;0;0\n0;1;1P;0\n0;0;0;0\n")
    write_map(generate_island(10, 10, rng=np.random.default_rng(1)), tmp_path / "MAP_ok.txt")
    result = CliRunner().invoke(cli, ["bench", "--maps", str(tmp_path), "--games", "2", "--agents", "logic",
                                      "--no-timing"])
    assert result.exit_code == 1
    assert f"Error: {tmp_path / 'MAP_bad.txt'}:" in result.stderr
    assert f"Error: {tmp_path / 'MAP_tiny.txt'}: no tile for the agent to start on" in result.stderr
    assert result.stdout.splitlines()[1].startswith("10x10  logic      2")
    check = CliRunner().invoke(cli, ["check", str(tmp_path / "MAP_tiny.txt")])
    assert check.exit_code == 1 and "no tile for the agent to start on" in check.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agents", "x"], "Error: Invalid value for --agents: unknown agent 'x'; give a built-in name ("
                            + ", ".join(agent_names()) + "), package.module:Class, path/to/file.py:Class"),
        (["--agents", "logic,oracle,nope"], "unknown agent 'nope'"),
        (["--sizes", "16,abc"], "Error: Invalid value for --sizes"),
        (["--sizes", "3"], "sizes must be between 5 and 4096"),
        (["--maps", ".", "--sizes", "16"], "do not combine it with --sizes"),
        (["--games", "0"], "Error: Invalid value for '--games'"),
    ],
)
def test_bench_usage_errors(args, message):
    result = CliRunner().invoke(cli, ["bench", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_chunks_keep_every_task_in_order_and_bound_their_size():
    from treasure_cli.play.bench import CHUNK_TILES, chunked
    options = BenchOptions(agents=("logic",), sizes=(16, 32, 200), games=23)
    tasks = list(iter_tasks(options))
    for most in (1, 3, 8, 100):
        chunks = list(chunked(iter(tasks), most))
        assert [t for c in chunks for t in c] == tasks
        for c in chunks:
            assert 1 <= len(c) <= most
            assert len(c) == 1 or sum(t.width * t.height for _, t in c) <= CHUNK_TILES


def test_chunked_pool_gives_the_same_records_as_one_process():
    options = BenchOptions(agents=("logic", "random"), sizes=(16, 24), games=21, seed=5)
    one, two = run_bench(options, jobs=1), run_bench(options, jobs=2)
    assert [dataclasses.replace(r, seconds=0) for r in one.records] == \
           [dataclasses.replace(r, seconds=0) for r in two.records]


def test_the_plan_counts_only_the_maps_that_can_be_played_and_progress_reaches_it(tmp_path):
    from helpers import ROOT

    good = [ROOT / "input" / "MAP_01.txt", ROOT / "input" / "MAP_02.txt"]
    bad = tmp_path / "broken.txt"
    bad.write_text("not a map\n")
    options = BenchOptions(agents=("logic", "greedy"), maps=(str(good[0]), str(bad), str(good[1])), games=3)
    plans, progress = [], []
    result = run_bench(options, on_plan=plans.append, on_progress=progress.append)
    assert plans == [2 * 3 * 2] == [bench.total_games(result.options)]
    assert sum(progress) == plans[0] == len(result.records)
    assert len(result.skipped) == 1


def test_maps_of_subfolders_are_named_by_their_path_under_maps_as_the_tournament_names_them(tmp_path, monkeypatch):
    """Two maps with one file name, in two subfolders: bench --json names each by its path under
    --maps (as a tournament's rows do), in its games and its --versus pairs, not both MAP_01.txt."""
    import shutil

    from helpers import ROOT

    monkeypatch.chdir(tmp_path)
    for sub, source in (("s16", "MAP_01.txt"), ("s32", "MAP_02.txt")):
        (tmp_path / "hidden" / sub).mkdir(parents=True)
        shutil.copy(ROOT / "input" / source, tmp_path / "hidden" / sub / "MAP_01.txt")
    for how in (["--maps", "hidden", "--recursive"], ["--maps", "hidden/**/*.txt"]):
        played = CliRunner().invoke(cli, ["bench", "--agents", "greedy,random", *how, "--games", "3", "--jobs", "1",
                                          "--json", "--keep-logs", "kept", "--versus", "greedy"])
        assert played.exit_code == 0, played.output
        data = json.loads(played.stdout)
        assert sorted({g["map"] for g in data["games"]}) == ["s16/MAP_01.txt", "s32/MAP_01.txt"], how
        assert {(g["map"], g["size"]) for g in data["games"]} == {("s16/MAP_01.txt", "16x16"),
                                                                   ("s32/MAP_01.txt", "32x32")}
        # the head-to-head pairs name their map the same way (bench's default seed: greedy and random part ways)
        assert data["versus"] and all(p["map"] in ("s16/MAP_01.txt", "s32/MAP_01.txt") for p in data["versus"])
    tournament = CliRunner().invoke(cli, ["tournament", "--with", "greedy", "--maps", "hidden", "--games", "1",
                                          "--seed", "3", "--db", "r.sqlite", "--json"])
    assert tournament.exit_code == 0, tournament.output
    assert sorted(g["map"] for g in json.loads(tournament.stdout)["games"]) == ["s16/MAP_01.txt", "s32/MAP_01.txt"]
