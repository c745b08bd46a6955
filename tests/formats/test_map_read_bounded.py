"""Reading a map file's bytes and header lines, against the earlier reader.

The reader now takes a small file in one unbuffered read and checks the
header after, and reads the usual header lines without a regular
expression; the earlier versions are kept here as oracles: the same bytes,
values, or error and message, for any head and size (either side of the
one-read bound) and any header lines.
"""

from __future__ import annotations

import os
import re
import stat
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from treasure_cli.errors import MapFormatError
from treasure_cli.formats import map_file

_HEAD_BYTES = 4096
_CELL_BYTES = 64


def old_first_line_dims(head: bytes) -> tuple[int, int] | None:
    for line in head.splitlines():
        if line.strip():
            parts = re.split(rb"[\s,]+", line.strip().removeprefix(b"\xef\xbb\xbf"))
            if len(parts) == 2 and all(p.isdigit() and len(p) <= 9 for p in parts):
                return int(parts[0]), int(parts[1])
            return None
    return None


def old_read_bounded(path, name: str) -> bytes:
    with open(path, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise MapFormatError(name, None, None, "cannot read the file: not a regular file")
        head = fh.read(_HEAD_BYTES)
        dims = old_first_line_dims(head)
        if dims is None:
            return head + fh.read(16 * _HEAD_BYTES)
        width, height = dims
        limit = _HEAD_BYTES + (width + 1) * height * _CELL_BYTES
        if info.st_size > limit:
            raise MapFormatError(name, 1, 1, f"the file has {info.st_size} bytes, more than a {width}x{height} "
                                             f"map can take ({limit}): is line 1 right?")
        fh.seek(0)
        return fh.read()


def outcome(read, path):
    try:
        return "bytes", read(path, str(path))
    except (MapFormatError, OSError) as exc:
        return "error", type(exc), str(exc)


FIRST_LINES = [b"3 2", b"64 64", b"  7\t5 ", b"4,4", b"4 , 4", b" ,4 4", b"\xef\xbb\xbf3 3", b"\xef\xbb\xbf 3 3",
               b"\xef\xbb\xbf", b"1 1", b"0 0", b"999999999 999999999", b"1234567890 2", b"x 4", b"4", b"4 4 4",
               b"\xd9\xa3 3", b"3\x0b3", b"3\x0c3", b"+3 3", b"", b"   ", b"3 3\r", b"3\r3"]


@st.composite
def heads(draw) -> bytes:
    blank = draw(st.sampled_from([b"", b"\n", b"  \n", b"\r\n", b"\r", b"\n\t\n"]))
    first = b" " * draw(st.sampled_from([0, 0, 4090, 4093])) + draw(st.sampled_from(FIRST_LINES))  # near the head's end
    end = draw(st.sampled_from([b"\n", b"\r\n", b"\r", b""]))
    rest = draw(st.binary(max_size=40)) if draw(st.booleans()) else b"3\n2\n0 0\n1; 1P\n"
    return blank + first + end + rest


@settings(max_examples=500, deadline=None)
@given(st.one_of(heads(), st.binary(max_size=60)))
def test_first_line_dims_matches_the_earlier_version(head):
    assert map_file._first_line_dims(head) == old_first_line_dims(head)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(heads(), st.integers(0, 120_000), st.sampled_from([None, 0, 5000]))
@example(b" " * 4093 + b"64 64\n", 40_000, None)  # a first line running past the head: cut where it was
def test_read_bounded_matches_the_earlier_version(tmp_path, head, padding, whole_bytes):
    # Bodies either side of a 1x1 map's limit (4096 + 2 * 64 bytes) and of the
    # 17 * 4096 bytes returned when the header is unreadable; the one-read
    # bound made small too, so small files take the two-read path.
    path = tmp_path / "m.txt"
    path.write_bytes(head + b"1; " * (padding // 3))
    bound = map_file._WHOLE_BYTES if whole_bytes is None else whole_bytes
    with mock.patch.object(map_file, "_WHOLE_BYTES", bound):
        assert outcome(map_file._read_bounded, path) == outcome(old_read_bounded, path)


@pytest.mark.parametrize("make", ["missing", "directory", "device"])
def test_unreadable_paths_fail_as_before(tmp_path, make):
    path = {"missing": tmp_path / "nothing.txt", "directory": tmp_path, "device": "/dev/null"}[make]
    assert outcome(map_file._read_bounded, path) == outcome(old_read_bounded, path)
    assert outcome(map_file._read_bounded, path)[0] == "error"


# -- the header lines, against the earlier reading (a regular expression per line)

_INT = re.compile(r"[+-]?\d+")
_MAX_DIGITS = 100


def old_header(reader) -> tuple[list[list[int]], list[int]]:
    values, line_numbers = [], []
    for index, (what, count) in enumerate(map_file._HEADER_FIELDS):
        if index >= len(reader.lines):
            last = reader.lines[-1][0] if reader.lines else 1
            raise reader.fail(last, 1, f"file ends before header line {index + 1}: expected the {what}")
        number, text = reader.lines[index]
        tokens = [(m.group(), m.start() + 1) for m in re.finditer(r"[^\s,]+", text)]
        if len(tokens) != count:
            col = tokens[count][1] if len(tokens) > count else len(text) + 1
            raise reader.fail(number, col, f"expected the {what} ({count} whole number{'s' if count > 1 else ''}), "
                                           f"found {text.strip()!r}")
        row = []
        for token, col in tokens:
            if not _INT.fullmatch(token):
                raise reader.fail(number, col, f"expected a whole number for the {what}, found {token!r}")
            if len(token) > _MAX_DIGITS:
                raise reader.fail(number, col, f"the number for the {what} is too long ({len(token)} characters)")
            row.append(int(token))
        values.append(row)
        line_numbers.append(number)
    return values, line_numbers


WORDS = ["3", "64", "007", "+4", "-2", "1" * 101, "1" * 100, "\u0663", "\u00b2", "x", "3x", "4,4", ","]
GAPS = [" ", "  ", "\t", ",", ", ", "\x1c", "\u00a0", "\u2028", "\x0b"]


@st.composite
def header_texts(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        words = draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=3))
        gap = draw(st.sampled_from(GAPS))
        lines.append(draw(st.sampled_from(["", " ", "\t"])) + gap.join(words) + draw(st.sampled_from(["", " ", ","])))
    return "\n".join(lines) + "\n1; 1P\n"


@settings(max_examples=500, deadline=None)
@given(header_texts())
def test_header_matches_the_earlier_version(text):
    def read(header):
        try:
            return "values", header(map_file._Reader(text, "m.txt"))
        except MapFormatError as exc:
            return "error", str(exc)
    assert read(lambda r: r.header()) == read(old_header)
