"""The one thing pyproject.toml does not say: the optional compiled modules.

treasure_cli.rules._draws is the compiled twin of rules/draws.py's hint draws;
treasure_cli.formats._gen runs the island generator's random steps
(formats/generator.py keeps them in numpy as the reference). `optional=True`:
if one does not compile (no C compiler, no Python headers), the install goes on
without it and the package uses the Python code.
"""

import os

from setuptools import Extension, setup

# The generator's floats must round as numpy's do: no a * b + c fused into one FMA.
NO_FMA = [] if os.name == "nt" else ["-ffp-contract=off"]

setup(ext_modules=[
    Extension("treasure_cli.rules._draws", ["src/treasure_cli/rules/_draws.c"], optional=True),
    Extension("treasure_cli.formats._gen", ["src/treasure_cli/formats/_gen.c"], optional=True,
              extra_compile_args=NO_FMA),
])
