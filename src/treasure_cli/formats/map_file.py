"""Read and write the Treasure Island map text format.

The reader is lenient about layout (blank lines, CRLF, tabs, trailing `;`,
comma-separated header numbers, `T` markers, a wrong region count) and strict
about content: every problem raises MapFormatError naming the file, the 1-based
line and column, and what was expected. Map coordinates in messages are the
0-based (row, col) used everywhere else. The writer emits one canonical form.

The grid is read twice over only when it is unusual: a vectorised pass over
the rows' bytes handles the common text, and anything it does not recognise
is re-read cell by cell by the precise path, which owns every message.
"""

from __future__ import annotations

import os
import re
import stat
import threading
from pathlib import Path
from typing import Any

import numpy as np

from treasure_cli.errors import MapFormatError
from treasure_cli.rules.island import SEA, Island

_INT = re.compile(r"[+-]?\d+")
_REGION_MAX = int(np.iinfo(np.int32).max)
# Longer digit strings are rejected before int(), which raises ValueError
# past Python's 4300-digit conversion limit.
_MAX_DIGITS = 100
_CELL = re.compile(r"(-?\d+)\s*(\S*)\s*$")
_HEADER_FIELDS = (
    ("width and height", 2),
    ("turn of the prison reveal (r)", 1),
    ("turn of the pirate's release (f)", 1),
    ("number of regions (R)", 1),
    ("treasure row and column", 2),
)

# -- fast grid path -----------------------------------------------------------
# The common map is ASCII digits, `;`, spaces, tabs and M/P/T. The fast path
# reads such rows with a few numpy passes over their bytes; the moment it sees
# anything else (another character, a missing number, a wrong cell count, a
# type on the sea...) it gives up and the precise per-cell path re-reads the
# grid, so every message is the precise path's own.
_ALLOWED = b"0123456789; \tMPT\n"
_FAST_DIGITS = 10  # longer numbers (leading zeros, huge regions) go the precise way
_CHUNK_CHARS = 1 << 20  # rows are parsed in slices of about this much text: bounded temporaries


class _Scratch:
    """Arrays the fast path reuses from slice to slice.

    Fresh temporaries for every slice are handed back to the system and
    faulted in again page by page by the next slice: at 4096x4096 that was
    ~1 GB of page faults (240,000 faults, more time than the arithmetic);
    with the scratch arrays, 15,000.
    """

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def __call__(self, name: str, size: int, dtype: Any) -> np.ndarray:
        a = self.arrays.get(name)
        if a is None or a.size < size:
            a = self.arrays[name] = np.empty(size + size // 4, dtype=dtype)  # room for a longer slice
        return a[:size]

    @classmethod
    def take(cls) -> _Scratch:
        """The arrays a previous map left in this thread, or new ones."""
        return getattr(_kept, "scratch", None) or cls()

    def keep(self) -> None:
        """Leave the arrays to the thread's next map, unless they are large: from map to map
        the same faults come back (at 256x256, 0.9 of 2.3 ms); a large map's ~25 MB would
        stay held through its game."""
        _kept.scratch = self if sum(a.nbytes for a in self.arrays.values()) <= _KEEP_BYTES else None


_KEEP_BYTES = 8 << 20  # a 256x256 map takes about 4.3 MB
_kept = threading.local()  # one thread's arrays are another's garbage while it parses


def _fast_rows(texts: list[str], width: int, out: np.ndarray, scratch: _Scratch) -> Any:
    """The map rows `texts`: regions into `out` (int32, one per cell, row-major),
    or None if anything is unusual (then `out` holds garbage).

    Returns (cells, letters, t_cols): the cells with a type letter (indices
    into `out`), their letters (M, P or T as bytes) and, for each T cell,
    its 1-based column in its line. Temporaries live in `scratch`.
    """
    joined = "\n".join(texts) + "\n"
    if not joined.isascii():
        return None
    data = joined.encode("ascii")
    squeezed = data.translate(None, b" \t")  # the text with spaces and tabs removed
    if squeezed.translate(None, _ALLOWED):  # a character the fast path does not read is left
        return None
    tok = np.frombuffer(squeezed, dtype=np.uint8)
    n = tok.size
    digit = np.subtract(tok, np.uint8(ord("0")), out=scratch("digit", n, np.uint8))  # other bytes wrap to >= 10
    dig = np.less(digit, 10, out=scratch("dig", n, bool))
    kind = np.greater(tok, ord("A"), out=scratch("kind", n, bool))  # M, P or T: nothing else is left above
    sep = np.equal(tok, ord(";"), out=scratch("sep", n, bool))
    eol = np.equal(tok, ord("\n"), out=scratch("eol", n, bool))
    end = np.logical_or(sep, eol, out=scratch("end", n, bool))
    test = scratch("test", n - 1, bool)
    # Token order, spaces aside: each cell is a number then at most one type
    # letter; a row may end with one `;`. Comparing neighbours in the
    # squeezed stream (the row before the first one counts as a newline);
    # for bools, a > b is a & ~b:
    if not dig[0] or np.greater(kind[1:], dig[:-1], out=test).any():  # a letter follows a digit
        return None
    if np.greater(kind[:-1], end[1:], out=test).any():  # after a letter: `;` or newline
        return None
    if np.logical_and(sep[1:], end[:-1], out=test).any():  # `;` closes a cell
        return None
    # So a `;` or a row start is followed by a number or the row's end, and
    # each cell is digits, a letter or not, and the `;` or newline closing it
    # (a newline right after a row's last `;` closes nothing).
    np.greater(end[1:], sep[:-1], out=end[1:])
    closers = end.nonzero()[0]
    count = width * len(texts)
    if closers.size != count:
        return None
    rows_end = eol.nonzero()[0]  # one per row
    trailing = sep[rows_end - 1]  # rows ending with `;`
    # Each row closes `width` cells if the last closer of row k (its newline,
    # or the `;` before it) is closer number (k + 1) * width: closers ascend.
    if (closers[width - 1::width] != rows_end - trailing).any():
        return None
    letters = kind.nonzero()[0]
    cells = closers.searchsorted(letters + 1)  # a letter's cell: the next byte closes it
    last = np.subtract(closers, 1, out=scratch("last", count, np.intp))  # the last digit of each number
    last[cells] -= 1
    first = scratch("first", count, np.intp)  # the first digit
    first[0] = 0
    np.add(closers[:-1], 1, out=first[1:])
    if trailing.any():  # the row after a closing `;` starts past its newline
        first[(trailing[:-1].nonzero()[0] + 1) * width] += 1
    lengths = np.subtract(last, first, out=scratch("lengths", count, np.intp))  # digits - 1
    longest = int(lengths.max()) + 1
    if longest > _FAST_DIGITS:
        return None
    # "1 2" looks like "12" once spaces are gone: the raw text must have as
    # many digit-after-digit pairs as the numbers have.
    if len(squeezed) != len(data):
        raw = np.frombuffer(data, dtype=np.uint8)
        raw_digit = np.subtract(raw, np.uint8(ord("0")), out=scratch("raw_digit", raw.size, np.uint8))
        raw_dig = np.less(raw_digit, 10, out=scratch("raw_dig", raw.size, bool))
        pairs = np.logical_and(raw_dig[1:], raw_dig[:-1], out=scratch("raw_test", raw.size - 1, bool))
        if np.count_nonzero(pairs) != np.count_nonzero(dig) - count:  # every digit but each number's first
            return None
    wide = longest > 9  # 10 digits may pass int32: checked in int64
    values = scratch("wide", count, np.int64) if wide else out
    d = np.take(digit, first, out=scratch("d", count, np.uint8), mode="clip")
    short = scratch("short", count, np.uint8)
    short[:] = lengths  # (at most 9) a byte at a time
    if longest == 2:  # the usual map's numbers: the last digit, plus ten times the first if there are two
        np.multiply(d, short, out=d)
        np.multiply(d, 10, out=d)
        values[:] = np.take(digit, last, out=short, mode="clip")
        np.add(values, d, out=values)
    else:
        # Horner, one digit position at a time, over every number at once: a
        # number shorter than the position keeps its value (and adds a 0).
        values[:] = d
        more = scratch("more", count, bool)
        for k in range(1, longest):
            np.take(digit[k:], first, out=d, mode="clip")  # digit k of each number (clipped: past the end)
            np.greater_equal(short, k, out=more)
            np.multiply(values, 10, out=values, where=more)
            np.add(values, d, out=values, where=more)
    if wide:
        if int(values.max()) > _REGION_MAX:
            return None
        out[:] = values
    what = tok[letters]
    if (out[cells] == SEA).any():  # a type on the sea: the precise path says so
        return None
    t_cols = []
    if b"T" in squeezed:  # rare: the column of a T marker, as the precise path reports it
        t_cells = (what == ord("T")).nonzero()[0]
        raw = np.frombuffer(data, dtype=np.uint8)
        solid = np.flatnonzero((raw != ord(" ")) & (raw != ord("\t")))
        t_cols = [int(pos) - joined.rfind("\n", 0, int(pos)) for pos in solid[first[cells[t_cells]]]]
    return cells, what, t_cols


class _Reader:
    """One parse of one text; collects warnings, raises on the first error."""

    def __init__(self, text: str, path: str, fast: bool = True):
        self.path = path
        self.fast = fast  # False: the precise per-cell grid path only (tests compare the two)
        self.warnings: list[str] = []
        # (1-based line number, line text) for every non-blank line. Split only
        # on \n, \r\n and \r (not str.splitlines, which also breaks at \f, \x1c,
        # U+2028...) so line numbers match what an editor shows.
        # (str.split is ~7x faster than the regular expression on big maps.)
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        # (`ln and not ln.isspace()` is `ln.strip()` without copying every line.)
        self.lines = [(i + 1, ln) for i, ln in enumerate(text.split("\n")) if ln and not ln.isspace()]

    def fail(self, line: int | None, col: int | None, message: str) -> MapFormatError:
        return MapFormatError(self.path, line, col, message)

    def warn(self, line: int, message: str) -> None:
        self.warnings.append(f"{self.path}:{line}: warning: {message}")

    def header(self) -> tuple[list[list[int]], list[int]]:
        values, line_numbers = [], []
        for index, (what, count) in enumerate(_HEADER_FIELDS):
            if index >= len(self.lines):
                last = self.lines[-1][0] if self.lines else 1
                raise self.fail(last, 1, f"file ends before header line {index + 1}: expected the {what}")
            number, text = self.lines[index]
            words = text.split()  # the usual line, plain digits between blanks: read without re
            if len(words) != count or not all(w.isascii() and w.isdigit() and len(w) <= _MAX_DIGITS for w in words):
                words = self.header_words(number, text, what, count)
            values.append([int(w) for w in words])
            line_numbers.append(number)
        return values, line_numbers

    def header_words(self, number: int, text: str, what: str, count: int) -> list[str]:
        """The numbers of a header line, or the error with its column."""
        tokens = [(m.group(), m.start() + 1) for m in re.finditer(r"[^\s,]+", text)]
        if len(tokens) != count:
            col = tokens[count][1] if len(tokens) > count else len(text) + 1
            raise self.fail(
                number, col,
                f"expected the {what} ({count} whole number{'s' if count > 1 else ''}), "
                f"found {text.strip()!r}",
            )
        for token, col in tokens:
            if not _INT.fullmatch(token):
                raise self.fail(number, col, f"expected a whole number for the {what}, found {token!r}")
            if len(token) > _MAX_DIGITS:
                raise self.fail(number, col, f"the number for the {what} is too long ({len(token)} characters)")
        return [token for token, _ in tokens]

    def grid(self, width: int, height: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
        rows = self.lines[5:]
        if len(rows) != height:
            if len(rows) > height:
                number, _ = rows[height]
                raise self.fail(number, 1, f"found more than {height} map rows, expected {height} (the height on line 1)")
            last = rows[-1][0] if rows else self.lines[4][0]
            raise self.fail(last, 1, f"found {len(rows)} map rows, expected {height} (the height on line 1)")
        if self.fast:
            result = self.fast_grid(rows, width, height)
            if result is not None:
                return result
        return self.precise_grid(rows, width, height)

    def fast_grid(self, rows: list[tuple[int, str]], width: int, height: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any] | None:
        """The grid from vectorised passes over the rows' bytes; None when the precise path must decide."""
        texts = [text for _, text in rows]
        total = sum(map(len, texts))
        # A valid grid has at least a digit and a `;` per cell. Checked before
        # allocating (H, W): one long first row must not make a few short
        # rows after it allocate width x height.
        if total < height * (2 * width - 1):
            return None
        if total < _CHUNK_CHARS:
            chunks = [(0, height)]
        else:
            chunks, start, size = [], 0, 0
            for end, text in enumerate(texts, 1):
                size += len(text)
                if size >= _CHUNK_CHARS or end == height:
                    chunks.append((start, end))
                    start, size = end, 0
        regions = np.empty((height, width), dtype=np.int32)
        flat = regions.reshape(-1)
        scratch = _Scratch.take()
        parsed = []
        for lo, hi in chunks:
            rows_parsed = _fast_rows(texts[lo:hi], width, flat[lo * width:hi * width], scratch)
            if rows_parsed is None:
                break
            parsed.append(rows_parsed)
        scratch.keep()
        if rows_parsed is None:
            return None
        mountain = np.zeros((height, width), dtype=bool)
        prison = np.zeros((height, width), dtype=bool)
        markers: list[tuple[int, int, int, int]] = []
        for (lo, _), (cells, what, t_cols) in zip(chunks, parsed):
            if lo:
                cells = cells + lo * width
            mountain.reshape(-1)[cells[what == ord("M")]] = True
            prison.reshape(-1)[cells[what == ord("P")]] = True
            for cell, col in zip(cells[what == ord("T")].tolist() if t_cols else (), t_cols):
                r, c = divmod(cell, width)
                markers.append((r, c, rows[r][0], col))
        return regions, mountain, prison, markers

    def precise_grid(self, rows: list[tuple[int, str]], width: int, height: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
        """One cell at a time, stopping at the first problem with its exact position."""
        # Check every row's cell count before allocating: a corrupt width on
        # line 1 must give a MapFormatError, not a huge allocation.
        split_rows = []
        for r, (number, text) in enumerate(rows):
            cells = text.split(";")
            starts, pos = [], 0
            for cell in cells:
                starts.append(pos + 1)
                pos += len(cell) + 1
            if len(cells) == width + 1 and not cells[-1].strip():
                cells, starts = cells[:-1], starts[:-1]
            if len(cells) != width:
                col = starts[width] if len(cells) > width else len(text) + 1
                raise self.fail(number, col, f"row {r} has {len(cells)} cells, expected {width} (the width on line 1)")
            split_rows.append((number, cells, starts))
        regions = np.zeros((height, width), dtype=np.int32)
        mountain = np.zeros((height, width), dtype=bool)
        prison = np.zeros((height, width), dtype=bool)
        markers: list[tuple[int, int, int, int]] = []  # row, col, line, column
        for r, (number, cells, starts) in enumerate(split_rows):
            for c, (cell, start) in enumerate(zip(cells, starts)):
                stripped = cell.strip()
                col = start + (len(cell) - len(cell.lstrip()))
                where = f"cell ({r}, {c})"
                m = _CELL.match(stripped)
                if not m:
                    raise self.fail(
                        number, col,
                        f"{where}: expected a region number and an optional type M, P or T, found {stripped!r}",
                    )
                if len(m.group(1)) > _MAX_DIGITS:
                    raise self.fail(number, col, f"{where}: region number too long ({len(m.group(1))} characters)")
                region, kind = int(m.group(1)), m.group(2)
                if region < 0:
                    raise self.fail(number, col, f"{where}: region {region} is negative, expected 0 or more")
                if region > _REGION_MAX:
                    raise self.fail(number, col, f"{where}: region {region} is too large, expected at most {_REGION_MAX}")
                regions[r, c] = region
                if kind == "":
                    continue
                if kind not in ("M", "P", "T"):
                    raise self.fail(number, col, f"{where}: unknown cell type {kind!r}, expected M, P, T or nothing")
                if region == SEA:
                    raise self.fail(number, col, f"{where}: sea (region 0) cannot be of type {kind}")
                if kind == "M":
                    mountain[r, c] = True
                elif kind == "P":
                    prison[r, c] = True
                else:
                    markers.append((r, c, number, col))
        return regions, mountain, prison, markers

    def parse(self) -> Island:
        (dims, (r_turn,), (f_turn,), (declared,), (tr, tc)), ln = self.header()
        width, height = dims
        if width < 1 or height < 1:
            raise self.fail(ln[0], 1, f"width and height must be at least 1, found {width} {height}")
        if r_turn < 1:
            raise self.fail(ln[1], 1, f"the reveal turn r must be 1 or more, found {r_turn}")
        if f_turn < 1:
            raise self.fail(ln[2], 1, f"the release turn f must be 1 or more, found {f_turn}")
        regions, mountain, prison, markers = self.grid(width, height)

        if len(markers) > 1:
            r, c, number, col = markers[1]
            raise self.fail(number, col, f"cell ({r}, {c}): a second T marker, expected at most one")
        if markers and markers[0][:2] != (tr, tc):
            r, c, number, col = markers[0]
            raise self.fail(number, col, f"cell ({r}, {c}): T marker disagrees with the treasure ({tr}, {tc}) on line 5")

        where = f"the treasure ({tr}, {tc})"
        if not (0 <= tr < height and 0 <= tc < width):
            raise self.fail(
                ln[4], 1, f"{where} is outside the {width}x{height} map (rows 0-{height - 1}, columns 0-{width - 1})"
            )
        if regions[tr, tc] == SEA:
            raise self.fail(ln[4], 1, f"{where} is on the sea, expected a plain land tile")
        if mountain[tr, tc]:
            raise self.fail(ln[4], 1, f"{where} is on a mountain, expected a plain land tile")
        if prison[tr, tc]:
            raise self.fail(ln[4], 1, f"{where} is on a prison, expected a plain land tile")
        if not prison.any():
            raise self.fail(self.lines[5][0], 1, "the map has no prison, expected at least one P cell")

        for tiles in (regions, mountain, prison):  # ours alone: the island takes them without a copy
            tiles.setflags(write=False)
        island = Island(regions, mountain, prison, r_turn, f_turn, (tr, tc))
        if not island.reachable_prisons:
            raise self.fail(ln[4], 1, f"{where} cannot be reached by walking from any prison")
        if declared != island.region_count:
            self.warn(
                ln[3],
                f"R is {declared} but the regions present need {island.region_count} "
                f"(highest region {island.region_count - 1}); using {island.region_count}",
            )
        return island


def parse_map(text: str, path: str = "<map>", warnings: list[str] | None = None) -> Island:
    """Parse map text; append any warnings to `warnings` if given."""
    reader = _Reader(text, path)
    island = reader.parse()
    if warnings is not None:
        warnings.extend(reader.warnings)
    return island


_HEAD_BYTES = 4096
_CELL_BYTES = 64  # the most one tile may take: padding, a long region number, a type, the `;`
_WHOLE_BYTES = 1 << 20  # a file this small is read in one call and its header checked after


_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # (POSIX; Windows has no named pipes to wait on this way)


def opener_without_waiting(path: str, flags: int) -> int:
    """open()'s `opener` for files that must be regular: opening a named pipe for reading waits
    for a writer, perhaps forever, before fstat could refuse it. Reading a regular file is
    the same with the flag."""
    return os.open(path, flags | _NONBLOCK)


def _read_bounded(path: str | Path, name: str) -> bytes:
    """The bytes of a regular file no larger than the size on its first line allows.

    So /dev/zero, a pipe or a huge file with a small header is refused at
    once instead of read without bound.
    """
    # Unbuffered, and a small file in one read (most maps): after a game the
    # caches are cold, and a buffered file, a second read and a seek cost
    # about 15 of the 60 us of reading a 64x64 map.
    with open(path, "rb", buffering=0, opener=opener_without_waiting) as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise MapFormatError(name, None, None, "cannot read the file: not a regular file")
        data = fh.read() if info.st_size <= _WHOLE_BYTES else None
        head = fh.read(_HEAD_BYTES) if data is None else data[:_HEAD_BYTES]
        dims = _first_line_dims(head)
        if dims is None:  # the parser will say what is wrong with the header
            return head + fh.read(16 * _HEAD_BYTES) if data is None else data[:17 * _HEAD_BYTES]
        width, height = dims
        limit = _HEAD_BYTES + (width + 1) * height * _CELL_BYTES
        if info.st_size > limit:
            raise MapFormatError(name, 1, 1, f"the file has {info.st_size} bytes, more than a {width}x{height} "
                                             f"map can take ({limit}): is line 1 right?")
        if data is not None:
            return data
        fh.seek(0)  # read it whole in one piece: `head + rest` copied a big map's text once more
        return fh.read()


def _first_line_dims(head: bytes) -> tuple[int, int] | None:
    line = head.split(b"\n", 1)[0]
    stripped = line.strip().removeprefix(b"\xef\xbb\xbf")
    if stripped and stripped == stripped.strip() and b"\r" not in line and b"," not in stripped:
        parts = stripped.split()  # the usual first line: what re.split below gives, without re
    else:
        for line in head.splitlines():
            if line.strip():
                parts = re.split(rb"[\s,]+", line.strip().removeprefix(b"\xef\xbb\xbf"))
                break
        else:
            return None
    if len(parts) == 2 and all(p.isdigit() and len(p) <= 9 for p in parts):
        return int(parts[0]), int(parts[1])
    return None


def looks_like_map(path: str | Path) -> bool:
    """Whether a file starts as a map does, read from its first bytes only: its first non-blank
    line is a map's first header line, its width and height (two whole numbers, as the reader
    takes them). A game log (docs/log-format.md: its first line is one count), a README or a
    binary file does not; a map broken further on (a header cut short, a wrong cell, a missing
    row) does, and is a map to check."""
    try:
        with open(path, "rb", buffering=0, opener=opener_without_waiting) as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return False
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return False
    for line in head.replace(b"\r", b"\n").split(b"\n"):
        if line.strip():
            words = re.split(rb"[\s,]+", line.strip().removeprefix(b"\xef\xbb\xbf"))
            return len(words) == _HEADER_FIELDS[0][1] and all(re.fullmatch(rb"[+-]?\d+", w) for w in words)
    return False


def read_map(path: str | Path, warnings: list[str] | None = None) -> Island:
    """Read a map file (never modifies it)."""
    return parse_map(read_map_text(path), str(path), warnings)


def read_map_text(path: str | Path) -> str:
    """A map file's text: from a regular file, bounded by its header, decoded as UTF-8."""
    name = str(path)
    try:
        data = _read_bounded(path, name)
    except OSError as exc:
        raise MapFormatError(name, None, None, f"cannot read the file: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise MapFormatError(name, line, col, "not a text file (invalid UTF-8 byte)") from None
    return text


def format_map(island: Island) -> str:
    """The canonical text of a map: `"; "`-joined cells, no T marker, `\\n` ends."""
    if island.treasure is None:
        raise ValueError("cannot write a map without its treasure position")
    out = [
        f"{island.width} {island.height}",
        str(island.reveal_turn),
        str(island.free_turn),
        str(island.region_count),
        f"{island.treasure[0]} {island.treasure[1]}",
    ]
    kind = np.where(island.mountain, 1, np.where(island.prison, 2, 0)).astype(np.int64)
    count = island.region_count
    if count <= 1 << 16:
        # Every distinct cell text built once, then looked up per tile: the
        # np.char version formatted each tile on its own (6.8 s at 4096x4096).
        names = [f"{r}{k}" for r in range(count) for k in ("", "M", "P")]
        codes = island.regions.astype(np.int64) * 3 + kind
        out.extend("; ".join([names[c] for c in row]) for row in codes.tolist())
    else:  # huge region numbers (a foreign map): format each tile
        suffix = np.array(["", "M", "P"])[kind]
        cells = np.char.add(island.regions.astype(str), suffix)
        out.extend("; ".join(row) for row in cells.tolist())
    return "\n".join(out) + "\n"


def write_map(island: Island, path: str | Path) -> None:
    """Write the canonical text atomically (temp file + rename)."""
    from treasure_cli.formats.atomic import write_text_atomic

    write_text_atomic(Path(path), format_map(island))
