"""write_text_atomic: the file appears whole or not at all, in folders that may not exist yet."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


def test_the_temp_file_is_owner_only_until_whole_and_named_for_the_stale_file_sweep(tmp_path, monkeypatch):
    seen = []
    real_write = atomic.os.write

    def write(fd, data):
        temp = Path(os.readlink(f"/proc/self/fd/{fd}"))
        seen.append((temp, os.fstat(fd).st_mode & 0o777))
        return real_write(fd, data)

    monkeypatch.setattr(atomic.os, "write", write)
    write_text_atomic(tmp_path / "LOG_7.txt", "text\n")
    monkeypatch.undo()
    [(temp, mode)] = seen
    assert mode == 0o600
    assert temp.parent == tmp_path and temp.match(atomic.temp_prefix("LOG_*") + "*" + atomic.TEMP_SUFFIX)
    assert not temp.exists() and (tmp_path / "LOG_7.txt").read_text() == "text\n"


def reference_write_text_atomic(path, text: str) -> None:
    """The mkstemp version write_text_atomic replaced (the same files, modes and errors)."""
    path = Path(path)
    if str(path) in ("", ".") or os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    data = text.encode("utf-8")
    try:
        fd, tmp = tempfile.mkstemp(prefix=atomic.temp_prefix(path.name), suffix=atomic.TEMP_SUFFIX, dir=path.parent)
    except (FileNotFoundError, NotADirectoryError):
        atomic.ensure_folder(path.parent)
        fd, tmp = tempfile.mkstemp(prefix=atomic.temp_prefix(path.name), suffix=atomic.TEMP_SUFFIX, dir=path.parent)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.chmod(tmp, 0o666 & ~atomic._umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def outcome(write, root: Path, target: str, text: str):
    """What `write` leaves under `root` (every path, its mode and bytes) or the error it raises."""
    cwd = os.getcwd()
    os.chdir(root)  # relative targets are relative to root
    try:
        write(target, text)
        error = None
    except OSError as exc:
        error = (type(exc), exc.errno, exc.strerror, exc.filename)
    finally:
        os.chdir(cwd)
    files = {str(p.relative_to(root)): (p.is_dir(), p.stat().st_mode, None if p.is_dir() else p.read_bytes())
             for p in sorted(root.rglob("*"))}
    return error, files


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=st.lists(st.sampled_from(["LOG_1.txt", "a", "b", ".", "x.tmp"]), min_size=1, max_size=3)
       .map("/".join).flatmap(lambda p: st.sampled_from([p, p + "/", "./" + p, p.replace("/", "//")])),
       text=st.text(max_size=300), old=st.sampled_from([None, "old", "dir", "file-in-the-way"]))
def test_writes_what_the_mkstemp_version_wrote(tmp_path_factory, target, text, old):
    """Same files, modes, contents and errors as the replaced version, for relative, odd and
    existing targets (an old file, a folder in the place of the file or of its folder)."""
    results = []
    for write in (reference_write_text_atomic, write_text_atomic):
        root = tmp_path_factory.mktemp("w")
        where = Path(os.path.normpath(root / target))
        if where == root:
            pass
        elif old == "old":
            where.parent.mkdir(parents=True, exist_ok=True)
            where.write_text("before")
        elif old == "dir":
            where.mkdir(parents=True)
        elif old == "file-in-the-way" and where.parent != root:
            where.parent.parent.mkdir(parents=True, exist_ok=True)
            where.parent.write_text("in the way")
        results.append(outcome(write, root, target, text))
    assert results[0] == results[1]


def test_a_pipe_is_written_to_not_replaced(tmp_path):
    """`--svg /dev/null`, `--html /dev/stdout`, a named pipe: renaming a temp file over one would
    replace it with a regular file (as root, /dev/null itself). A named pipe stands for them here
    (making a device needs root)."""
    import os
    import stat

    pipe = tmp_path / "out.svg"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # open first, so the writer does not wait
    try:
        write_text_atomic(pipe, "<svg/>\n")
        assert stat.S_ISFIFO(os.stat(pipe).st_mode)
        assert os.read(reader, 100) == b"<svg/>\n"
    finally:
        os.close(reader)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.svg"]  # no temp file left


def test_a_socket_is_refused(tmp_path):
    import socket

    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(OSError, match="not a file"):
            write_text_atomic(path, "x")
