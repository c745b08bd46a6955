"""The `spawn_only` session (noxfile.py) really runs without fork and SIGALRM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

SPAWN_ONLY = os.environ.get("TREASURE_TEST_SPAWN_ONLY") == "1"


@pytest.mark.skipif(not SPAWN_ONLY, reason="only in the spawn_only session (TREASURE_TEST_SPAWN_ONLY=1)")
def test_fork_and_the_timer_signal_are_gone_here_and_in_the_commands_started():
    with pytest.raises(RuntimeError, match="forbidden"):
        os.fork()
    assert not hasattr(signal, "SIGALRM") and not hasattr(signal, "setitimer")
    probe = "import os, signal; print(hasattr(signal, 'SIGALRM'), os.environ['TREASURE_CLI_START_METHOD'])"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "spawn"]
