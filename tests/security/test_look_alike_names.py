"""Two groups whose names look the same: `ann` and `аnn` (its first letter Cyrillic, U+0430).

A group is named after its file, folder or archive, which a student names. The report's table,
the gradebook and the pages show both rows as `ann`: a teacher who copies grades by name cannot
tell which row is the classmate's and which the impostor's (the pages' file names differ, the
rows do not). Now the letters a reader could not tell apart are shown as their code
(grading/submissions.py `told_apart`): `\\u0430nn`.
"""

from __future__ import annotations

import shutil
import unicodedata

from helpers import ROOT, invoke

# A few Cyrillic and Greek letters drawn as Latin ones (Unicode's confusables list has thousands).
LOOKS_LATIN = str.maketrans("аеорсухіјѕАВЕКМНОРСТХοαρτνικ", "aeopcyxijsABEKMHOPCTXoaptvik")
IMPOSTOR = "\u0430nn"


def seen(name: str) -> str:
    return unicodedata.normalize("NFKC", name).translate(LOOKS_LATIN)


def test_two_groups_whose_names_look_alike_are_told_apart_in_the_table(tmp_path):
    klass, maps = tmp_path / "class", tmp_path / "maps"
    klass.mkdir()
    maps.mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", maps)
    agent = "from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"
    (klass / "ann.py").write_text(agent)
    (klass / f"{IMPOSTOR}.py").write_text(agent + "# the impostor\n")
    db = str(tmp_path / "r.sqlite")
    played = invoke("tournament", str(klass), "--maps", str(maps), "--db", db, "--games", "1", "--seed", "1",
                    "--agent-isolation", "process", "--jobs", "1")
    assert played.exit_code == 0, played.output
    report = invoke("tournament", "--db", db, "--report")
    assert report.exit_code == 0, report.output
    rows = [line.split()[1] for line in report.output.splitlines() if line[:1] in "=123456789" and "file:" in line]
    assert len(rows) == 2, report.output
    assert seen(rows[0]) != seen(rows[1]), rows


def test_only_the_letters_that_could_pass_for_others_are_shown_as_code():
    """A second script inside one name, or a name of another script that looks like another
    group's, is shown as code; accents and a name wholly in one script are kept as they are."""
    from treasure_cli.grading.submissions import Submission, told_apart

    names = ["ann", IMPOSTOR, "Zoé", "Zoe", "\u0430\u0435\u0445", "aex", "Алексей", "Ζωή"]
    found = [Submission(n, f"{n}.py:Agent", n, "python", f"{n}.py", 1, 1) for n in names]
    shown = [s.name for s in told_apart(found, [])[0]]
    assert shown == ["ann", "\\u0430nn", "Zoé", "Zoe", "\\u0430\\u0435\\u0445", "aex", "Алексей", "Ζωή"]
