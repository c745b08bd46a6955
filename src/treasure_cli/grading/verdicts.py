"""Every group of a class accounted for: a verdict per group, kept in the results store.

A group that plays has its games in the store, and its verdict follows from
them: `played`, or `failed` when every one of its games failed. A group that
never reaches a game (left out at intake, or its build failed) has no game to
show for it; its verdict is recorded in the store when the tournament runs, so
that `--report` (its table, CSV, JSON and pages) still lists it, scoring zero.

What the intake says (grading/submissions.py `find_submissions`) is turned
into verdicts here and only here (`intake_verdicts`), so the intake can change
how it reports without the outputs changing.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from treasure_cli.formats.text import one_line

PLAYED = "played"
FAILED = "failed"            # played, and every game failed
LEFT_OUT = "left out"        # never played: the intake could not make an agent of it
BUILD_FAILED = "build failed"
NOT_PLAYED = (LEFT_OUT, BUILD_FAILED)
BASELINE = "baseline"        # not a group: an agent given with --with, ranked beside the groups for comparison


# What a published verdict leaves out of its reason: the build log's path, and the folders of
# every absolute path (the teacher's machine: its temporary folder, user, home, class folder).
_BUILD_LOG = re.compile(r" \(build log: [^)]*\)")
_ABSOLUTE = re.compile(r"(?<![\w.~-])/(?:[^\s/'\"()<>]+/)+(?=[^\s/'\"()<>]*)")


def public_reason(reason: str) -> str:
    """`reason` as it may be published: without the build log's path, and each absolute path
    shortened to its last part (`.../agent.cpp`)."""
    return _ABSOLUTE.sub(".../", _BUILD_LOG.sub("", reason))


@dataclasses.dataclass(frozen=True)
class Verdict:
    group: str    # the group's name, as its games and rows show it
    status: str   # PLAYED, FAILED, LEFT_OUT or BUILD_FAILED (or BASELINE: not a group)
    reason: str = ""  # one line: why (empty for PLAYED)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason", one_line(self.reason))

    @property
    def text(self) -> str:
        """The verdict as a table's cell: `left out: 2 agent classes (A, B); ...`."""
        return self.status + (f": {self.reason}" if self.reason else "")


def group_name(path: Path) -> str:
    """A submission's name as the intake gives it: a Python file's stem, else the file's or folder's name."""
    return path.stem if path.suffix == ".py" and not path.is_dir() else path.name


def intake_verdicts(paths: Sequence[str], left_out: Iterable[object]) -> list[Verdict]:
    """The verdicts of what `find_submissions(paths)` left out.

    An item is either a reason text, `<path>: <why>` (the path being an entry
    of a folder given), or an object with `group`/`name`, `reason` and
    optionally `status` attributes.
    """
    entries = _entries(paths)
    verdicts = []
    for item in left_out:
        if not isinstance(item, str) or hasattr(item, "reason"):  # (submissions.LeftOut carries them)
            name = getattr(item, "group", None) or getattr(item, "name", "")
            verdicts.append(Verdict(str(name), str(getattr(item, "status", LEFT_OUT)),
                                    str(getattr(item, "reason", ""))))
            continue
        path = max((e for e in entries if item.startswith(e + ":")), key=len, default=None)
        if path is None:  # not a path we know: the text before its first ": "
            path = item.partition(": ")[0]
        reason = item[len(path):]
        line = re.match(r":(\d+): ", reason)  # a syntax error's `path:LINE: why`
        reason = f"line {line[1]}: {reason[line.end():]}" if line else reason.removeprefix(":").strip()
        verdicts.append(Verdict(group_name(Path(path)), LEFT_OUT, reason or item))
    return verdicts


def _entries(paths: Sequence[str]) -> list[str]:
    """The paths the intake may name: those given, and the entries of the folders given."""
    found = []
    for item in paths:
        found.append(item)
        path = Path(item)
        if path.is_dir():
            found += [str(p) for p in path.iterdir()]
    return found


def record_intake(db: str | Path, played: Iterable[str], verdicts: Iterable[Verdict],
                  student_ids: Mapping[str, str] | None = None) -> None:
    """Keep the verdicts of the groups that did not reach a game in the store (`--report` lists them);
    a group given again that now plays loses its old verdict. `student_ids`: the roster's id of each
    group it named (group -> id), kept for the gradebook."""
    from treasure_cli.grading.store import Store

    with Store(db) as store:
        store.set_verdicts([(v.group, v.status, v.reason) for v in verdicts if v.status in NOT_PLAYED],
                           clear=played)
        store.set_student_ids(student_ids or {})
