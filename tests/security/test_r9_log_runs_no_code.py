"""A log handed over with a Python file beside it runs no code in the teacher's process (ninth round).

A log of a game played with a `--hints FILE` kind names its origin, `kind near-edge@edge.py#DIGEST`.
`treasure replay LOG` (and `--html`, and two logs compared) loaded `edge.py` from the log's folder
when the file's SHA-256 started with DIGEST. The digest proves only that the file is the one the log
names, and a student who sends the log writes both: the file's module code ran in `treasure
replay`'s own process, outside every sandbox, as the teacher (the marker below was written). Now a
kind's file is loaded only from `--hints`; the replay names the file beside the log and the option."""

from __future__ import annotations

import hashlib
import re
import shutil

from helpers import ROOT, invoke

DOC = (ROOT / "docs" / "hints.md").read_text()
EDGE = dict(re.findall(r"```python\n# file: (\S+)\n(.*?)```", DOC, flags=re.S))["edge.py"]


def test_replaying_a_log_runs_no_code_sent_with_it(tmp_path, monkeypatch):
    from treasure_cli.rules import plugin_kinds

    played = tmp_path / "student"
    played.mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", played / "MAP_01.txt")
    (played / "edge.py").write_text(EDGE)
    monkeypatch.chdir(played)
    result = invoke("run", "MAP_01.txt", "out", "--hints", "edge.py", "--hint-weights", "builtin=0")
    assert result.exit_code == 0, result.output
    monkeypatch.setattr(plugin_kinds, "_INSTALLED", {})  # as the teacher's new process: no kind known
    # What the student sends: the log, and beside it a file of that name whose code does more. Its
    # digest is put in the log (the student wrote the log too).
    marker = tmp_path / "ran"
    sent = EDGE + f"\nimport pathlib\npathlib.Path({str(marker)!r}).write_text('the sender ran code')\n"
    digest = hashlib.sha256(sent.encode()).hexdigest()[:16]
    log = (played / "out" / "LOG_01.txt").read_text()
    (played / "out" / "LOG_01.txt").write_text(re.sub(r"@edge\.py#[0-9a-f]{16}", f"@edge.py#{digest}", log))
    (played / "out" / "edge.py").write_text(sent)
    monkeypatch.chdir(tmp_path)
    refused = invoke("replay", str(played / "out" / "LOG_01.txt"), "--no-pause", "--no-color")
    assert not marker.exists(), "the code sent beside the log ran in treasure replay's process"
    assert refused.exit_code == 1 and "add --hints" in refused.output and "edge.py" in refused.output, refused.output
