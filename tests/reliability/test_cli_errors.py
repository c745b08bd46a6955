"""Every bad input gets one clear line and the right exit status, never a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

MAP = ROOT / "input" / "MAP_01.txt"


@pytest.fixture
def place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a folder")
    shutil.copy(MAP, tmp_path / "MAP_01.txt")
    CliRunner().invoke(cli, ["run", "MAP_01.txt", "out"])
    return tmp_path


@pytest.mark.parametrize(("args", "status", "message"), [
    (["run", "MAP_01.txt", "afile/out"], 1, "Error: afile: is a file, not a folder"),
    (["generate", "-o", "afile/x.txt"], 1, "Error: afile: is a file, not a folder"),
    (["generate", "-o", ""], 2, "Invalid value for -o/--output: the file name is empty"),
    (["generate", "-o", "."], 2, "is a directory"),
    (["run", "MAP_01.txt", "o", "--truth-rate", "nan"], 2, "Invalid value for '--truth-rate': nan is not a number"),
    (["bench", "--truth-rate", "nan"], 2, "Invalid value for '--truth-rate': nan is not a number"),
    (["bench", "--sizes", ""], 2, "Invalid value for --sizes: expected a comma-separated list, got ''"),
    (["replay", "out/LOG_01.txt", "--window", "²x5"], 2, "expected ROWSxCOLS such as 30x60, not '²x5'"),
    (["replay", "out/LOG_01.txt", "--window", "0x5"], 2, "expected ROWSxCOLS"),
    (["check", "/dev/zero"], 1, "/dev/zero: cannot read the file: not a regular file"),
    (["replay", "/dev/zero"], 1, "Error: /dev/zero:1: cannot read the log: not a regular file"),
    (["run", "/dev/zero", "o2"], 1, "Error: /dev/zero: cannot read the file: not a regular file"),
])
def test_a_bad_input_gets_one_clear_line(place, args, status, message):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == status, result.output
    assert message in result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("keys", ["²\nq\n", "9" * 5000 + "\nq\n", "٣\nq\n", ""])
def test_any_key_at_the_replay_prompt_gets_an_answer(place, keys):
    result = CliRunner().invoke(cli, ["replay", "out/LOG_01.txt"], input=keys)
    assert result.exit_code == 0 and isinstance(result.exception, SystemExit) or result.exception is None


def test_a_closed_stdin_ends_the_replay(place):
    r = subprocess.run([sys.executable, "-m", "treasure_cli", "replay", "out/LOG_01.txt"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=place)
    assert r.returncode == 0 and "Traceback" not in r.stderr
    closed = subprocess.run(["bash", "-c", f"{sys.executable} -m treasure_cli replay out/LOG_01.txt <&-"],
                            capture_output=True, text=True, cwd=place)
    assert closed.returncode == 0, closed.stderr
    assert "Traceback" not in closed.stderr


def test_a_closed_pipe_is_not_an_error(place):
    shutil.copy(ROOT / "input" / "MAP_05.txt", place / "MAP_05.txt")
    CliRunner().invoke(cli, ["run", "MAP_05.txt", "out"])  # a long game: far more output than a pipe holds
    shell = f"{sys.executable} -m treasure_cli replay out/LOG_05.txt --no-pause | head -1; echo \"${{PIPESTATUS[0]}}\""
    r = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, cwd=place)
    first, status = r.stdout.splitlines()
    assert first.startswith("MAP_05.txt (128x128 island)") and status == "141"
    assert r.stderr == ""


def test_a_map_with_a_small_header_and_a_huge_body_is_refused_unread(tmp_path):
    big = tmp_path / "MAP_big.txt"
    with open(big, "wb") as fh:
        fh.write(b"5 5\n2\n4\n2\n1 1\n")
        fh.truncate(50_000_000)  # sparse: 50 MB of zeros behind a 5x5 header
    result = CliRunner().invoke(cli, ["check", str(big)])
    assert result.exit_code == 1
    assert f"{big}:1:1: the file has 50000000 bytes, more than a 5x5 map can take" in result.output
    assert os.path.getsize(big) == 50_000_000


@pytest.mark.parametrize(("args", "message"), [
    (["check", "pipe.txt"], "pipe.txt: cannot read the file: not a regular file"),
    (["run", "pipe.txt", "o3"], "failed (bad-map)"),
    (["replay", "pipe.txt", "--map", "MAP_01.txt"], "Error: pipe.txt:1: cannot read the log: not a regular file"),
])
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(place, args, message):
    """Opening a named pipe for reading waits for a writer, perhaps forever: these once hung."""
    os.mkfifo(place / "pipe.txt")
    r = subprocess.run([sys.executable, "-m", "treasure_cli", *args], capture_output=True, text=True,
                       cwd=place, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 1 and message in r.stdout + r.stderr, (r.stdout, r.stderr)


def test_a_named_pipe_among_submissions_is_left_out_without_waiting(place):
    (place / "students").mkdir()
    shutil.copy(ROOT / "examples" / "densest_scan.py", place / "students" / "ann.py")
    os.mkfifo(place / "students" / "eve.py")  # from an archive, say: parsing it would wait forever
    r = subprocess.run([sys.executable, "-m", "treasure_cli", "tournament", "students/", "--maps", "MAP_01.txt",
                        "--games", "1", "--db", "r.sqlite", "--no-timing", "--agent-isolation", "process"],
                       capture_output=True, text=True, cwd=place, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    assert "left out: students/eve.py: not a submission (not a regular file" in r.stderr
    assert "ann" in r.stdout
