"""docs/gymnasium.md: its Python examples run as written."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("gymnasium")

from helpers import ROOT  # noqa: E402

DOC = ROOT / "docs" / "gymnasium.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_doc_has_its_examples():
    assert len(BLOCKS) >= 3
    assert any("action_mask" in b for b in BLOCKS) and any('load_agent("logic")' in b for b in BLOCKS)
    assert not any("treasure_cli.agents" in b for b in BLOCKS)  # only the public API (treasure_cli)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_each_python_example_of_the_doc_runs(index, capsys):
    exec(compile(BLOCKS[index], f"{DOC}:block{index}", "exec"), {"__name__": "__doc_example__"})
    out = capsys.readouterr().out
    if "print(" in BLOCKS[index]:
        assert out.strip()
