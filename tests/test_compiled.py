"""The one switch over the optional compiled modules (treasure_cli.compiled).

Each module's own tests compare it with its Python/numpy twin and check that
the package wires it in; this file checks the switch they share, once for all
four: TREASURE_CLI_PURE_PYTHON set means none is imported, anywhere.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

import pytest

# (compiled module, the package module that uses it)
MODULES = [
    ("treasure_cli.rules._draws", "treasure_cli.rules.draws"),
    ("treasure_cli.rules._grid", "treasure_cli.rules.grid"),
    ("treasure_cli.islands._gen", "treasure_cli.islands.generator"),
    ("treasure_cli.agents._mass", "treasure_cli.agents.mass_kernel"),
]


def _built(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


BUILT = [_built(c) for c, _ in MODULES]

SHOW = ("import sys, importlib\n"
        "from treasure_cli.rules import seeds\n"
        f"pairs = {MODULES!r}\n"
        "print(type(seeds.draws(1, seeds.HINTS, 1)).__qualname__,"
        " *(importlib.import_module(user).COMPILED for _, user in pairs),"
        " *(c in sys.modules for c, _ in pairs))")


@pytest.mark.parametrize("value", ["1", "yes", "0", ""])
def test_the_environment_variable_turns_every_compiled_module_off(value):
    env = {**os.environ, "TREASURE_CLI_PURE_PYTHON": value}
    shown = subprocess.run([sys.executable, "-c", SHOW], env=env, capture_output=True, text=True,
                           check=True).stdout.split()
    if value in ("1", "yes"):
        # the Python code everywhere, and no compiled module even loaded
        assert shown == ["PyDraws"] + ["False"] * (2 * len(MODULES))
    else:
        flags = [str(b) for b in BUILT]
        assert shown == ["Draws" if BUILT[0] else "PyDraws"] + flags + flags


def test_the_build_made_every_compiled_module_it_could():
    """Where a C compiler and Python's headers are at hand, `make install` must have built all
    four modules (setup.py's optional=True would otherwise hide a broken build, and their
    parity tests would be skipped)."""
    from helpers import BUILD_EXPECTED

    missing = [c for (c, _), built in zip(MODULES, BUILT) if not built]
    assert not (BUILD_EXPECTED and missing), f"not built: {missing} (run make install and read its errors)"


def test_a_wrong_array_is_refused_in_the_same_words_by_every_module():
    """_accel.h's accel_array is the one check of an array argument in every compiled module:
    the logic agent's and the generator's refuse a float array where they take bool or int32
    with the same TypeError, naming the argument and the dtype it must have."""
    import numpy as np
    from helpers import BUILD_EXPECTED

    if not (BUILT[2] and BUILT[3]):
        assert not BUILD_EXPECTED, "the generator's or the agent's compiled module was not built"
        pytest.skip("no C compiler or Python headers here")
    mass, gen = importlib.import_module(MODULES[3][0]), importlib.import_module(MODULES[2][0])
    floats = np.zeros((3, 3))
    with pytest.raises(TypeError, match=r"^b must be a 2-D array of bool$"):
        mass.count_both(np.zeros((3, 3), dtype=bool), floats, 0, 3, 0, 3)
    with pytest.raises(TypeError, match=r"^out must be a writable 2-D array of float64$"):
        mass.integral(np.ones((3, 3), dtype=bool), 0, 0, 3, 3, np.zeros((8, 8), dtype=np.float32))
    with pytest.raises(TypeError, match=r"^top must be an array of int32$"):
        gen.top(floats)
