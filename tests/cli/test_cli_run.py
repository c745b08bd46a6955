"""`treasure run`: the batch job, its logs, its summary and its failures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import GOLDEN, ROOT

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import read_log

SHIPPED = sorted((ROOT / "input").glob("MAP_*.txt"))


@pytest.fixture
def in_root(monkeypatch):
    """Run from the repository root, as `make run` does, so logs record input/MAP_xx.txt."""
    monkeypatch.chdir(ROOT)


def test_shipped_maps_match_the_golden_logs(in_root, tmp_path):
    """CI diffs logs this way; `make golden` rewrites them on purpose."""
    assert len(SHIPPED) == 5
    result = CliRunner().invoke(cli, ["run", "input/", str(tmp_path)])
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == [f"LOG_0{i}.txt" for i in range(1, 6)]
    for name in written:
        assert (tmp_path / name).read_bytes() == (GOLDEN / name).read_bytes(), name
        read_log(tmp_path / name)  # and each one parses


def test_same_seed_same_logs_other_seed_other_logs(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    for p in SHIPPED[:2]:
        shutil.copy(p, maps / p.name)
    outs = []
    for seed, folder in ((3, "a"), (3, "b"), (4, "c")):
        r = CliRunner().invoke(cli, ["run", str(maps), str(tmp_path / folder), "--seed", str(seed)])
        assert r.exit_code == 0, r.output
        outs.append({p.name: p.read_bytes() for p in (tmp_path / folder).iterdir()})
    assert outs[0] == outs[1]
    assert all(outs[0][k] != outs[2][k] for k in outs[0])


def test_jobs_do_not_change_the_logs(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    for p in SHIPPED[:3]:
        shutil.copy(p, maps / p.name)
    for jobs in ("1", "2"):
        r = CliRunner().invoke(cli, ["run", str(maps), str(tmp_path / jobs), "--jobs", jobs])
        assert r.exit_code == 0, r.output
    one = {p.name: p.read_bytes() for p in (tmp_path / "1").iterdir()}
    two = {p.name: p.read_bytes() for p in (tmp_path / "2").iterdir()}
    assert one == two and len(one) == 3


def test_a_broken_map_fails_alone(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    shutil.copy(SHIPPED[0], maps / "MAP_01.txt")
    lines = SHIPPED[0].read_text().splitlines()
    lines[7] = lines[7] + "; 1"  # one cell too many on the third map row
    (maps / "MAP_02.txt").write_text("\n".join(lines) + "\n")
    (maps / "island.txt").write_text(SHIPPED[0].read_text())
    r = CliRunner().invoke(cli, ["run", str(maps), str(tmp_path / "out")])
    assert r.exit_code == 1
    width = lines[0].split()[0]
    assert f"Error: {maps / 'MAP_02.txt'}:8:" in r.output
    assert f"row 2 has {int(width) + 1} cells, expected {width}" in r.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["LOG_01.txt", "LOG_island.txt"]
    table = r.output.splitlines()
    assert table[-1].startswith("2 played, ") and table[-1].endswith(" 1 failed")
    assert any(line.startswith("MAP_02.txt") and "failed (bad-map)" in line for line in table)


def test_json_summary_and_table(tmp_path):
    r = CliRunner().invoke(cli, ["run", str(SHIPPED[0]), str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert len(rows) == 1
    row = rows[0]
    assert row["outcome"] in ("WIN", "LOSE") and row["size"] == "16x16" and row["error"] is None
    assert Path(row["log"]).name == "LOG_01.txt"
    log = (tmp_path / "LOG_01.txt").read_text().splitlines()
    assert log[1] == row["outcome"] and int(log[2]) == row["turns"]

    r = CliRunner().invoke(cli, ["run", str(SHIPPED[0]), str(tmp_path)])
    header, line, total, replaced = r.output.splitlines()
    assert replaced == f"1 log of an earlier run replaced in {tmp_path}"
    assert header.split() == ["map", "size", "result", "turns", "seconds"]
    assert line.split()[:2] == ["MAP_01.txt", "16x16"]
    assert total.startswith("1 played, ")


def test_options_are_checked(tmp_path):
    r = CliRunner().invoke(cli, ["run", str(SHIPPED[0]), str(tmp_path), "--agent", "psychic"])
    assert r.exit_code == 2 and "unknown agent 'psychic'" in r.output
    r = CliRunner().invoke(cli, ["run", str(SHIPPED[0]), str(tmp_path), "--truth-rate", "2"])
    assert r.exit_code == 2 and "--truth-rate" in r.output
    r = CliRunner().invoke(cli, ["run", str(tmp_path / "nope"), str(tmp_path)])
    assert r.exit_code == 2 and "does not exist" in r.output
    empty = tmp_path / "empty"
    empty.mkdir()
    r = CliRunner().invoke(cli, ["run", str(empty), str(tmp_path / "o")])
    assert r.exit_code == 1 and r.output.startswith("Error: no map files")


def test_run_help_has_an_example():
    r = CliRunner().invoke(cli, ["run", "-h"])
    assert r.exit_code == 0 and "treasure run input/ output/" in r.output


def test_logs_are_written_atomically_with_normal_permissions(tmp_path):
    import os
    import stat

    r = CliRunner().invoke(cli, ["run", str(SHIPPED[0]), str(tmp_path)])
    assert r.exit_code == 0
    assert [p.name for p in tmp_path.iterdir()] == ["LOG_01.txt"]  # no temp files left
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "LOG_01.txt").stat().st_mode) == 0o666 & ~umask


def test_step_checks_the_agent_like_a_batch_run():
    r = CliRunner().invoke(cli, ["run", str(SHIPPED[0]), "--step", "--no-pause", "--agent", "psychic"])
    assert r.exit_code == 2 and "unknown agent 'psychic'" in r.output


def test_step_writes_its_log_under_the_asked_name_and_keeps_an_existing_one_with_no_clobber(tmp_path):
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["run", str(SHIPPED[0]), str(out), "--step", "--no-pause", "--log-name", "stem"])
    assert r.exit_code == 0, r.output
    assert [p.name for p in out.iterdir()] == [f"LOG_{SHIPPED[0].stem}.txt"]
    batch = CliRunner().invoke(cli, ["run", str(SHIPPED[0]), str(tmp_path / "batch"), "--log-name", "stem"])
    assert batch.exit_code == 0
    assert (out / f"LOG_{SHIPPED[0].stem}.txt").read_text() == (
        tmp_path / "batch" / f"LOG_{SHIPPED[0].stem}.txt").read_text()  # the batch's log, byte for byte
    before = (out / f"LOG_{SHIPPED[0].stem}.txt").stat().st_mtime_ns
    again = CliRunner().invoke(cli, ["run", str(SHIPPED[0]), str(out), "--step", "--no-pause", "--log-name", "stem",
                                     "--no-clobber"])
    assert again.exit_code == 2 and "--no-clobber" in again.stderr
    assert (out / f"LOG_{SHIPPED[0].stem}.txt").stat().st_mtime_ns == before
