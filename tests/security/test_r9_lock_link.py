"""A link named as `run`'s lock in the output folder (ninth round).

`treasure run` holds its OUTPUT folder with a lock file, `.treasure-run.lock`, that it opens (made
if missing), truncates and writes its pid into. In a folder a student handed in, that name may be
a link to any file the teacher can write: a gradebook beside it was truncated and replaced by
`pid 10090, started ...`. The lock is never opened through a link now: the run is refused,
naming it, and the file it points to is left as it was."""

from __future__ import annotations

import shutil

from helpers import ROOT, invoke


def test_the_lock_is_not_opened_through_a_link(tmp_path):
    grades = tmp_path / "grades.csv"
    grades.write_text("alice,A+\nbob,B\n")
    out = tmp_path / "handed_in" / "out"
    out.mkdir(parents=True)
    (out / ".treasure-run.lock").symlink_to(grades)
    maps = tmp_path / "maps"
    maps.mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", maps)
    result = invoke("run", str(maps), str(out))
    assert grades.read_text() == "alice,A+\nbob,B\n"
    assert result.exit_code == 1 and "is a link, not this program's lock" in result.output, result.output
    assert not (out / "LOG_01.txt").exists()
    (out / ".treasure-run.lock").unlink()  # once it is gone, the run goes on as ever
    assert invoke("run", str(maps), str(out)).exit_code == 0 and (out / "LOG_01.txt").is_file()
