"""The one thing pyproject.toml does not say: the optional compiled modules.

treasure_cli.rules._draws is the compiled twin of rules/draws.py's hint draws,
treasure_cli.rules._grid that of rules/grid.py's BFS, pieces and distances.
`optional=True`: if one does not compile (no C compiler, no Python headers),
the install goes on without it and the package uses the Python/numpy code.
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("treasure_cli.rules._draws", ["src/treasure_cli/rules/_draws.c"], optional=True),
    Extension("treasure_cli.rules._grid", ["src/treasure_cli/rules/_grid.c"], optional=True),
])
