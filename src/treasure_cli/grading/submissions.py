"""A class's submissions: from files and folders on the command line to named agent specs.

`treasure tournament students/ ...` takes a folder of submissions, or the
submissions themselves. Each one is

* a Python file holding one agent class (a class with `act`): the spec
  `students/ann.py:Agent`, student `ann`;
* a folder: its `agent.py`, else its one Python file with an agent class,
  else its one executable file: student `bob` (the folder's name);
* an executable file (any language, the agent protocol): `exec:students/carl`,
  student `carl`.

Classes are found by parsing the files (agents/registry.py), never by
running them. Anything else in a folder of submissions (a README, a PDF) is
left out and said, so a teacher sees what did not count.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
from pathlib import Path

from treasure_cli.agents.registry import EXEC, agent_classes, check_spec, only_agent_class
from treasure_cli.errors import AgentLoadError, TreasureError


@dataclasses.dataclass(frozen=True)
class Submission:
    name: str   # the student: the file's stem or the folder's name
    spec: str   # the agent spec that plays it


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK) and path.suffix != ".py"


def submission(path: Path) -> Submission:
    """One submission (a file or a folder); AgentLoadError saying what is wrong with it."""
    if path.is_dir():
        candidates = [path / "agent.py"] if (path / "agent.py").is_file() else sorted(
            p for p in path.glob("*.py") if p.is_file() and agent_classes(p))
        if len(candidates) == 1:
            return Submission(path.name, f"{candidates[0]}:{only_agent_class(candidates[0])}")
        programs = sorted(p for p in path.iterdir() if _executable(p))
        if not candidates and len(programs) == 1:
            return Submission(path.name, f"{EXEC}{shlex.quote(str(programs[0]))}")
        if candidates:
            raise AgentLoadError(f"{path}: several Python files with an agent class "
                                 f"({', '.join(p.name for p in candidates)}); keep one, or name it agent.py")
        raise AgentLoadError(f"{path}: no agent found (a Python file with a class that has act(obs), "
                             "or one executable program)")
    if not path.is_file():  # a named pipe (from an archive, say) would make the parse below wait forever
        raise AgentLoadError(f"{path}: not a submission (not a regular file, a folder or a program)")
    if path.suffix == ".py":
        return Submission(path.stem, f"{path}:{only_agent_class(path)}")
    if _executable(path):
        # Quoted: the spec is a command line, and a file name ("bob smith", "dan --help") is one word.
        return Submission(path.name, check_spec(f"{EXEC}{shlex.quote(str(path))}"))
    raise AgentLoadError(f"{path}: not a submission (a .py file with an agent class, a folder, or an "
                         "executable program)")


def find_submissions(paths: list[str]) -> tuple[list[Submission], list[str]]:
    """The submissions named on the command line, and what was left out of folders of submissions (why).

    A folder given is a folder of submissions (each entry in it is one), unless
    it holds an agent.py; `file.py:Class` names the class of a file with several. A submission given by itself that is
    broken is an error; one in a folder of submissions is left out and said.
    """
    found: list[Submission] = []
    left_out: list[str] = []
    for item in paths:
        path = Path(item)
        if not path.exists() and ":" in item and Path(item.rpartition(":")[0]).is_file():
            found.append(Submission(Path(item.rpartition(":")[0]).stem, check_spec(item)))  # file.py:Class
            continue
        if not path.exists():
            raise TreasureError(f"{item}: no such file or folder")
        if path.is_dir() and _is_class_folder(path):
            for entry in sorted(path.iterdir(), key=lambda p: p.name):
                if entry.name.startswith(".") or entry.name == "__pycache__":
                    continue
                try:
                    found.append(submission(entry))
                except AgentLoadError as exc:
                    left_out.append(str(exc))
        else:
            found.append(submission(path))
    names: dict[str, str] = {}
    for s in found:
        if s.name in names:
            raise TreasureError(f"two submissions are both named {s.name!r}: {names[s.name]} and {s.spec}; "
                                "rename one")
        names[s.name] = s.spec
    return found, left_out


def _is_class_folder(path: Path) -> bool:
    """A folder on the command line is a folder of submissions, unless it is one student's
    folder with an agent.py (`students/*` gives each student's folder as a submission)."""
    return not (path / "agent.py").is_file()
