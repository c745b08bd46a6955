"""Atomic file output: a reader never sees a half-written file."""

from __future__ import annotations

import errno
import functools
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


@functools.lru_cache(maxsize=1)
def _umask() -> int:
    """The process's umask, read once: reading it means setting it, which other
    threads writing files at that moment would see."""
    umask = os.umask(0)
    os.umask(umask)
    return umask


def temp_prefix(name: str) -> str:
    """Temp files for `name` are `.<name>.<random>.tmp`: hidden, and recognisable as ours."""
    return f".{name}."


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` to a temp file beside `path`, then rename it into place.

    On any failure (a full disk, no permission, an interruption) the temp file
    is removed and `path` keeps what it held before.
    """
    path = Path(path)
    if str(path) in ("", ".") or os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    data = text.encode("utf-8")  # a log is a few kB: one buffer, written with os.write
    try:
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=TEMP_SUFFIX, dir=path.parent)
    except (FileNotFoundError, NotADirectoryError):
        # The folder is missing (or a file is in its way, which ensure_folder names): the
        # common case, a folder that exists, pays for no checks of its parents.
        ensure_folder(path.parent)
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        # mkstemp makes the file owner-only; give it the usual umask-based mode.
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
