"""`tournament --dry-run` estimates the time (grading/estimate.py): from the store's history of
an agent at the level it will play at, else from the default per map size, and says which."""

from __future__ import annotations

from click.testing import CliRunner

from treasure_cli.cli import cli
from treasure_cli.grading import estimate
from treasure_cli.grading.store import Row, Store
from treasure_cli.grading.submissions import find_submissions

AGENT = "from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"


def stored(spec: str, isolation: str, seconds: float, n: int) -> list[Row]:
    return [Row(spec, "file:x", "{}", "MAP_01.txt", f"map{isolation}", i, 1000 + i, "16x16", "WIN", "found", None, 3,
                seconds, "0", isolation=isolation) for i in range(n)]


def test_the_dry_run_estimates_from_the_store_s_history_at_that_level_else_the_default(tmp_path, monkeypatch):
    monkeypatch.setattr(estimate, "RUN_START_SECONDS", 0.0)
    monkeypatch.setattr(estimate, "HOST_START_SECONDS", 0.0)
    monkeypatch.setattr(estimate, "OVERHEAD_SECONDS", 0.0)
    monkeypatch.setattr(estimate, "DEFAULT_SECONDS", {16: 20.0, 32: 80.0})
    klass = tmp_path / "class"
    for group in ("ann", "bob"):
        (klass / group).mkdir(parents=True)
        (klass / group / "agent.py").write_text(AGENT)
    maps = tmp_path / "hidden"
    done = CliRunner().invoke(cli, ["generate", "--size", "16", "--count", "2", "--seed", "1", "--output-dir", str(maps)])
    assert done.exit_code == 0, done.output
    (ann,), _ = find_submissions([str(klass / "ann")])
    db = tmp_path / "results.sqlite"
    with Store(db) as store:  # ann: 60 s a game in processes of its own; 1000 s in the sandbox (another level)
        store.add(*stored(ann.spec, "process", 50.0, 2), *stored(ann.spec, "process", 70.0, 2),
                  *stored(ann.spec, "sandbox", 1000.0, 3))
    before = db.read_bytes()
    done = CliRunner().invoke(cli, ["tournament", str(klass), "--maps", str(maps), "--games", "3", "--db", str(db),
                                    "--dry-run", "--agent-isolation", "process", "--jobs", "2"])
    assert done.exit_code == 0, done.output
    # ann: 60 s x 6 games, bob: 20 s (16x16) x 6 games, on 2 workers: 240 s.
    assert ("estimated time: about 4 min with 2 workers for 12 games, from the store's history of 1 agent and "
            "the default per map size for bob (the store has none of its games at this level)") in done.output
    assert db.read_bytes() == before  # read, not written
    done = CliRunner().invoke(cli, ["tournament", str(klass), "--maps", str(maps), "--games", "3",
                                    "--db", str(tmp_path / "none.sqlite"), "--dry-run", "--agent-isolation", "process",
                                    "--jobs", "1"])
    assert done.exit_code == 0 and "estimated time: about 4 min with 1 worker for 12 games, from the default per " \
        "map size for ann, bob (the store has none of their games at this level)" in done.output, done.output
    assert not (tmp_path / "none.sqlite").exists()


def test_the_default_follows_the_map_s_area_between_and_beyond_the_sizes_measured(monkeypatch):
    monkeypatch.setattr(estimate, "DEFAULT_SECONDS", {16: 1.0, 32: 4.0})
    assert estimate.default_seconds(16 * 16) == 1.0 and estimate.default_seconds(32 * 32) == 4.0
    assert estimate.default_seconds(24 * 24) == 1.0 + 3.0 * (576 - 256) / (1024 - 256)
    assert estimate.default_seconds(8 * 8) == 1.0  # never below the smallest measured
    assert estimate.default_seconds(64 * 64) == 1.0 + 3.0 * (4096 - 256) / (1024 - 256)


def test_each_agent_in_a_process_of_its_own_adds_its_host_s_start(tmp_path, monkeypatch):
    monkeypatch.setattr(estimate, "RUN_START_SECONDS", 2.0)
    monkeypatch.setattr(estimate, "HOST_START_SECONDS", 10.0)
    monkeypatch.setattr(estimate, "DEFAULT_SECONDS", {16: 1.0, 32: 1.0})
    said = estimate.estimate(tmp_path / "none.sqlite", ["ann.py:Agent", "exec:bob", "greedy"], {}, "process",
                             [256, 256], 5, 2)
    assert said.seconds == 2.0 + 2 * 10.0 + 3 * 10 * 1.0 / 2  # greedy plays in the worker's own process
    at_none = estimate.estimate(tmp_path / "none.sqlite", ["ann.py:Agent", "exec:bob", "greedy"], {}, "none",
                                [256, 256], 5, 2)
    assert at_none.seconds == 2.0 + 1 * 10.0 + 3 * 10 * 1.0 / 2  # ann in the referee's process; a program never
