"""The command line keeps numpy's BLAS to one thread unless the user says otherwise (cli/__init__.py)."""

from __future__ import annotations

import os
import subprocess
import sys

SHOW = ("import sys, os, treasure_cli.cli\n"
        "print('numpy' in sys.modules, os.environ['OPENBLAS_NUM_THREADS'], os.environ['MKL_NUM_THREADS'])")


def _show(**extra: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    return subprocess.run([sys.executable, "-c", SHOW], env={**env, **extra}, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_one_blas_thread_is_set_before_numpy_loads():
    assert _show() == "False 1 1"


def test_a_thread_count_the_user_set_is_kept():
    assert _show(OPENBLAS_NUM_THREADS="3") == "False 3 1"
