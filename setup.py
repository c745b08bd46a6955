"""The one thing pyproject.toml does not say: the optional compiled modules.

Each is the compiled twin of Python/numpy code that stays in the package as
the readable reference and the fallback, with the same results bit for bit:
treasure_cli.rules._draws (rules/draws.py's hint draws), treasure_cli.rules._grid
(rules/grid.py's BFS, pieces and distances), treasure_cli.islands._gen (the
island generator's random steps in islands/generator.py) and
treasure_cli.agents._mass (agents/mass_kernel.py's whole-box passes of the
logic agent). `optional=True`: if one does not compile (no C compiler, no
Python headers), the install goes on without it and the package uses the
Python code.

TREASURE_CLI_PURE_PYTHON=1 at build time (the same switch that turns the compiled modules
off at run time, src/treasure_cli/compiled.py) builds none: `python -m build` then makes a
pure-Python wheel, tagged py3-none-any, that installs on any platform without a compiler.
"""

import os

from setuptools import Extension, setup

# Floats must round as numpy's do: no a * b + c fused into one FMA.
NO_FMA = [] if os.name == "nt" else ["-ffp-contract=off"]

PURE_PYTHON = os.environ.get("TREASURE_CLI_PURE_PYTHON", "") not in ("", "0")

# The headers the modules share (one text each, included where used): _accel.h, the argument and
# buffer handling of all four; _numpy_draws.h, numpy's integer draws (_draws and _gen).
ACCEL = {"include_dirs": ["src/treasure_cli"], "optional": True,
         "depends": ["src/treasure_cli/_accel.h", "src/treasure_cli/_numpy_draws.h"]}

setup(ext_modules=[] if PURE_PYTHON else [
    Extension("treasure_cli.rules._draws", ["src/treasure_cli/rules/_draws.c"], **ACCEL),
    Extension("treasure_cli.rules._grid", ["src/treasure_cli/rules/_grid.c"], **ACCEL),
    Extension("treasure_cli.islands._gen", ["src/treasure_cli/islands/_gen.c"], **ACCEL,
              extra_compile_args=NO_FMA),
    Extension("treasure_cli.agents._mass", ["src/treasure_cli/agents/_mass.c"], **ACCEL,
              extra_compile_args=NO_FMA),
])
