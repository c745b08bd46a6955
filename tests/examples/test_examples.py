"""The agents in examples/ work as the README says: run (two processes), bench, replay."""

from __future__ import annotations

import ast
import json

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

EXAMPLES = {"densest_scan.py": "DensestScan", "raw_observation.py": "RawObservation"}


@pytest.mark.parametrize("name", EXAMPLES)
def test_an_example_runs_benches_and_replays(tmp_path, name):
    spec = f"{ROOT / 'examples' / name}:{EXAMPLES[name]}"
    maps = sorted((ROOT / "input").glob("MAP_0[123].txt"))
    for path in maps:
        (tmp_path / "in").mkdir(exist_ok=True)
        (tmp_path / "in" / path.name).write_text(path.read_text())
    run = CliRunner().invoke(cli, ["run", str(tmp_path / "in"), str(tmp_path / "out"), "--agent", spec,
                                   "--jobs", "2"])
    assert run.exit_code == 0, run.output
    assert run.output.splitlines()[-1].startswith("3 played, ")
    bench = CliRunner().invoke(cli, ["bench", "--agents", f"logic,{spec}", "--sizes", "16", "--games", "20",
                                     "--jobs", "2", "--json"])
    assert bench.exit_code == 0, bench.output
    stats = {s["agent"]: s for s in json.loads(bench.stdout)["stats"]}
    assert stats[spec]["games"] == 20 and stats[spec]["failed"] == 0 and stats[spec]["wins"] >= 10
    replay = CliRunner().invoke(cli, ["replay", str(tmp_path / "out" / "LOG_01.txt"), "--map",
                                      str(tmp_path / "in" / "MAP_01.txt"), "--no-pause", "--no-color"])
    assert replay.exit_code == 0, replay.output
    assert f"agent {spec}" in replay.output and "game over" in replay.output


def test_the_first_example_stays_short_enough_to_read():
    source = (ROOT / "examples" / "densest_scan.py").read_text()
    assert len(source.splitlines()) <= 60
    ast.parse(source)
