"""What real hand-ins carry besides the agent: a virtual environment, a script saved with Windows
line endings, archives of other kinds. Each gets the verdict a teacher would give it."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
from pathlib import Path

from helpers import verdicts

from treasure_cli.grading.submissions import find_submissions
from treasure_cli.sandbox import tree

AGENT = "from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"


def test_a_virtual_environment_beside_the_agent_neither_counts_nor_is_copied(tmp_path):
    group = tmp_path / "class" / "g1"
    group.mkdir(parents=True)
    (group / "agent.py").write_text(AGENT)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(group / "venv")], check=True)
    for i in range(30):  # what a venv with packages holds, in small
        (group / "venv" / "lib" / f"pkg{i}.py").write_text(AGENT)
    listed = [str(rel) for rel, _ in tree.files(group, max_files=5)]
    assert listed == ["agent.py"]
    assert verdicts(tmp_path / "class") == {"g1": "python agent.py"}


def test_a_script_saved_with_windows_line_endings_is_left_out_with_why(tmp_path):
    for name in ("g1", "g2"):
        (tmp_path / "class" / name).mkdir(parents=True)
    crlf = tmp_path / "class" / "g1" / "run.sh"
    crlf.write_bytes(b"#!/bin/sh\r\nexec ./bot\r\n")
    crlf.chmod(0o755)
    fine = tmp_path / "class" / "g2" / "run.sh"
    fine.write_bytes(b"#!/bin/sh\nexec ./bot\n")
    fine.chmod(0o755)
    said = verdicts(tmp_path / "class")
    assert "ends with a carriage return" in said["g1"] and "Unix (LF) line endings" in said["g1"]
    assert said["g2"] == "program run.sh"


def test_archives_of_every_tar_kind_unpack_and_others_are_named(tmp_path):
    klass = tmp_path / "class"
    klass.mkdir()
    for name, mode in (("g1.tar", "w"), ("g2.tar.xz", "w:xz"), ("g3.tar.bz2", "w:bz2")):
        with tarfile.open(klass / name, mode) as t:
            data = AGENT.encode()
            info = tarfile.TarInfo("agent.py")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    (klass / "g4.rar").write_bytes(b"Rar!\x1a\x07\x00" + bytes(100))
    (klass / "g5.7z").write_bytes(b"7z\xbc\xaf\x27\x1c" + bytes(100))
    found, left_out = find_submissions([str(klass)])
    assert sorted(s.name for s in found) == ["g1", "g2", "g3"]
    reasons = {x.name: x.reason for x in left_out}
    assert "a .rar archive, which is not unpacked" in reasons["g4.rar"]
    assert "a .7z archive, which is not unpacked" in reasons["g5.7z"]


def test_a_cap_counts_no_file_of_a_virtual_environment(tmp_path: Path):
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "venv" / "big.bin").write_bytes(bytes(1 << 20))
    (tmp_path / "agent.py").write_text(AGENT)
    assert [str(r) for r, _ in tree.files(tmp_path, max_bytes=1 << 19)] == ["agent.py"]


def test_unpacking_a_class_again_keeps_the_folder_a_running_tournament_plays_from(tmp_path, monkeypatch):
    """A --dry-run or check-agent while the tournament plays unpacks every archive again: the folder
    the games read from stays where it is, its files untouched (it was replaced, and emptied)."""
    import os
    import tempfile
    import zipfile

    from treasure_cli.grading import archives

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    archive = tmp_path / "g1.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("agent.py", AGENT)
    first = archives.unpack(archive)
    held = os.stat(first / "agent.py")
    with open(first / "agent.py") as reading:  # a game's copy being made from it
        second = archives.unpack(archive)
        assert second == first and reading.read() == AGENT
    again = os.stat(first / "agent.py")
    assert (again.st_ino, again.st_dev) == (held.st_ino, held.st_dev)
    assert not [n for n in os.listdir(first.parent) if n.startswith(".")]  # the second unpack left nothing
