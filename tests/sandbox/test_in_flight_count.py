"""A warm host counts its user's descriptors in flight after each game (sandbox/warm_host.py,
`_in_flight`) by sending them until refused. A socket's buffer holds a few hundred such messages:
with a blocking socket, a host allowed 1,024 open files waited for ever in that count, and each of
its games' reaps ran out the referee's 5 s (tests/security/test_game_groups.py plays such hosts)."""

from __future__ import annotations

import subprocess
import sys

import pytest

COUNT = """
import resource
from treasure_cli.sandbox.warm_host import _in_flight

resource.setrlimit(resource.RLIMIT_NOFILE, ({files}, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
print(_in_flight())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Unix sockets' descriptors in flight: Linux's count")
@pytest.mark.parametrize("files", [32, 1024, 4096])
def test_the_count_of_descriptors_in_flight_ends_whatever_the_open_file_limit(files):
    counted = subprocess.run([sys.executable, "-c", COUNT.format(files=files)], capture_output=True, text=True,
                             timeout=30)
    assert counted.returncode == 0, counted.stderr
    assert counted.stdout.split() == ["0"], counted.stdout  # nothing of this process's user left in flight
