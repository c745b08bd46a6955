"""A group's archive (.zip, .tar.gz, .tgz) unpacked safely into a private folder.

An archive is a stranger's file: every member is checked before a byte is
written. Refused: a path that leaves the folder (`../x`, `/etc/x`, a drive
letter), a link of any kind (symbolic or hard; a tar's devices and fifos), more
than MAX_FILES members or MAX_BYTES of content (as the archive declares it, and
again as it is written, so a lying header stops at the cap). The litter of
archivers (`__MACOSX/`, `.DS_Store`, `__pycache__/`) is skipped. A refused
archive is left out with its reason; nothing is written outside the folder.

The folder is named by the archive's digest under the temporary folder, so the
same archive unpacks to the same path (and the same agent spec) on every run.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import shutil
import stat
import struct
import tarfile
import tempfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import IO

from treasure_cli.errors import AgentLoadError
from treasure_cli.sandbox import tree

SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar", ".tar.xz", ".txz", ".tar.bz2", ".tbz2")  # (tarfile reads every tar)
# Archives that would need a program the referee does not run on strangers' files: named as such.
FOREIGN = (".rar", ".7z", ".zst", ".tar.zst", ".xz", ".bz2", ".gz", ".lzma", ".cab", ".arj")


def foreign_archive(path: Path) -> str | None:
    """The suffix of an archive of a kind this program does not unpack, else None."""
    lower = path.name.lower()
    return next((s for s in sorted(FOREIGN, key=len, reverse=True) if lower.endswith(s)), None)


def is_archive(path: Path) -> bool:
    return path.is_file() and path.name.lower().endswith(SUFFIXES)


def stem(path: Path) -> str:
    """The archive's name without its suffix: the group's name."""
    lower = path.name.lower()
    for suffix in SUFFIXES:
        if lower.endswith(suffix):
            return path.name[: -len(suffix)]
    return path.name


def _member_path(name: str) -> PurePosixPath | None:
    """A member's path inside the folder; None to skip it (litter, the folder itself); AgentLoadError if it leaves."""
    clean = name.replace("\\", "/")
    if clean.startswith("/") or (len(clean) > 1 and clean[1] == ":"):
        raise AgentLoadError(f"the archive has an absolute path ({name!r}): refused")
    parts = [p for p in PurePosixPath(clean).parts if p not in ("", ".")]
    if ".." in parts:
        raise AgentLoadError(f"the archive has a path outside its folder ({name!r}): refused")
    if not parts or any(tree.skipped(p) for p in parts):
        return None
    if any(len(p.encode("utf-8", "surrogateescape")) > 255 for p in parts) or len(clean) > 1024:
        shown = clean if len(clean) <= 60 else clean[:60] + "..."
        raise AgentLoadError(f"the archive has a path too long to unpack ({shown!r}, {len(clean)} characters): refused")
    return PurePosixPath(*parts)


UNPACKED = "treasure-cli-unpacked-"  # the unpacked archives' folder, under the temporary folder, + the user id
UNPACK_FORMAT = 2  # in the unpacked folder's name: a change of what is unpacked makes a folder of its own


def unpack(archive: Path, max_files: int | None = None, max_bytes: int | None = None) -> Path:
    """The folder `archive` unpacks to (unpacked on each call, and checked; the first folder made
    from the same bytes is kept); AgentLoadError saying why it is refused. The caps: those given, else those in force (sandbox/tree.py: caps)."""
    max_files = tree.caps().files if max_files is None else max_files
    max_bytes = tree.caps().bytes if max_bytes is None else max_bytes
    size = archive.stat().st_size
    if size > max_bytes:
        raise AgentLoadError(f"the archive is {tree.size_text(size)}, over the {tree.cap_text(max_bytes)} cap")
    digest = hashlib.sha256()
    with open(archive, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    root = Path(tempfile.gettempdir()) / f"{UNPACKED}{os.getuid()}"
    root.mkdir(mode=0o700, exist_ok=True)
    if root.lstat().st_uid != os.getuid() or root.is_symlink():
        raise AgentLoadError(f"{root} belongs to another user: archives cannot be unpacked there")
    fresh = Path(tempfile.mkdtemp(dir=root, prefix=".new-"))
    try:
        if archive.name.lower().endswith(".zip"):
            _unzip(archive, fresh, max_files, max_bytes)
        else:
            _untar(archive, fresh, max_files, max_bytes)
    except AgentLoadError:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError, ValueError, lzma.LZMAError, zlib.error) as exc:
        shutil.rmtree(fresh, ignore_errors=True)
        raise AgentLoadError(f"the archive cannot be read ({type(exc).__name__}: {exc})") from None
    folder = root / f"{digest.hexdigest()[:16]}-{UNPACK_FORMAT}"
    try:
        os.rename(fresh, folder)
    except OSError:
        # Unpacked before (the same bytes unpack to the same files): that folder is kept, not
        # replaced, since a tournament may be playing from it while a --dry-run or check-agent
        # unpacks the class again.
        shutil.rmtree(fresh, ignore_errors=True)
        if not folder.is_dir() or folder.is_symlink():
            raise AgentLoadError(f"the archive cannot be unpacked: {folder} is in the way") from None
    return folder


class _Budget:
    def __init__(self, max_files: int, max_bytes: int):
        self.files, self.bytes = max_files, max_bytes

    def file(self) -> None:
        self.files -= 1
        if self.files < 0:
            raise AgentLoadError("the archive has more files than the cap")

    def take(self, n: int) -> None:
        self.bytes -= n
        if self.bytes < 0:
            raise AgentLoadError("the archive unpacks to more bytes than the cap")


def _write(target: Path, source: object, budget: _Budget, executable: bool) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "xb") as out:  # never through a file that is there already
        while True:
            block = source.read(1 << 16)  # type: ignore[attr-defined]
            if not block:
                break
            budget.take(len(block))
            out.write(block)
    os.chmod(target, 0o755 if executable else 0o644)


def _zip_entries(archive: Path, max_files: int) -> None:
    """AgentLoadError if the zip's central directory lists more than `max_files` entries, counted
    header by header before zipfile reads it: zipfile makes an object of every entry first, and a
    48 MB zip of a million folder entries (all pointing at one local header) took 500 MB and 10 s.
    A directory this cannot walk is left to zipfile, which says what is wrong with it."""
    with open(archive, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        tail_at = max(0, size - (65535 + 22))
        f.seek(tail_at)
        tail = f.read()
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or len(tail) - at < 22:
            return
        cd_size, cd_offset = struct.unpack_from("<2L", tail, at + 12)
        end = tail_at + at
        if (cd_size == 0xFFFFFFFF or cd_offset == 0xFFFFFFFF) and at >= 20 and tail[at - 20:at - 16] == b"PK\x06\x07":
            record = struct.unpack_from("<Q", tail, at - 20 + 8)[0]  # the zip64 end record's offset
            f.seek(record)
            zip64 = f.read(56)
            if len(zip64) < 56 or zip64[:4] != b"PK\x06\x06":
                return
            cd_size, cd_offset = struct.unpack_from("<2Q", zip64, 40)
            end = record
        start = end - cd_size  # (as zipfile finds it: data may come before the archive)
        if start < 0:
            return
        f.seek(start)
        count, walked = 0, 0
        while walked + 46 <= cd_size:
            header = f.read(46)
            if len(header) < 46 or header[:4] != b"PK\x01\x02":
                return
            count += 1
            if count > max_files:
                raise AgentLoadError("the archive has more files than the cap")
            names = sum(struct.unpack_from("<3H", header, 28))
            f.seek(names, os.SEEK_CUR)
            walked += 46 + names


def _unzip(archive: Path, folder: Path, max_files: int, max_bytes: int) -> None:
    budget = _Budget(max_files, max_bytes)
    _zip_entries(archive, max_files)
    with zipfile.ZipFile(archive) as z:
        members = z.infolist()
        if sum(m.file_size for m in members) > max_bytes:
            raise AgentLoadError(f"the archive unpacks to more than {tree.cap_text(max_bytes)} (the cap)")
        for member in members:
            mode = member.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise AgentLoadError(f"the archive has a link ({member.filename!r}): refused")
            budget.file()  # every member counts, a folder too
            rel = _member_path(member.filename)
            if rel is None or member.is_dir():
                continue
            with z.open(member) as source:
                _write(folder / rel, source, budget, bool(mode & 0o111))


# A tar's extended headers (a GNU long name or link, pax records) are read whole into memory
# by tarfile: a real one is a few hundred bytes, and one that declares a gigabyte of name (a
# megabyte once compressed) took the referee to 2 GB before any check. Larger ones are refused.
EXTENDED_HEADER_CAP = 64 * 1024
_EXTENDED = {tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE}


class _CheckedInfo(tarfile.TarInfo):
    """A tar member whose extended header is checked against EXTENDED_HEADER_CAP before tarfile reads it."""

    def _proc_member(self, tar: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in _EXTENDED and self.size > EXTENDED_HEADER_CAP:
            raise AgentLoadError(f"the archive has a header of {tree.size_text(self.size)}, over the "
                                 f"{tree.cap_text(EXTENDED_HEADER_CAP)} cap for a name or its records")
        member: tarfile.TarInfo = super()._proc_member(tar)  # type: ignore[misc]  # tarfile's own reading
        return member


class _Capped:
    """A stream read no further than `cap` bytes: every byte of a tar (its members' data, the data
    of those skipped, its headers) is read through it, so a tar that unpacks to more stops there."""

    def __init__(self, stream: IO[bytes] | gzip.GzipFile, cap: int):
        self.stream, self.left = stream, cap

    def read(self, n: int = -1) -> bytes:
        block = self.stream.read(self.left + 1 if n < 0 else n)
        self.left -= len(block)
        if self.left < 0:
            raise AgentLoadError("the archive unpacks to more bytes than the cap")
        return block


def _decompressed(raw: IO[bytes]) -> IO[bytes] | gzip.GzipFile:
    """`raw`'s tar stream: decompressed as its first bytes say (gzip, bzip2, xz), else as it is."""
    magic = raw.read(6)
    raw.seek(0)
    if magic.startswith(b"\x1f\x8b"):
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if magic.startswith(b"BZh"):
        return bz2.BZ2File(raw)
    if magic == b"\xfd7zXZ\x00":
        return lzma.LZMAFile(raw)
    return raw


def _untar(archive: Path, folder: Path, max_files: int, max_bytes: int) -> None:
    """Read as a stream, member by member (tarfile keeps every member it read: each counts against
    the file cap, a folder too), through a stream capped at the byte cap and a header per member."""
    budget = _Budget(max_files, max_bytes)
    with open(archive, "rb") as raw, _decompressed(raw) as stream:
        capped = _Capped(stream, max_bytes + (max_files + 2) * 3 * tarfile.BLOCKSIZE)
        with tarfile.open(fileobj=capped, mode="r|", tarinfo=_CheckedInfo) as t:  # type: ignore[call-overload]
            for member in t:
                budget.file()
                if member.issym() or member.islnk():
                    raise AgentLoadError(f"the archive has a link ({member.name!r}): refused")
                rel = _member_path(member.name)
                if rel is None or member.isdir():
                    continue
                if not member.isfile():
                    raise AgentLoadError(f"the archive has a device or pipe ({member.name!r}): refused")
                source = t.extractfile(member)
                if source is None:
                    continue
                with source:
                    _write(folder / rel, source, budget, bool(member.mode & 0o111))
