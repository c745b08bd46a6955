"""The referee's own code in a child process under a memory and a time limit: where a stranger's
files are parsed (grading/tokens.py), so that a file made to be costly costs that child only."""

from __future__ import annotations

import functools
import subprocess
import sys


def run_limited(argv: list[str], request: str, memory: int, seconds: float) -> subprocess.CompletedProcess[str]:
    """`argv` run with `request` on its standard input and its output captured as text, its
    address space capped at `memory` bytes (not on Windows, which has no such limit) and killed
    after `seconds` (subprocess.TimeoutExpired, as subprocess.run raises it)."""
    limit = functools.partial(_address_space, memory) if sys.platform != "win32" else None
    return subprocess.run(argv, input=request, capture_output=True, text=True, timeout=seconds, preexec_fn=limit)


def _address_space(memory: int) -> None:  # pragma: no cover  (runs in the child, before exec)
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
