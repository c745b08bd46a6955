"""A tournament's games come from a base seed no agent can know: the results store's own secret."""

from __future__ import annotations

import json
import shutil
import sqlite3

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.grading.store import Store


def bench(*args: str):
    return CliRunner().invoke(cli, ["bench", "--agents", "logic,random", "--maps", "maps", "--games", "2",
                                    "--no-timing", *args])


def tournament(*args: str):
    return CliRunner().invoke(cli, ["tournament", "--with", "logic,random", "--maps", "maps", "--games", "2",
                                    "--no-timing", *args])


def seeds(result) -> list[int]:
    return [g["seed"] for g in json.loads(result.stdout)["games"]]


def test_a_new_store_draws_a_secret_seed_keeps_it_and_resumes_with_it(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "input", tmp_path / "maps")
    monkeypatch.chdir(tmp_path)
    first = tournament("--db", "a.sqlite", "--json")
    assert first.exit_code == 0 and "warning" not in first.stderr
    with Store("a.sqlite") as store:
        secret = store.secret_seed()
    assert secret is not None and secret not in (0, 1)
    # The games are not those of any known seed: not bench's default, nor the same as another store's.
    assert seeds(first) != seeds(bench("--json"))
    assert seeds(tournament("--db", "b.sqlite", "--json")) != seeds(first)
    # They are those of the secret seed, given by hand (and then with a warning).
    by_hand = bench("--seed", str(secret), "--json")
    assert seeds(by_hand) == seeds(first)
    # A rerun plays nothing new: the same seed, so the same games, all in the store already.
    again = tournament("--db", "a.sqlite", "--json")
    assert seeds(again) == seeds(first) and "20 games already in a.sqlite; 0 to play" in again.stderr
    # The report shows the seed to the one who runs it.
    report = CliRunner().invoke(cli, ["tournament", "--db", "a.sqlite", "--report"])
    assert f"the store's secret base seed: {secret}" in report.stdout


def test_a_known_seed_is_used_as_given_with_a_warning(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "input", tmp_path / "maps")
    monkeypatch.chdir(tmp_path)
    given = tournament("--db", "c.sqlite", "--seed", "7", "--json")
    assert given.exit_code == 0
    assert given.stderr.count("warning: --seed 7 is known") == 1
    assert seeds(given) == seeds(bench("--seed", "7", "--json"))


def test_a_store_of_an_earlier_version_keeps_its_known_seed_and_says_so(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "input", tmp_path / "maps")
    monkeypatch.chdir(tmp_path)
    old = tournament("--db", "old.sqlite", "--seed", "1", "--json")
    assert old.exit_code == 0
    with sqlite3.connect("old.sqlite") as db:  # as if version 0.2 had played them
        db.execute("UPDATE games SET program_version = '0.2.0'")
    resumed = tournament("--db", "old.sqlite", "--json")
    assert seeds(resumed) == seeds(old) and "0 to play" in resumed.stderr
    assert "played from the known base seed 1; start a new store" in resumed.stderr
