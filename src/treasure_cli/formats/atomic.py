"""Atomic file output: a reader never sees a half-written file."""

from __future__ import annotations

import errno
import functools
import os
import stat
from pathlib import Path


TEMP_SUFFIX = ".tmp"
# A new file only (O_EXCL), never through a symbolic link, closed in child processes.
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


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


def _create_temp(folder: str, name: str) -> tuple[int, str]:
    """A new, empty, owner-only temp file for `name` in `folder`: its descriptor and path.

    What tempfile.mkstemp does, without its generality: its Path and name
    machinery cost more than the system calls when a whole game is a few ms.
    """
    for _ in range(100):
        tmp = os.path.join(folder, f"{temp_prefix(name)}{os.urandom(6).hex()}{TEMP_SUFFIX}")
        try:
            return os.open(tmp, _CREATE, 0o600), tmp
        except FileExistsError:  # 48 random bits taken: try another name
            continue
    raise FileExistsError(errno.EEXIST, "no unused temp file name", folder)


def _write_special(target: str, mode: int, text: str) -> None:
    """`text` written straight to a terminal, a pipe or a device such as /dev/null or /dev/stdout:
    renaming a temp file over one would replace it with a regular file (as root, /dev/null
    itself). A folder, a block device or a socket is refused."""
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", target)
    if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        raise OSError(errno.EINVAL, "is a device or socket, not a file", target)
    if stat.S_ISFIFO(mode):
        # A pipe no program reads (a FIFO left in a folder) would block the open for ever, and a
        # caller that holds signals while it writes (a run's log) could not even be stopped.
        try:
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
            raise OSError(errno.ENXIO, "is a pipe that no program reads", target) from None
        os.set_blocking(fd, True)
        with open(fd, "w", encoding="utf-8") as out:
            out.write(text)
        return
    with open(target, "w", encoding="utf-8") as out:
        out.write(text)


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` to a temp file beside `path`, then rename it into place.

    On any failure (a full disk, no permission, an interruption) the temp file
    is removed and `path` keeps what it held before. A terminal, pipe or
    character device (`/dev/null`, `/dev/stdout`) is written to as it is.
    """
    target = str(path if isinstance(path, Path) else Path(path))  # as Path spells it: "a//b/" is "a/b"
    if target in ("", "."):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", target)
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = 0  # nothing there yet (or nothing we can see): the temp file's creation says why
    if mode and not stat.S_ISREG(mode):
        _write_special(target, mode, text)
        return
    folder, name = os.path.split(target)
    folder = folder or os.curdir
    data = text.encode("utf-8")  # a log is a few kB: one buffer, written with os.write
    try:
        fd, tmp = _create_temp(folder, name)
    except (FileNotFoundError, NotADirectoryError):
        # The folder is missing (or a file is in its way, which ensure_folder names): the
        # common case, a folder that exists, pays for no checks of its parents.
        ensure_folder(Path(folder))
        fd, tmp = _create_temp(folder, name)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        # Created owner-only; once whole, the file gets the usual umask-based mode.
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
