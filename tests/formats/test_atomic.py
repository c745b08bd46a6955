"""write_text_atomic: the file appears whole or not at all, in folders that may not exist yet."""

from __future__ import annotations

import errno
import os

import pytest

from treasure_cli.formats import atomic
from treasure_cli.formats.atomic import write_text_atomic


def test_writes_the_text_with_the_usual_mode_creating_missing_folders(tmp_path):
    target = tmp_path / "a" / "b" / "LOG.txt"
    write_text_atomic(target, "héllo\nwörld\n" * 5000)  # larger than one os.write may take
    assert target.read_bytes() == ("héllo\nwörld\n" * 5000).encode("utf-8")
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    assert sorted(p.name for p in target.parent.iterdir()) == ["LOG.txt"]


def test_a_file_in_the_way_of_the_folder_is_named(tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(NotADirectoryError) as info:
        write_text_atomic(tmp_path / "afile" / "LOG.txt", "text")
    assert info.value.filename == str(tmp_path / "afile")


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "LOG.txt"
    target.write_text("old")

    def short_write(fd, data):
        os.close(os.dup(fd))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "write", short_write)
    with pytest.raises(OSError):
        write_text_atomic(target, "new")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["LOG.txt"]
