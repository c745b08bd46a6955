"""Memory follows the input's real size, and workers follow the work there is."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

from treasure_cli.play.executor import run_tasks

# A valid 3x1 map whose region numbers are near 2**31.
HUGE_REGIONS = "3 1\n2\n4\n2147483600\n0 0\n2147483600;2147483500P;2147483600\n"


def limited(args: list[str], cwd, megabytes: int = 700) -> subprocess.CompletedProcess:
    """Run the command with its address space capped, as a small machine would."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))

    return subprocess.run([sys.executable, "-m", "treasure_cli", *args], cwd=cwd, capture_output=True,
                          text=True, preexec_fn=cap)


def test_region_numbers_near_two_to_the_31_cost_no_table_that_large(tmp_path):
    (tmp_path / "MAP_r.txt").write_text(HUGE_REGIONS)
    run = limited(["run", "MAP_r.txt", "out"], tmp_path)
    assert run.returncode == 0, run.stderr
    for extra in (["--no-pause", "--no-color"], ["--html", "page.html"], ["--turn", "1", "--svg", "f.svg"]):
        replay = limited(["replay", "out/LOG_r.txt", *extra], tmp_path)
        assert replay.returncode == 0, (extra, replay.stderr)


def test_a_map_of_random_bytes_is_refused_without_reading_it_all(tmp_path):
    with open(tmp_path / "MAP_z.txt", "wb") as fh:
        fh.write(b"8 8\n")
        fh.write(os.urandom(1 << 20))
    r = limited(["check", "MAP_z.txt"], tmp_path, megabytes=400)
    assert r.returncode == 1 and "more than a 8x8 map can take" in r.stdout


def _pid() -> int:
    return os.getpid()


def test_never_more_workers_than_tasks():
    pids = {pid for _, pid in run_tasks(_pid, [()] * 3, jobs=100)}
    assert 1 <= len(pids) <= 3 and os.getpid() not in pids
