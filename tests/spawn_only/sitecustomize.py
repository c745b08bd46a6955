"""A platform without fork and SIGALRM, for the `spawn_only` session of noxfile.py.

On PYTHONPATH with TREASURE_TEST_SPAWN_ONLY=1, every Python process of the test run (pytest
and the `treasure` commands it starts) loses os.fork and the timer signal at start-up, as
on Windows: whatever still forks or sets an alarm fails loudly. Worker pools start by
spawn (TREASURE_CLI_START_METHOD). Without the variable this file does nothing.
"""

import os

if os.environ.get("TREASURE_TEST_SPAWN_ONLY") == "1":
    import multiprocessing
    import signal

    def _no_fork(*args, **kwargs):
        raise RuntimeError("os.fork is forbidden in this run (TREASURE_TEST_SPAWN_ONLY)")

    os.fork = _no_fork
    if hasattr(os, "forkpty"):
        os.forkpty = _no_fork
    for name in ("SIGALRM", "alarm", "setitimer", "getitimer", "ITIMER_REAL"):
        if hasattr(signal, name):
            delattr(signal, name)
    os.environ["TREASURE_CLI_START_METHOD"] = "spawn"
    multiprocessing.set_start_method("spawn", force=True)
