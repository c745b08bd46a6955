"""An answer nested deeper than the parser follows is the agent's protocol breach, whichever parser.

An agent's line of 100,000 `[` is refused by orjson ("not JSON": it stops at 1,024 levels). Where
orjson is not installed the referee reads lines with the standard library's `json`, which ran into
Python's recursion limit: the referee's own RecursionError was reported as the agent's exception
(`agent-error`, "the agent raised RecursionError ... (decoder.py:353 in raw_decode)"), a frame of
the referee's code shown as the agent's. Both parsers now give `failed (protocol)`.
"""

from __future__ import annotations

import shutil

import pytest
from helpers import ROOT, invoke

from treasure_cli.formats import json_lines
from treasure_cli.grading.store import Store

PROGRAM = """#!/usr/bin/python3
import json, sys
for line in sys.stdin:
    kind = json.loads(line).get("type")
    if kind == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "agent": "deep"}), flush=True)
    elif kind == "act":
        print("[" * 100000, flush=True)
    elif kind == "end":
        print(json.dumps({"type": "ready"}), flush=True)
"""


@pytest.mark.parametrize("parser", ["orjson", "json"])
def test_a_line_nested_too_deep_fails_its_game_as_a_protocol_breach(tmp_path, monkeypatch, parser):
    if parser == "json":
        monkeypatch.setattr(json_lines, "orjson", None)
    elif json_lines.orjson is None:
        pytest.skip("orjson is not installed")
    program = tmp_path / "class" / "deep"
    program.parent.mkdir()
    program.write_text(PROGRAM)
    program.chmod(0o755)
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps")
    db = tmp_path / "r.sqlite"
    played = invoke("tournament", str(tmp_path / "class"), "--maps", str(tmp_path / "maps"), "--db", str(db),
                    "--games", "1", "--jobs", "1", "--seed", "1")
    assert played.exit_code == 1, played.output  # its game failed
    with Store(db) as store:
        [row] = store.rows()
    assert (row.outcome, row.reason) == ("failed", "protocol"), row.error
    assert "RecursionError" not in (row.error or ""), row.error
