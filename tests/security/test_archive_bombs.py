"""A group's tar costs the referee what its caps allow, not what its headers claim.

tarfile reads a GNU long name (or pax records) whole into memory before any check: a .tar.gz of
1 MB holding a header that declares a 1 GB name took `tournament --dry-run` to 2.1 GB, and under a
memory limit stopped the whole class with a MemoryError traceback. A tar of 3 million folder
members (6.7 MB) took 78 s and 1.2 GB (folders did not count against the file cap, and tarfile
keeps every member it read); data skipped as litter (`__MACOSX/`) was decompressed without count."""

from __future__ import annotations

import gzip
import io
import tarfile
import tracemalloc
from pathlib import Path

import pytest

from treasure_cli.errors import AgentLoadError
from treasure_cli.grading import archives

AGENT = b"class Agent:\n    def act(self, obs):\n        return None\n"


def _header(name: str, size: int, kind: bytes) -> bytes:
    info = tarfile.TarInfo(name)
    info.size, info.type = size, kind
    return info.tobuf(format=tarfile.USTAR_FORMAT)


def _member(name: str, data: bytes) -> bytes:
    return _header(name, len(data), tarfile.REGTYPE) + data + b"\0" * (-len(data) % tarfile.BLOCKSIZE)


def _write_gz(path: Path, *parts: bytes) -> Path:
    with gzip.open(path, "wb", compresslevel=1) as g:
        for part in parts:
            g.write(part)
        g.write(b"\0" * 2 * tarfile.BLOCKSIZE)
    return path


def test_a_long_name_header_is_refused_before_it_is_read(tmp_path):
    size = 64 << 20  # 64 MB of name, 64 kB once compressed
    archive = tmp_path / "ann.tar.gz"
    with gzip.open(archive, "wb", compresslevel=1) as g:
        g.write(_header("././@LongLink", size, tarfile.GNUTYPE_LONGNAME))
        block = b"a" * (1 << 20)
        for _ in range(size // len(block)):
            g.write(block)
        g.write(_member("agent.py", AGENT) + b"\0" * 2 * tarfile.BLOCKSIZE)
    assert archive.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(AgentLoadError, match="over the 65536 bytes cap for a name or its records"):
            archives.unpack(archive)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"{peak} bytes at the peak for a {size}-byte header"


@pytest.mark.parametrize("kind", [tarfile.DIRTYPE, tarfile.REGTYPE])
def test_every_member_counts_against_the_file_cap_folders_and_litter_too(tmp_path, kind):
    member = _header("__MACOSX/x" if kind == tarfile.REGTYPE else "d/", 0, kind)
    archive = _write_gz(tmp_path / "bob.tar.gz", member * 101, _member("agent.py", AGENT))
    with pytest.raises(AgentLoadError, match="more files than the cap"):
        archives.unpack(archive, max_files=100, max_bytes=1 << 20)


def test_data_skipped_as_litter_counts_against_the_byte_cap(tmp_path):
    junk = _member("__MACOSX/._agent.py", b"\0" * (3 << 20))  # skipped, but decompressed all the same
    archive = _write_gz(tmp_path / "carl.tar.gz", junk, _member("agent.py", AGENT))
    with pytest.raises(AgentLoadError, match="more bytes than the cap"):
        archives.unpack(archive, max_files=100, max_bytes=1 << 20)


def test_a_plain_tar_and_each_compression_still_unpack(tmp_path):
    for mode, suffix in (("w", ".tar"), ("w:gz", ".tar.gz"), ("w:bz2", ".tar.bz2"), ("w:xz", ".tar.xz")):
        archive = tmp_path / f"dora{suffix}"
        with tarfile.open(archive, mode) as t:
            info = tarfile.TarInfo("dora/src/" + "long_name_" * 12 + ".py")  # a GNU long name, legitimately
            info.size = len(AGENT)
            t.addfile(info, io.BytesIO(AGENT))
        folder = archives.unpack(archive)
        assert (folder / "dora" / "src" / ("long_name_" * 12 + ".py")).read_bytes() == AGENT


def _zip_of_folders(path: Path, count: int) -> Path:
    """A zip of `count` folder entries, each pointing at the same local header (47 bytes an entry)."""
    import struct

    name = b"d/"
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0) + name
    entry = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0, 0, 0, 0,
                        0o40755 << 16, 0) + name
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, min(count, 0xFFFF), min(count, 0xFFFF), count * len(entry),
                      len(local), 0)
    path.write_bytes(local + entry * count + end)
    return path


def test_a_zip_of_many_entries_is_refused_before_zipfile_reads_its_directory(tmp_path):
    archive = _zip_of_folders(tmp_path / "eve.zip", 200_000)  # 9.4 MB
    tracemalloc.start()
    try:
        with pytest.raises(AgentLoadError, match="more files than the cap"):
            archives.unpack(archive, max_files=100, max_bytes=50 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"{peak} bytes at the peak for a directory of 200,000 entries"


def test_a_zip_and_a_zip64_under_the_caps_still_unpack(tmp_path):
    import zipfile

    for name, count in (("fay.zip", 3), ("gus.zip", 70_000)):  # past 65,535 entries: a zip64 end record
        with zipfile.ZipFile(tmp_path / name, "w") as z:
            z.writestr("g/agent.py", AGENT)
            for k in range(count):
                z.writestr(f"g/d{k}/", b"")
        folder = archives.unpack(tmp_path / name, max_files=100_000, max_bytes=50 << 20)
        assert (folder / "g" / "agent.py").read_bytes() == AGENT


def test_a_corrupt_compressed_tar_is_refused_with_its_reason(tmp_path):
    """Decompressed by this module now, not by tarfile: xz's and zlib's own errors are a reason too."""
    deflated = gzip.compress(_member("agent.py", AGENT * 200))
    for name, data in (("a.tar.xz", b"\xfd7zXZ\x00" + b"garbage" * 100),
                       ("b.tar.gz", deflated[:20] + bytes(200) + deflated[220:]),
                       ("c.tar.bz2", b"BZh9" + b"junk" * 50)):
        (tmp_path / name).write_bytes(data)
        with pytest.raises(AgentLoadError, match="the archive cannot be read"):
            archives.unpack(tmp_path / name)
