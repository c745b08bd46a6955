"""Where an agent's exception came from, in the agent's own code.

An agent's failure is reported with the agent's frames only: the referee's
and the host's frames (this package's) say nothing to the agent's author.
"""

from __future__ import annotations

import os
import traceback

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../treasure_cli

MAX_CHARS = 4000  # a traceback kept with a record: the innermost frames when it is longer


def _ours(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE + os.sep)


def agent_traceback(exc: BaseException) -> tuple[str, str]:
    """(where, text): the innermost frame of the agent's own code as `file:line in function`
    ("" when no frame is the agent's), and the traceback from the agent's first frame on."""
    frames = traceback.extract_tb(exc.__traceback__)
    first = next((i for i, f in enumerate(frames) if not _ours(f.filename)), len(frames))
    kept = frames[first:]
    theirs = [f for f in kept if not _ours(f.filename)]
    # The innermost frame in a file the agent wrote, not in the library it called (numpy, ...).
    own = [f for f in theirs if "site-packages" not in f.filename and "/lib/python" not in f.filename] or theirs
    where = f"{os.path.basename(own[-1].filename)}:{own[-1].lineno} in {own[-1].name}" if own else ""
    text = "".join(traceback.format_list(kept)) + "".join(traceback.format_exception_only(type(exc), exc))
    if len(text) > MAX_CHARS:
        text = "...\n" + text[-MAX_CHARS:]
    return where, text
