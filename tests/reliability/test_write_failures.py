"""A log that cannot be written fails its own game; the others are written and nothing is half-written."""

from __future__ import annotations

import errno
import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.formats import atomic
from treasure_cli.formats.game_record import read_log

MAPS = sorted((ROOT / "input").glob("MAP_0[123].txt"))


def folder(tmp_path):
    (tmp_path / "in").mkdir()
    for path in MAPS:
        shutil.copy(path, tmp_path / "in" / path.name)
    return tmp_path / "in"


def test_a_full_disk_fails_the_log_it_stops_and_keeps_the_earlier_ones(tmp_path, monkeypatch):
    maps, out = folder(tmp_path), tmp_path / "out"
    real_write = atomic.os.write

    def write(fd, data):
        """LOG_02's bytes stop half-way, as on a full disk; other files are written."""
        if "LOG_02" in atomic.os.readlink(f"/proc/self/fd/{fd}"):
            real_write(fd, bytes(data[: len(data) // 2]))
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(atomic.os, "write", write)
    r = CliRunner().invoke(cli, ["run", str(maps), str(out)])
    assert r.exit_code == 1
    assert f"Error: {out / 'LOG_02.txt'}: cannot write the log: No space left on device" in r.stderr
    assert "MAP_02.txt  32x32  failed (write-error)" in r.stdout
    assert r.stdout.splitlines()[-1].endswith(" lost, 1 failed")
    assert sorted(p.name for p in out.iterdir()) == ["LOG_01.txt", "LOG_03.txt"]  # no half log, no temp file
    for name in ("LOG_01.txt", "LOG_03.txt"):
        read_log(out / name)


def test_a_folder_where_a_log_should_go_fails_that_log_only(tmp_path):
    maps, out = folder(tmp_path), tmp_path / "out"
    (out / "LOG_01.txt").mkdir(parents=True)
    r = CliRunner().invoke(cli, ["run", str(maps), str(out), "--jobs", "2"])
    assert r.exit_code == 1
    assert f"Error: {out / 'LOG_01.txt'}: cannot write the log: is a folder, not a file" in r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["LOG_01.txt", "LOG_02.txt", "LOG_03.txt"]
    assert (out / "LOG_01.txt").is_dir()


def test_an_earlier_log_survives_a_failed_rewrite(tmp_path, monkeypatch):
    maps, out = folder(tmp_path), tmp_path / "out"
    assert CliRunner().invoke(cli, ["run", str(maps), str(out)]).exit_code == 0
    before = (out / "LOG_03.txt").read_text()

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(atomic.os, "replace", refuse)
    r = CliRunner().invoke(cli, ["run", str(maps), str(out), "--seed", "4"])
    assert r.exit_code == 1 and r.stdout.splitlines()[-1] == "0 played, 0 won, 0 lost, 3 failed"
    assert (out / "LOG_03.txt").read_text() == before
    assert sorted(p.name for p in out.iterdir()) == ["LOG_01.txt", "LOG_02.txt", "LOG_03.txt"]
