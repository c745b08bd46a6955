"""A file agent's or a program's folder, sent to a machine that cannot see it (a Dask worker).

An agent plays with the files beside it (a group's helpers, packages, data files, a build's
output): sandbox/launch.py copies them from its folder. A Dask worker on another machine has no
such folder, and would play the entry file alone. So, before a cluster plays, the referee packs
once per agent the files its copy would hold (`launch.folder_files`: the same files, under the
same caps) with the entry's bytes (the ones its code digest names) into one bundle named by its
SHA-256 (`pack`). The executor sends each bundle once to each worker (play/executor.py); a
worker checks the bytes against the name, unpacks them once per machine into a private folder
named by it (`receive`), and the game plays from there as it would from the original
(`local_spec`): the agent's copy is made from the bundle, never from the worker's own disk.

A bundle holds regular files only, at relative paths without `..`; one that is not what its
digest says, or that breaks those rules or the caps, is refused.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shlex
import shutil
import stat
import tempfile
import zlib
from pathlib import Path, PurePosixPath

from treasure_cli.agents.registry import EXEC, GROUP_TOP, exec_command, group_top, is_exec_spec, is_file_spec
from treasure_cli.errors import TreasureError
from treasure_cli.sandbox import launch, tree


@dataclasses.dataclass(frozen=True)
class Bundle:
    digest: str  # SHA-256 (hex) of `data`
    data: bytes  # zlib: a JSON line [[path, size, executable], ...], then the files' bytes in that order


def entry_path(spec: str) -> str | None:
    """The file a spec plays from (a file agent's source, a program), None for installed code."""
    if is_exec_spec(spec):
        return exec_command(spec)[0]
    if is_file_spec(spec):
        return spec.strip().rpartition(":")[0]
    return None


def pack(spec: str, source: bytes) -> Bundle | None:
    """The bundle of `spec` (a file agent or a program) whose entry's bytes are `source`: the entry
    and the files beside it that its copy would hold. None for installed code (nothing to send)."""
    name = entry_path(spec)
    if name is None:
        return None
    folder, beside = launch.folder_files(name)
    entry = name.rpartition(GROUP_TOP)[2] if group_top(name) else Path(name).name  # its path in the folder
    listed: list[list] = [[entry, len(source), is_exec_spec(spec)]]
    blobs = [source]
    total = 0  # the files beside it, under the cap of a folder (the entry travels in any case)
    for rel in beside:
        data, executable = _read(folder / rel)
        if data is None:
            continue  # gone or not a regular file since it was listed: as the local copy does
        total += len(data)
        if total > tree.MAX_BYTES:
            raise TreasureError(f"{folder}: more than {tree.MAX_BYTES >> 20} MB of files (the cap)")
        listed.append([rel.as_posix(), len(data), executable])
        blobs.append(data)
    raw = json.dumps(listed, ensure_ascii=True).encode() + b"\n" + b"".join(blobs)
    data = zlib.compress(raw, 6)
    return Bundle(hashlib.sha256(data).hexdigest(), data)


def _read(path: Path) -> tuple[bytes | None, bool]:
    """A regular file's bytes (never through a link) and whether it is executable."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None, False
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            return None, False
        return f.read(tree.MAX_BYTES + 1), bool(st.st_mode & 0o111)


def _unpacked(digest: str, data: bytes) -> list[tuple[str, bytes, bool]]:
    """The files of a bundle, checked: its digest, its paths, the caps."""
    if hashlib.sha256(data).hexdigest() != digest:
        raise TreasureError(f"the agent's files sent as {digest[:16]} are not what was sent (digest differs)")
    inflate = zlib.decompressobj()
    raw = inflate.decompress(data, tree.MAX_BYTES + (4 << 20))
    if inflate.unconsumed_tail:
        raise TreasureError(f"the agent's files {digest[:16]}: over the {tree.MAX_BYTES >> 20} MB cap")
    head, _, body = raw.partition(b"\n")
    listed = json.loads(head)
    if not isinstance(listed, list) or not listed or len(listed) > tree.MAX_FILES + 1:
        raise TreasureError(f"the agent's files {digest[:16]}: not a bundle")
    files = []
    at = 0
    for rel, size, executable in listed:
        parts = PurePosixPath(rel).parts if isinstance(rel, str) else ()
        if not parts or rel.startswith("/") or "\\" in rel or any(p in ("", ".", "..") for p in parts):
            raise TreasureError(f"the agent's files {digest[:16]}: a path out of its folder ({rel!r})")
        files.append((rel, body[at:at + size], bool(executable)))
        at += size
    if at != len(body):
        raise TreasureError(f"the agent's files {digest[:16]}: not a bundle")
    return files


_RECEIVED: dict[str, tuple[Path, bytes]] = {}  # digest -> the folder this process unpacked or checked, the bytes


def receive(digest: str, data: bytes) -> Path:
    """The folder holding the bundle `digest` (`data`, checked), unpacked once per machine: a
    folder of an earlier process is used when its files are still those of the bundle."""
    known = _RECEIVED.get(digest)
    if known is not None and (known[1] is data or known[1] == data):  # (a worker gets one bytes object)
        return known[0]
    files = _unpacked(digest, data)
    root = Path(tempfile.gettempdir()) / f"treasure-cli-received-{os.getuid()}"
    root.mkdir(mode=0o700, exist_ok=True)
    if root.lstat().st_uid != os.getuid() or root.is_symlink():
        raise TreasureError(f"{root} belongs to another user: agents' files cannot go there")
    folder = root / digest[:32]
    if not _holds(folder, files):
        fresh = Path(tempfile.mkdtemp(dir=root, prefix=f".{digest[:16]}-"))
        for rel, blob, executable in files:
            path = fresh / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "xb") as f:
                f.write(blob)
            os.chmod(path, 0o755 if executable else 0o644)
        if folder.exists():  # not what it should be: out of the way, then replaced
            stale = Path(tempfile.mkdtemp(dir=root, prefix=".stale-"))
            os.replace(folder, stale / "old")
            shutil.rmtree(stale, ignore_errors=True)
        try:
            os.replace(fresh, folder)
        except OSError:  # another worker process of this machine made it at the same moment
            shutil.rmtree(fresh, ignore_errors=True)
            if not _holds(folder, files):
                raise TreasureError(f"{folder}: cannot unpack the agent's files there") from None
    _RECEIVED[digest] = (folder, data)
    return folder


def _holds(folder: Path, files: list[tuple[str, bytes, bool]]) -> bool:
    """Whether `folder` holds exactly `files` (the same paths and bytes, nothing else)."""
    if not folder.is_dir():
        return False
    try:
        there = {os.path.relpath(os.path.join(d, f), folder) for d, _, fs in os.walk(folder) for f in fs}
        if there != {rel for rel, _, _ in files}:
            return False
        return all((folder / rel).read_bytes() == blob for rel, blob, _ in files)
    except OSError:
        return False


_ANNOUNCED: set[tuple[str, str]] = set()


def local_spec(spec: str, digest: str) -> tuple[str, str]:
    """`spec` as it plays on this machine from its received bundle `digest` (`receive`), and the
    folder it names in place of the original's (to say paths in errors as the original's)."""
    known = _RECEIVED.get(digest)
    if known is None:
        raise TreasureError(f"the files of agent {spec!r} ({digest[:16]}) never reached this worker")
    folder = known[0]
    name = entry_path(spec)
    assert name is not None  # a bundle is made for a file agent or a program only
    # The entry where the bundle put it; a group's top folder marked as the original's was.
    here = f"{folder}{GROUP_TOP}{name.rpartition(GROUP_TOP)[2]}" if group_top(name) else str(folder / Path(name).name)
    if (digest, here) not in _ANNOUNCED:  # its folder listed once per process, not walked each game
        launch.received(here)
        _ANNOUNCED.add((digest, here))
    if is_exec_spec(spec):
        words = exec_command(spec)
        return EXEC + shlex.join([here, *words[1:]]), str(folder)
    return f"{here}:{spec.strip().rpartition(':')[2]}", str(folder)
