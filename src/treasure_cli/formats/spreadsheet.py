"""CSV for a spreadsheet: every cell inert, whatever a submission's name holds.

A spreadsheet reads a cell that starts with `=`, `+`, `-` or `@` as a formula
(`=HYPERLINK(...)` in a student's file name is a link, `=1` a number worked
out), and a tab or a carriage return at the start of a cell lets one slip past
that check. Following OWASP's advice on CSV injection, such a cell is written
with a single quote in front (`'=1`): the spreadsheet shows the text as it is.
Numbers the program writes itself (win %, counts) never start with one of
these, so they stay numbers. A cell is kept on one line, its control
characters written as backslash escapes (`\\n`), as every table of the
program shows a name.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence

from treasure_cli.formats.text import one_line

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(cell: str) -> str:
    """`cell` as a spreadsheet will show it, never run it: on one line (a line break or another control
    character as its backslash escape, as every table shows a name), a quote in front of a formula's
    first character."""
    if cell.startswith(FORMULA_STARTS):
        cell = "'" + cell
    return one_line(cell)


def csv_text(fields: Sequence[str], rows: Iterable[Mapping[str, str]]) -> str:
    """A CSV file's text: a header of `fields`, then one line per row, every cell made `inert`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([inert(f) for f in fields])
    for row in rows:
        writer.writerow([inert(row.get(f, "")) for f in fields])
    return buffer.getvalue()
