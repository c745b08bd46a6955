"""Two workers that make the same agent's copy at once keep the first one made.

Each worker of a tournament copies a group's tree into a folder named by its digest, the first
time it plays that group. Both found no copy, both copied; the later one then took the earlier
one's folder for a stale copy, moved it away and removed it: a game the earlier worker was
starting on it failed (`bwrap: Can't find source path /tmp/treasure-cli-agents-0/...`, seen with a
group of 1,500 files, whose copy is slow), and one playing from it lost its files. The group was
charged a failed game."""

from __future__ import annotations

import os
from typing import Any
from pathlib import Path

from treasure_cli.sandbox import launch

AGENT = b"from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"


def test_a_copy_made_by_another_worker_meanwhile_is_kept_not_replaced(tmp_path, monkeypatch):
    group = tmp_path / "g"
    (group / "data").mkdir(parents=True)
    (group / "agent.py").write_bytes(AGENT)
    (group / "data" / "w.json").write_text("{}")
    name = f"{group}/./agent.py"
    folder, _ = launch._shipped(name, AGENT, executable=False)  # the first worker's copy
    first = os.stat(folder).st_ino
    held = open(Path(folder) / "data" / "w.json")  # a game playing from it
    # The second worker looked before the first copy was there, then copied: it finds the copy made.
    launch._VERIFIED.clear()
    real, looked = launch._intact, []

    def before_the_first_copy_was_made(*args: Any) -> bool:
        looked.append(args)
        return False if len(looked) == 1 else real(*args)

    monkeypatch.setattr(launch, "_intact", before_the_first_copy_was_made)
    again, _ = launch._shipped(name, AGENT, executable=False)
    assert again == folder and os.stat(folder).st_ino == first  # the same folder, never moved away
    assert os.fstat(held.fileno()).st_nlink == 1  # the playing game's file is still there
    held.close()
    mine = f".{Path(folder).name}-"  # (the folder is shared with other runs: only this copy's own temporary one)
    assert [p.name for p in Path(folder).parent.iterdir() if p.name.startswith(mine)] == []
