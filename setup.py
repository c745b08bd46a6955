"""The one thing pyproject.toml does not say: the optional compiled modules.

treasure_cli.rules._draws is the compiled twin of rules/draws.py's hint draws,
treasure_cli.agents._mass that of agents/mass_kernel.py's whole-box passes.
`optional=True`: if one does not compile (no C compiler, no Python headers), the
install goes on without it and the package uses the pure-Python code.
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("treasure_cli.rules._draws", ["src/treasure_cli/rules/_draws.c"], optional=True),
    # Floats must come out as numpy's: no fused multiply-adds (the sums have none, but say so).
    Extension("treasure_cli.agents._mass", ["src/treasure_cli/agents/_mass.c"], optional=True,
              extra_compile_args=["-ffp-contract=off"]),
])
