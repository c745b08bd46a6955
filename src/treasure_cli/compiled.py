"""The optional compiled modules, and the one switch that turns them all off.

Four parts of the package have a compiled twin in C, built by `pip install`
or `make install` when a C compiler and Python's headers are at hand
(setup.py): the hint draws (`rules._draws`), the grid searches and the
island's region tables (`rules._grid`), the island generator's random steps
(`islands._gen`) and the logic agent's whole-box passes (`agents._mass`).
Each gives the same results bit for bit as the Python/numpy code beside it,
which stays as the readable reference and the fallback; tests compare the two.

Setting the environment variable TREASURE_CLI_PURE_PYTHON=1 (any value but
empty or "0") asks for the Python code everywhere: the compiled modules are
then not even imported. Each user module says which it runs in `COMPILED`.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

PURE_PYTHON = os.environ.get("TREASURE_CLI_PURE_PYTHON", "") not in ("", "0")


def load(name: str) -> ModuleType | None:
    """The compiled module `name` ("treasure_cli.rules._grid"), or None when
    PURE_PYTHON asks for the Python code or the module was not built."""
    if PURE_PYTHON:
        return None
    try:
        return importlib.import_module(name)
    except ImportError:  # not built: no C compiler when the package was installed
        return None
