"""pyproject.toml says the package supports exactly the Pythons that `make test` runs the suite
on (noxfile.py's SUPPORTED): the floor of requires-python and one classifier per version."""

from __future__ import annotations

import re

from helpers import ROOT


def supported_in_noxfile() -> list[str]:
    text = (ROOT / "noxfile.py").read_text()
    return re.findall(r"\d+\.\d+", re.search(r"^SUPPORTED = \[(.*?)\]", text, re.M).group(1))


def test_requires_python_and_the_classifiers_name_the_versions_tested():
    tested = supported_in_noxfile()
    assert tested == [f"3.{m}" for m in range(10, 14)]  # every minor version from the floor, none skipped
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^requires-python = ">=(\d+\.\d+)"$', pyproject, re.M).group(1) == tested[0]
    classified = re.findall(r'"Programming Language :: Python :: (\d+\.\d+)"', pyproject)
    assert classified == tested
