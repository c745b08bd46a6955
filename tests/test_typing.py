"""The type and lint checks `make test` runs (mypy, ruff) are configured as pyproject.toml says,
and a type error in rules/ fails them."""

from __future__ import annotations

import fnmatch
import subprocess
import sys

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: mypy brings tomli
    import tomli as tomllib

import treasure_cli
from helpers import ROOT

CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _strict_modules() -> list[str]:
    overrides = CONFIG["tool"]["mypy"]["overrides"]
    strict = [o for o in overrides if o.get("disallow_untyped_defs")]
    assert len(strict) == 1
    return strict[0]["module"]


def test_every_module_the_public_api_exports_from_is_checked_strictly():
    patterns = _strict_modules()
    modules = {"treasure_cli", *treasure_cli._EXPORTS.values(), *treasure_cli._MODULES.values()}
    loose = sorted(m for m in modules if not any(fnmatch.fnmatchcase(m, p) or m == p.removesuffix(".*")
                                                  for p in patterns))
    assert loose == []
    assert {"treasure_cli.rules.*", "treasure_cli.agents.*"} <= set(patterns)


def test_the_package_ships_its_type_information():
    assert (ROOT / "src" / "treasure_cli" / "py.typed").is_file()
    assert "py.typed" in CONFIG["tool"]["setuptools"]["package-data"]["treasure_cli"]


def _mypy(tree) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--no-incremental", "--no-error-summary", str(tree / "treasure_cli")],
                          capture_output=True, text=True, cwd=tree)


def test_a_planted_type_error_in_rules_fails_the_check(tmp_path):
    """The project's own mypy configuration on a tiny copy of the package layout: an untyped
    function is an error in rules/ (strict) but not in view/ (plain); a wrong type is an error in both."""
    package = tmp_path / "treasure_cli"
    for folder in ("rules", "view"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    untyped = "def double(x):\n    return 2 * x\n"
    wrong = "def turn() -> int:\n    return 'one'\n"
    (package / "rules" / "untyped.py").write_text(untyped)
    (package / "view" / "untyped.py").write_text(untyped)
    (package / "rules" / "wrong.py").write_text(wrong)
    (package / "view" / "wrong.py").write_text(wrong)
    result = _mypy(tmp_path)
    errors = sorted(line.split(": error: ")[0].replace("\\", "/") for line in result.stdout.splitlines()
                    if ": error: " in line)
    assert result.returncode == 1, result.stdout + result.stderr
    assert errors == ["treasure_cli/rules/untyped.py:1", "treasure_cli/rules/wrong.py:2",
                      "treasure_cli/view/wrong.py:2"], result.stdout


def test_make_test_runs_ruff_and_mypy_before_the_tests():
    recipe = (ROOT / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n", 1)[0]
    lines = [line.strip() for line in recipe.splitlines()]
    ruff, mypy, tests = (next(i for i, line in enumerate(lines) if line.endswith(what))
                         for what in ("ruff check", "-m mypy", "/nox"))  # nox runs the suite (noxfile.py)
    assert ruff < tests and mypy < tests
