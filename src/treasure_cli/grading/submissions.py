"""A class's submissions: from files and folders on the command line to named agent specs.

`treasure tournament CLASS/` takes a folder with one entry per group:

* a folder, at any depth inside which the group's agent is found
  (grading/intake.py: a manifest, the one Python file with an agent class,
  or the one program); the group is named after the folder;
* an archive (.zip, .tar.gz), unpacked safely first (grading/archives.py),
  named after the archive;
* a Python file holding one agent class (`students/ann.py:Agent`, group `ann`);
* an executable program (`exec:students/carl`, group `carl`).

Names are NFC-normalised (a name decomposed on disk is the same group as its
composed spelling in a roster). Classes are found by parsing the files, never
by running them. Anything that is not a group's agent is left out with its
reason (`LeftOut`: the group's name and a one-line reason), so a teacher sees
what did not count. `--roster FILE` maps folders to display names.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import re
import shlex
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from treasure_cli.agents.registry import EXEC, agent_names, check_spec
from treasure_cli.formats.text import counted, one_line
from treasure_cli.errors import AgentLoadError, TreasureError
from treasure_cli.grading import archives, intake
from treasure_cli.sandbox import tree

if TYPE_CHECKING:
    from treasure_cli.play.bench import MapInfo


@dataclasses.dataclass(frozen=True)
class Submission:
    name: str   # the group: its folder's, file's or archive's name (NFC), or its roster name
    spec: str   # the agent spec that plays it
    folder: str = ""     # its name on disk (NFC): what a roster's first column names
    language: str = ""   # "python", "program", or a manifest's language
    entry: str = ""      # the entry file, relative to the group's folder
    files: int = 0       # files of the group's folder the sandbox gets
    size: int = 0        # their bytes
    student_id: str = ""  # from the roster
    build_log: str = ""  # the build's log, for a group built from source (sandbox/languages.py)
    missing: tuple[str, ...] = ()  # what its requirements.txt asks for that the referee's Python lacks


class LeftOut(str):
    """A group left out: reads as "WHERE: REASON" (what is printed), with the group's `name`
    (NFC) and its one-line `reason` apart, for the outputs that give it a row."""

    name: str        # the group's name (its roster name once a roster is applied)
    reason: str      # one line
    where: str       # the path as given
    folder: str      # its name on disk (NFC): what a roster's first column names
    student_id: str  # from the roster
    status: str      # "left out", or "build failed" (grading/verdicts.py's words)

    def __new__(cls, name: str, where: str, reason: str, folder: str | None = None, student_id: str = "",
                status: str = "left out") -> LeftOut:
        reason = reason if utf8(reason) else bytes_escaped(reason)
        made = super().__new__(cls, f"{where}: {reason}")
        made.name, made.where, made.reason = name, where, reason  # (the reason goes into the store: UTF-8)
        made.folder, made.student_id, made.status = (name if folder is None else folder), student_id, status
        return made


def group_name(text: str) -> str:
    """A file or folder name as a group's name: NFC, so both spellings of an accent are one. A name
    that is not UTF-8 on disk (a Latin-1 archiver's `Z\\xe9lie`) is shown with its bytes escaped."""
    name = unicodedata.normalize("NFC", text)
    return name if utf8(name) else bytes_escaped(name)


def bytes_escaped(text: str) -> str:
    """A path's text that is not UTF-8, its raw bytes escaped (`\\xe9`): what the store and a page can hold."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def utf8(text: str) -> bool:
    """Whether `text` (a path as Python reads it) is UTF-8 on disk: else it holds surrogates, which
    neither the results store nor a page can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK) and path.suffix != ".py"


def submission(path: Path) -> Submission:
    """One submission (a folder, an archive, a file); AgentLoadError saying what is wrong with it."""
    found = _submission(path)
    if not utf8(found.spec):  # its path goes into the store, which holds UTF-8 text only
        shown = group_name(found.spec.partition(EXEC)[2] or found.spec)
        raise AgentLoadError(f"{path}: its path is not UTF-8 ({shown}): rename the file or folder in UTF-8")
    return found


def _submission(path: Path) -> Submission:
    if path.is_dir():
        found = intake.find_agent(path)
        return _made(group_name(path.name), found)
    if not path.is_file():  # a named pipe (from an archive, say) would make the parse below wait forever
        raise AgentLoadError(f"{path}: not a submission (not a regular file, a folder or a program)")
    if archives.is_archive(path):
        try:
            found = intake.find_agent(archives.unpack(path))
        except AgentLoadError as exc:
            raise type(exc)(f"{path}: {exc}") from None
        return _made(group_name(archives.stem(path)), found)
    if path.suffix == ".py":
        try:
            acting, lone = intake.agent_classes(path)
        except AgentLoadError as exc:
            reason = str(exc).removeprefix(path.name)
            line = re.match(r":(\d+): ", reason)  # a syntax error's `file.py:LINE: why`
            raise AgentLoadError(f"{path}: " + (f"line {line[1]}: {reason[line.end():]}" if line else
                                               reason.removeprefix(": "))) from None
        if len(acting) > 1:
            raise AgentLoadError(f"{path}: {len(acting)} agent classes ({', '.join(acting)}); say which: "
                                 + " or ".join(f"{path}:{name}" for name in acting))
        if not (acting or lone):
            raise AgentLoadError(f"{path}: no class with an act(obs) method found; give the agent as "
                                 f"{path}:ClassName (a class or a factory function)")
        name = group_name(path.stem)
        return Submission(name, f"{path}:{(acting or lone)[0]}", name, "python", path.name, 1, path.stat().st_size)
    if _executable(path):
        intake.startable(path, str(path))
        # Quoted: the spec is a command line, and a file name ("bob smith", "dan --help") is one word.
        name = group_name(path.name)
        return Submission(name, check_spec(f"{EXEC}{shlex.quote(str(path))}"), name, "program", path.name, 1,
                          path.stat().st_size)
    foreign = archives.foreign_archive(path)
    if foreign is not None:
        raise AgentLoadError(f"{path}: a {foreign} archive, which is not unpacked (only .zip and .tar archives "
                             "are); unpack it into a folder of its own and grade that")
    raise AgentLoadError(f"{path}: not a submission (a .py file with an agent class, a folder, an archive, or an "
                         "executable program)")


def _made(name: str, found: intake.Found) -> Submission:
    return Submission(name, found.spec, name, found.language, found.entry, found.files, found.size,
                      build_log=found.build_log, missing=found.missing)


def requirement_notes(found: list[Submission]) -> list[str]:
    """One line for each group whose requirements.txt names packages the referee's Python lacks."""
    return [f"{s.name}: its requirements.txt asks for {', '.join(s.missing)}, which this Python does not have "
            "(an agent that imports it fails every game; install it, or tell the group)" for s in found if s.missing]


def find_submissions(paths: list[str]) -> tuple[list[Submission], list[LeftOut]]:
    """The submissions named on the command line, and the groups left out (each with its reason).

    One folder given alone is a class's folder (each entry in it is a group), unless it holds
    an agent.py or agent.toml; with several paths given, each is a group. `file.py:Class` names
    the class of a file with several. A submission given by itself that is broken is an error;
    one in a class's folder is left out and said.
    """
    found: list[Submission] = []
    left_out: list[LeftOut] = []
    for item in paths:
        path = Path(item)
        if not path.exists() and ":" in item and Path(item.rpartition(":")[0]).is_file():
            name = group_name(Path(item.rpartition(":")[0]).stem)
            found.append(Submission(name, check_spec(item), name, "python"))  # file.py:Class
            continue
        if not path.exists():
            raise TreasureError(f"{item}: no such file or folder")
        if path.is_dir() and len(paths) == 1 and _is_class_folder(path):
            names: dict[str, str] = {}
            for entry in sorted(path.iterdir(), key=lambda p: group_name(p.name)):
                if tree.skipped(entry.name):
                    continue
                name = group_name(archives.stem(entry) if archives.is_archive(entry) else
                                  entry.stem if entry.suffix == ".py" else entry.name)
                if name in names:
                    left_out.append(LeftOut(name, str(entry), f"the same name as {names[name]} (rename one)"))
                    continue
                names[name] = str(entry)
                if entry.is_symlink():  # it would show the sandbox, or the copy, what it points at
                    left_out.append(LeftOut(name, str(entry), "a link, not a submission (give the file or folder)"))
                    continue
                try:
                    found.append(submission(entry))
                except AgentLoadError as exc:
                    reason = str(exc).removeprefix(f"{entry}: ")
                    status = "build failed" if isinstance(exc, intake.BuildError) else "left out"
                    left_out.append(LeftOut(name, str(entry), reason, status=status))
        else:
            found.append(submission(path))
    found, left_out = apart(found, left_out, set(agent_names()))
    found, left_out = told_apart(found, left_out)
    seen: dict[str, str] = {}
    for s in found:
        if s.name in seen:
            raise TreasureError(f"two submissions are both named {s.name!r}: {seen[s.name]} and {s.spec}; "
                                "rename one")
        seen[s.name] = s.spec
    return found, left_out


def apart(found: list[Submission], left_out: list[LeftOut], taken: set[str]
          ) -> tuple[list[Submission], list[LeftOut]]:
    """`found` and `left_out` with every group named as an agent that is not a group (`taken`: the
    built-in agents, the plugins, the agents of `--with`) renamed `NAME (group)`. The results store
    ranks a group by its name and any other agent by its spec: a group handed in as `logic.zip`
    shared the built-in `logic`'s row, and its wins."""
    used = taken | {s.name for s in found} | {x.name for x in left_out}

    def free(name: str) -> str:
        if name not in taken:
            return name
        n, new = 1, f"{name} (group)"
        while new in used:
            n += 1
            new = f"{name} (group {n})"
        used.add(new)
        return new

    found = [dataclasses.replace(s, name=free(s.name)) for s in found]
    left_out = [LeftOut(free(x.name), x.where, x.reason, x.folder, x.student_id, x.status) for x in left_out]
    return found, left_out


# Letters of Cyrillic and Greek drawn like Latin ones in common fonts (a part of Unicode's
# confusables, the part a name's impostor would reach for), with the Latin letter each passes for.
_LOOKS_LATIN = str.maketrans("аеорсухіјѕԁӏһԛԝАВЕКМНОРСТХІЈЅοαρτνικυϲΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
                             "aeopcyxijsdlhqwABEKMHOPCTXIJSoaptvikucABEZHIKMNOPTYX")


def _script(ch: str) -> str:
    """A letter's script, as its Unicode name starts (LATIN, CYRILLIC, GREEK, ...); "" for the rest."""
    return unicodedata.name(ch, "").split(" ", 1)[0] if ch.isalpha() else ""


def _skeleton(name: str) -> str:
    """What a name looks like: compatibility forms folded (NFKC), look-alike letters as the Latin
    ones they pass for, case set aside."""
    return unicodedata.normalize("NFKC", name).translate(_LOOKS_LATIN).casefold()


def told_apart(found: list[Submission], left_out: list[LeftOut]) -> tuple[list[Submission], list[LeftOut]]:
    """Every group's name shown so that no two look alike. A name is shown as it is (accents
    and any one script kept), except the letters a reader could not tell apart, shown as their
    code (`\\u0430nn` for `аnn`, its first letter Cyrillic): the letters of a second script in
    one name (Latin mixed with Cyrillic or Greek), and the letters not Latin of a name that looks
    like another group's (an all-Cyrillic `аех` beside `aex`). Two groups named `ann` and `аnn`
    were two rows `ann` in the table and the gradebook."""
    names = [s.name for s in found] + [x.name for x in left_out]
    looks: dict[str, set[str]] = {}
    for name in names:
        looks.setdefault(_skeleton(name), set()).add(name)
    used = set(names)

    def shown(name: str) -> str:
        scripts = [_script(ch) for ch in name if _script(ch)]
        main = max(set(scripts), key=scripts.count) if scripts else ""
        alike = len(looks.get(_skeleton(name), ())) > 1
        odd = [ch for ch in name if _script(ch) and (_script(ch) != main if len(set(scripts)) > 1
                                                      else alike and _script(ch) != "LATIN")]
        if not odd:
            return name
        new = "".join(f"\\u{ord(ch):04x}" if ch in odd else ch for ch in name)
        while new in used:  # (a name handed in as the escape itself)
            new += "_"
        used.add(new)
        return new

    return ([dataclasses.replace(s, name=shown(s.name)) for s in found],
            [LeftOut(shown(x.name), x.where, x.reason, x.folder, x.student_id, x.status) for x in left_out])


def _is_class_folder(path: Path) -> bool:
    """A folder given alone is a class's folder, unless it is one group's folder with its agent
    at the top (an agent.py or a manifest)."""
    return not ((path / "agent.py").is_file() or (path / intake.MANIFEST).is_file())


@dataclasses.dataclass(frozen=True)
class Roster:
    """A class's roster: folder name -> (student id, display name), and what did not match."""

    names: dict[str, tuple[str, str]]

    @classmethod
    def read(cls, path: str) -> Roster:
        """CSV rows `folder, student id, display name` (a header row whose first cell is
        "folder" is skipped); TreasureError for a file that is not one."""
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise TreasureError(f"cannot read the roster {path}: {exc.strerror}") from None
        if len(data) > tree.MAX_SOURCE_BYTES:
            raise TreasureError(f"the roster {path} is over {tree.MAX_SOURCE_BYTES >> 20} MB")
        names: dict[str, tuple[str, str]] = {}
        for n, row in enumerate(csv.reader(io.StringIO(data.decode("utf-8-sig", errors="replace"))), 1):
            cells = [c.strip() for c in row]
            if not any(cells) or (n == 1 and cells[0].lower() == "folder"):
                continue
            if len(cells) < 3 or not cells[0]:
                raise TreasureError(f"{path}:{n}: expected folder, student id, display name")
            names[group_name(cells[0])] = (cells[1], cells[2] or cells[0])
        return cls(names)

    def apply(self, found: list[Submission], left_out: list[LeftOut]
              ) -> tuple[list[Submission], list[LeftOut], list[str]]:
        """`found` and `left_out` under the roster's display names (with student ids), and a
        warning for each folder the roster does not know and each roster entry with no folder."""
        folders = {s.folder for s in found if s.folder} | {x.folder for x in left_out}
        shown: dict[str, list[str]] = {}  # display name -> the folders here the roster gives it
        for f in sorted(folders & set(self.names)):
            shown.setdefault(self.names[f][1], []).append(f)
        # Two folders the roster names alike are told apart by their folders (one row each in the
        # store, which ranks a group by its name).
        display = {f: name if len(fs) == 1 else f"{name} ({f})" for name, fs in shown.items() for f in fs}
        named = [dataclasses.replace(s, name=display[s.folder], student_id=self.names[s.folder][0])
                 if s.folder in self.names else s for s in found]
        out = [LeftOut(display[x.folder], x.where, x.reason, x.folder, self.names[x.folder][0], x.status)
               if x.folder in self.names else x for x in left_out]
        # A name the roster gives is its group's: a folder or archive that a student named after a
        # classmate's display name is renamed, not ranked in the classmate's row.
        given = set(display.values())
        named = [s if s.folder in self.names else apart([s], [], given)[0][0] for s in named]
        out = [x if x.folder in self.names else apart([], [x], given)[1][0] for x in out]
        warnings = [f"the roster gives {name!r} to {len(fs)} folders ({', '.join(fs)}): each is shown with its folder"
                    for name, fs in sorted(shown.items()) if len(fs) > 1]
        warnings += [f"the roster does not know the folder {f!r}" for f in sorted(folders - set(self.names))]
        warnings += [f"no folder for the roster's {name!r} ({sid})" for f, (sid, name) in sorted(self.names.items())
                     if f not in folders]
        return named, out, warnings


def dry_run_lines(found: list[Submission], left_out: list[LeftOut], agents: int, maps: int, games: int) -> list[str]:
    """What `tournament --dry-run` prints: the groups to play, those left out and why, the games."""
    rows = [(one_line(s.name), s.language, one_line(s.entry), f"{s.files} file{'s' if s.files != 1 else ''}",
             tree.size_text(s.size)) for s in found]  # (escaped before measured: as printed)
    widths = [max((_width(r[i]) for r in rows), default=0) for i in range(5)]
    lines = [f"{counted(len(found), 'group')} to play, {len(left_out)} left out"]
    for row in rows:
        lines.append("  " + "  ".join(cell + " " * (widths[i] - _width(cell)) for i, cell in enumerate(row)).rstrip())
    for why in left_out:
        lines.append(f"  left out: {why.name}: {why.reason}")
    lines += [f"  note: {note}" for note in requirement_notes(found)]
    lines.append(f"games to play: {agents * maps * games} ({counted(agents, 'agent')} x {counted(maps, 'map')} x "
                 f"{counted(games, 'game')})")
    return lines


def maps_lines(maps: Mapping[str, MapInfo], names: Mapping[str, str], shown: int = 3) -> list[str]:
    """The dry run's maps: how many, then one line per size and style with the first few names
    (`names`: a map path's name under --maps)."""
    kinds: dict[tuple[int, int, str], list[str]] = {}
    for path, info in maps.items():
        kinds.setdefault((info.width * info.height, info.width, info.style), []).append(names.get(path, path))
    rows = [(f"{len(ns)} {style} {w}x{tiles // w}", ", ".join(ns[:shown]) + (f", ... ({len(ns) - shown} more)"
                                                                              if len(ns) > shown else ""))
            for (tiles, w, style), ns in sorted(kinds.items())]
    width = max((_width(r[0]) for r in rows), default=0)
    return [f"maps: {len(maps)}"] + [f"  {kind}{' ' * (width - _width(kind))}  {listed}" for kind, listed in rows]


def _width(text: str) -> int:
    """Columns `text` takes on a terminal (wide characters two, combining marks none)."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
