"""A group's build is kept for reruns in the referee's temporary folder: once built it belongs to
the referee and no one else can write to it, so no local user can swap the program a rerun plays."""

from __future__ import annotations

import os
import stat
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from treasure_cli.sandbox import languages

SOURCE = "int main() { return 0; }\n"
MAKEFILE = "treasure-agent: agent.cpp\n\tmkdir -p out\n\tg++ -o treasure-agent agent.cpp\n"


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    """Builds kept under this test's own temporary folder."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return tmp_path / "tmp"


def group(folder: Path) -> Path:
    folder.mkdir()
    (folder / "agent.cpp").write_text(SOURCE)
    (folder / "Makefile").write_text(MAKEFILE)
    return folder


def writable_by_others(work: Path) -> list[str]:
    found = []
    for top, folders, files in os.walk(work):
        for path in [top, *(os.path.join(top, n) for n in folders + files)]:
            st = os.lstat(path)
            if not stat.S_ISLNK(st.st_mode) and (st.st_mode & 0o022 or st.st_uid != os.geteuid()):
                found.append(f"{os.path.relpath(path, work)} {oct(st.st_mode)} uid {st.st_uid}")
    return found


def test_a_built_group_is_the_referees_and_writable_by_no_one_else(tmp_path, own_tmp):
    built = languages.build(group(tmp_path / "g"), languages.BY_NAME["make"])
    assert built.verdict == "" and built.program is not None, built.verdict
    work = built.program.parent
    assert writable_by_others(work) == []
    assert os.access(built.program, os.X_OK)


def test_a_kept_build_someone_opened_is_built_again_not_played(tmp_path, own_tmp):
    first = languages.build(group(tmp_path / "g"), languages.BY_NAME["make"])
    assert first.program is not None
    os.chmod(first.program, 0o777)  # as if another user had been given the chance to swap it
    first.program.write_bytes(b"#!/bin/sh\necho swapped\n")  # ... and had taken it
    again = languages.build(tmp_path / "g", languages.BY_NAME["make"])
    # A fresh build (not told by its inode: the file system may give the new file the old one's number).
    assert again.program is not None and b"swapped" not in again.program.read_bytes()
    assert writable_by_others(again.program.parent) == []


def test_a_builds_folder_made_by_someone_else_is_refused(tmp_path, own_tmp):
    elsewhere = tmp_path / "theirs"
    elsewhere.mkdir()
    (own_tmp / f"treasure-cli-builds-{os.getuid()}").symlink_to(elsewhere)
    built = languages.build(group(tmp_path / "g"), languages.BY_NAME["make"])
    assert built.program is None and "not this user's own folder" in built.verdict
    assert list(elsewhere.iterdir()) == []


def test_two_runs_building_the_same_source_at_once_both_get_the_one_build(tmp_path, own_tmp):
    # A build that takes a while: a second run that removed the first's copy under it broke both.
    slow = "treasure-agent: agent.cpp\n\tsleep 1\n\tg++ -o treasure-agent agent.cpp\n\techo built >> builds.txt\n"
    folder = group(tmp_path / "g")
    (folder / "Makefile").write_text(slow)
    with ThreadPoolExecutor(2) as pool:
        built = list(pool.map(lambda _: languages.build(folder, languages.BY_NAME["make"]), range(2)))
    assert [b.verdict for b in built] == ["", ""], [b.verdict for b in built]
    assert built[0].program == built[1].program and built[0].program is not None
    assert (built[0].program.parent / "builds.txt").read_text() == "built\n"  # made once
