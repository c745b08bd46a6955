"""Atomic file output: a reader never sees a half-written file."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path


TEMP_SUFFIX = ".tmp"


def ensure_folder(folder: Path) -> None:
    """Create `folder` and its parents; a file in the way is named in the error."""
    for part in (folder, *folder.parents):
        if part.exists() and not part.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "is a file, not a folder", str(part))
    folder.mkdir(parents=True, exist_ok=True)


def temp_prefix(name: str) -> str:
    """Temp files for `name` are `.<name>.<random>.tmp`: hidden, and recognisable as ours."""
    return f".{name}."


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` to a temp file beside `path`, then rename it into place.

    On any failure (a full disk, no permission, an interruption) the temp file
    is removed and `path` keeps what it held before.
    """
    if str(path) in ("", ".") or path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    ensure_folder(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        # mkstemp makes the file owner-only; give it the usual umask-based mode.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
