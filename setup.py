"""The one thing pyproject.toml does not say: the optional compiled module.

treasure_cli.rules._draws is the compiled twin of rules/draws.py's hint draws.
`optional=True`: if it does not compile (no C compiler, no Python headers), the
install goes on without it and the package uses the pure-Python class.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("treasure_cli.rules._draws", ["src/treasure_cli/rules/_draws.c"], optional=True)])
