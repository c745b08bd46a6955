"""Where an agent's exception came from, in the agent's own code.

An agent's failure is reported with the agent's frames only: the referee's
and the host's frames (this package's) say nothing to the agent's author.
"""

from __future__ import annotations

import os
import re
import traceback

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../treasure_cli

MAX_CHARS = 4000  # a traceback kept with a record: the innermost frames when it is longer


def _ours(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE + os.sep)


def _own_innermost(frames: list[tuple[str, int, str]]) -> tuple[str, int, str] | None:
    """Of (file, line, function) frames, innermost last: the innermost in a file the agent
    wrote, not in the library it called (numpy, ...); else the innermost not of this package."""
    theirs = [f for f in frames if not _ours(f[0])]
    own = [f for f in theirs if "site-packages" not in f[0] and "/lib/python" not in f[0]] or theirs
    return own[-1] if own else None


def agent_traceback(exc: BaseException) -> tuple[str, str]:
    """(where, text): the innermost frame of the agent's own code as `file:line in function`
    ("" when no frame is the agent's), and the traceback from the agent's first frame on."""
    frames = traceback.extract_tb(exc.__traceback__)
    first = next((i for i, f in enumerate(frames) if not _ours(f.filename)), len(frames))
    kept = frames[first:]
    own = _own_innermost([(f.filename, f.lineno or 0, f.name) for f in kept])
    where = f"{os.path.basename(own[0])}:{own[1]} in {own[2]}" if own else ""
    text = "".join(traceback.format_list(kept)) + "".join(traceback.format_exception_only(type(exc), exc))
    if len(text) > MAX_CHARS:
        text = "...\n" + text[-MAX_CHARS:]
    return where, text


_FATAL = "Fatal Python error: "
_FRAME = re.compile(r'^  File "(?P<file>[^"\n]*)", line (?P<line>\d+) in (?P<name>\S+)$', re.MULTILINE)


def fatal_error(output: str) -> tuple[str, str] | None:
    """What `faulthandler` printed when a fatal signal (a crash in a C extension, os.abort())
    ended an agent's Python process (sandbox/agent_host.py enables it): (what the agent printed
    before, a line such as `Fatal Python error: Segmentation fault, in seg.py:4 in act`), or
    None when `output` holds no such report."""
    start = output.find(_FATAL)
    if start < 0:
        return None
    report = output[start + len(_FATAL):]
    what, _, frames_text = report.partition("\n")
    frames_text = frames_text.split("\nExtension modules:", 1)[0].split(_FATAL, 1)[0]
    frames = [(m["file"], int(m["line"]), m["name"]) for m in _FRAME.finditer(frames_text)]
    own = _own_innermost(frames[::-1])  # faulthandler prints the innermost frame first
    where = f", in {os.path.basename(own[0])}:{own[1]} in {own[2]}" if own else ""
    return output[:start], f"{_FATAL}{what.strip()}{where}"
