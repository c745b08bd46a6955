"""A pipe or a device where `run` writes a log (ninth round).

`write_text_atomic` writes straight through a terminal, a pipe or a character device (so that
`--log /dev/stdout` works). A FIFO named `LOG_01.txt` left in an OUTPUT folder that a student
handed in made `treasure run` block for ever in the open, with signals held while it wrote the
log: SIGTERM and Ctrl-C were deferred and only SIGKILL ended it. A link to a device (`/dev/null`,
or as root one that is worse to write) took the log. Now a run is refused before anything is
played when a log's place is not a file, and a FIFO that no program reads is an error, not a wait."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import threading
import sys

import pytest
from helpers import ROOT

from treasure_cli.formats.atomic import write_text_atomic


def _maps(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", maps / "MAP_01.txt")
    shutil.copy(ROOT / "input" / "MAP_02.txt", maps / "MAP_02.txt")
    return maps


@pytest.mark.parametrize("step", [False, True])
def test_a_fifo_in_the_output_folder_is_refused_not_waited_on(tmp_path, step):
    maps = _maps(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "LOG_01.txt")
    args = [str(maps / "MAP_01.txt"), str(out), "--step", "--no-pause", "--no-color"] if step else [str(maps), str(out)]
    try:
        done = subprocess.run([sys.executable, "-m", "treasure_cli", "run", *args], capture_output=True, text=True,
                              timeout=30, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:  # run() has killed it (SIGKILL): the only signal it heard
        pytest.fail("treasure run blocked on the FIFO for 30 s")
    assert done.returncode == 2, done.stderr  # refused, nothing done
    assert "which is a pipe or a device, not a log: nothing was played" in done.stderr
    assert not (out / "LOG_02.txt").exists()


def test_a_link_to_a_device_in_the_output_folder_is_refused(tmp_path):
    maps = _maps(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "LOG_02.txt").symlink_to("/dev/null")
    done = subprocess.run([sys.executable, "-m", "treasure_cli", "run", str(maps), str(out)], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "LOG_02.txt, which is a pipe or a device" in done.stderr, done.stderr
    assert not (out / "LOG_01.txt").exists()


def test_a_fifo_no_program_reads_is_an_error(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    raised: list[BaseException] = []

    def write() -> None:
        try:
            write_text_atomic(fifo, "a log\n")
        except OSError as exc:
            raised.append(exc)

    # A thread, not SIGALRM: the spawn_only session's platform has no timer signal.
    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    writer.join(10)
    if writer.is_alive():
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # let it go
        writer.join(5)
        pytest.fail("writing a log blocked on a FIFO that nothing reads")
    assert len(raised) == 1 and getattr(raised[0], "errno", None) == errno.ENXIO, raised
