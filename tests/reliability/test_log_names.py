"""One log per map, always: names that would clash refuse the run; earlier logs are counted or kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.play.runner import log_name

MAP = (ROOT / "input" / "MAP_01.txt").read_text()


def folder(tmp_path: Path, names: list[str]) -> Path:
    (tmp_path / "in").mkdir()
    for name in names:
        (tmp_path / "in" / name).write_text(MAP)
    return tmp_path / "in"


@pytest.mark.parametrize(("name", "log"), [
    ("MAP_01.txt", "LOG_01.txt"), ("MAP01.txt", "LOG_01.txt"), ("map_x.txt", "LOG_x.txt"),
    ("maple.txt", "LOG_maple.txt"), ("Mapping.txt", "LOG_Mapping.txt"), ("MAPS.txt", "LOG_MAPS.txt"),
    ("01.txt", "LOG_01.txt"), ("island.txt", "LOG_island.txt"),
])
def test_log_names(name, log):
    assert log_name(Path(name)) == log
    assert log_name(Path(name), "stem") == f"LOG_{Path(name).stem}.txt"


def test_maps_that_would_share_a_log_refuse_the_whole_run(tmp_path):
    maps = folder(tmp_path, ["MAP_1.txt", "MAP1.txt", "map_1.txt", "Map1.txt", "MAPS.txt"])
    r = CliRunner().invoke(cli, ["run", str(maps), str(tmp_path / "out")])
    assert r.exit_code == 2
    assert r.output.startswith("Error: maps would write the same log, so nothing was played: ")
    assert "would all write LOG_1.txt" in r.output and "(try --log-name stem)" in r.output
    assert not (tmp_path / "out").exists()


def test_names_clash_as_a_case_insensitive_file_system_sees_them(tmp_path):
    maps = folder(tmp_path, ["MAP_a.txt", "MAP_A.txt"])
    r = CliRunner().invoke(cli, ["run", str(maps), str(tmp_path / "out"), "--log-name", "stem"])
    assert r.exit_code == 2 and "would both write LOG_MAP_A.txt" in r.output


def test_stem_naming_gives_every_map_its_log(tmp_path):
    maps = folder(tmp_path, ["MAP_1.txt", "01.txt", "1.txt", "MAPS.txt"])
    assert CliRunner().invoke(cli, ["run", str(maps), str(tmp_path / "out")]).exit_code == 2  # MAP_1 and 1 share LOG_1.txt
    r = CliRunner().invoke(cli, ["run", str(maps), str(tmp_path / "out"), "--log-name", "stem"])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "LOG_01.txt", "LOG_1.txt", "LOG_MAPS.txt", "LOG_MAP_1.txt"]


def test_a_rerun_says_how_many_logs_it_replaced_and_no_clobber_refuses(tmp_path):
    maps = folder(tmp_path, ["MAP_01.txt", "MAP_02.txt"])
    out = tmp_path / "out"
    first = CliRunner().invoke(cli, ["run", str(maps), str(out)])
    assert first.exit_code == 0 and "replaced" not in first.output
    before = {p.name: p.read_text() for p in out.iterdir()}
    again = CliRunner().invoke(cli, ["run", str(maps), str(out), "--seed", "5"])
    assert again.exit_code == 0 and again.output.splitlines()[-1] == f"2 logs of an earlier run replaced in {out}"
    kept = {p.name: p.read_text() for p in out.iterdir()}
    refused = CliRunner().invoke(cli, ["run", str(maps), str(out), "--no-clobber"])
    assert refused.exit_code == 2
    assert "--no-clobber: 2 of the logs this run would write already exist" in refused.output
    assert {p.name: p.read_text() for p in out.iterdir()} == kept != before
