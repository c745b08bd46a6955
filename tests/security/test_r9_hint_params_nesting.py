"""A log whose plugin hint's parameters nest 30,000 lists deep (ninth round).

A hint of a `--hints FILE` kind is logged with its parameters as a JSON list
(`kind near-edge@edge.py#5d36... [1,false]: ...`). A log someone sent with `[[[...]]]` there,
within a line's 65,536 characters, stopped `treasure replay LOG --hints edge.py` with a
RecursionError traceback; it is a bad hint of that line now, as other wrong parameters were."""

from __future__ import annotations

import re
import shutil

from helpers import ROOT, invoke

DOC = (ROOT / "docs" / "hints.md").read_text()
EDGE = dict(re.findall(r"```python\n# file: (\S+)\n(.*?)```", DOC, flags=re.S))["edge.py"]


def test_parameters_nested_too_deep_are_a_bad_hint(tmp_path, monkeypatch):
    from treasure_cli.rules import plugin_kinds

    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    (tmp_path / "edge.py").write_text(EDGE)
    monkeypatch.chdir(tmp_path)
    played = invoke("run", "MAP_01.txt", "out", "--hints", "edge.py", "--hint-weights", "builtin=0")
    assert played.exit_code == 0, played.output
    monkeypatch.setattr(plugin_kinds, "_INSTALLED", {})
    log = (tmp_path / "out" / "LOG_01.txt").read_text()
    deep = "[" * 30_000 + "]" * 30_000
    sent, n = re.subn(r"(kind near-edge@edge\.py#[0-9a-f]{16}) \[[^\]]*\]", lambda m: f"{m[1]} {deep}", log, count=1)
    assert n == 1
    (tmp_path / "out" / "sent.txt").write_text(sent)
    result = invoke("replay", "out/sent.txt", "--hints", "edge.py", "--no-pause", "--no-color")
    assert not isinstance(result.exception, RecursionError), result.exception
    assert result.exit_code == 1 and result.output.startswith("Error: out/sent.txt:9: bad hint ")
    assert result.output.endswith("the parameters are nested too deep to be a hint's\n")
