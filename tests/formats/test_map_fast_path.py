"""The vectorised grid reader against the precise per-cell one.

The fast path may only ever say "I cannot tell" (None), never a different
answer: on every text both readers must give the same island, the same
warnings or the same error message, and whenever the fast path does answer,
its grid must equal the precise path's cell for cell.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats.test_foreign_maps import foreign_map_text
from formats.test_map_file import ACCEPTED, FUZZ_ALPHABET, FUZZ_BASE, REJECTED, edit, edits, mutate
from treasure_cli.errors import MapFormatError
from treasure_cli.islands.generator import generate_island
from treasure_cli.formats import map_file
from treasure_cli.formats.map_file import _Reader, format_map


def verdict(text: str, fast: bool):
    """What a reader makes of `text`: the island and warnings, or the error message."""
    reader = _Reader(text, "m.txt", fast=fast)
    try:
        island = reader.parse()
    except MapFormatError as exc:
        return ("error", str(exc))
    return ("island", island, tuple(reader.warnings))


def fast_answer(text: str):
    """The fast path's grid for `text` (None: it handed over), plus the precise grid to compare."""
    reader = _Reader(text, "m.txt")
    try:
        (dims, *_), _ = reader.header()
    except MapFormatError:
        return None, None
    width, height = dims
    rows = reader.lines[5:]
    if width < 1 or height < 1 or len(rows) != height:
        return None, None
    try:
        precise = reader.precise_grid(rows, width, height)
    except MapFormatError as exc:
        precise = str(exc)
    return reader.fast_grid(rows, width, height), precise


def assert_same(text: str) -> bool:
    """Both readers agree on `text`; returns whether the fast path answered."""
    assert verdict(text, fast=True) == verdict(text, fast=False)
    fast, precise = fast_answer(text)
    if fast is None:
        return False
    assert not isinstance(precise, str), f"fast path accepted a grid the precise path rejects: {precise}"
    for a, b in zip(fast[:3], precise[:3]):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert fast[3] == precise[3]  # T markers with their line and column
    return True


def test_fast_path_answers_for_written_and_foreign_maps():
    # Not vacuous: the common layouts really take the fast path.
    answered = [assert_same(format_map(generate_island(s, s, rng=np.random.default_rng(s)))) for s in (5, 16, 40)]
    answered += [assert_same(foreign_map_text(seed)) for seed in range(30)]
    answered.append(assert_same(FUZZ_BASE))  # T marker, trailing ;, CRLF, no spaces
    assert all(answered)


# Rows whose count of numbers matches the width although their cells are
# wrong: only the token rules can tell (a letter then a digit, a space inside
# a number, a letter alone or after the last `;`).
TRICKY_ROWS = ["0; 1; 1; 2M2; 0", "0; 1; 1; 2M; 2; 0; M", "0; 1; 1 1; 2M; 0", "0; M; 1 1; 2M; 2; 0",
               "0; 1; 1; 2;M 2; 0", "0 1; 1; 1; 2M; 2; 0"]


def test_every_listed_variant_and_rejection_agrees():
    for text in ACCEPTED.values():
        assert assert_same(text)
    for text, _ in REJECTED.values():
        assert_same(text)
    for row in TRICKY_ROWS:
        text = edit(7, row)
        assert verdict(text, fast=True)[0] == "error"
        assert_same(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(edits, min_size=1, max_size=6))
def test_mutated_maps_agree(ops):
    assert_same(mutate(FUZZ_BASE, ops))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.lists(edits, max_size=3))
def test_foreign_maps_agree(seed, ops):
    assert_same(mutate(foreign_map_text(seed), ops))


# Cells near the edge of what the fast path handles: spaces inside numbers,
# two letters, long or huge numbers, other whitespace and digits, signs.
CELLS = ["0", "1", "2", " 3 ", "\t12\t", "1M", "2 P", "1\tT", "0M", "0P", "0T", "", " ", "1 2", "1MP", "M",
         "00000000001", "0000000001", "2147483647", "2147483648", "9999999999", "-1", "+1", "1X", "\u0661",
         "1\x0b", "\xa01", "1 ;", "1.0", "3T ", "1M2", "1P 3", "M1"]


@st.composite
def near_valid_maps(draw) -> str:
    h, w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    common = st.sampled_from(["1", "2", "1P", "0", "3M", " 4 "])
    cell = st.one_of(common, common, common, st.sampled_from(CELLS))
    rows = []
    for _ in range(h):
        cells = [draw(cell) for _ in range(w)]
        rows.append(";".join(cells) + draw(st.sampled_from(["", ";", " ; ", ";;"])))
    treasure = f"{draw(st.integers(0, h - 1))} {draw(st.integers(0, w - 1))}"
    return f"{w} {h}\n2\n5\n{draw(st.integers(0, 4))}\n{treasure}\n" + "\n".join(rows) + "\n"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_valid_maps())
def test_near_valid_grids_agree(text):
    assert_same(text)


@settings(max_examples=100, deadline=None)
@given(st.text(FUZZ_ALPHABET, max_size=120))
def test_random_rows_after_a_header_agree(rows):
    assert_same("3 3\n1\n2\n2\n1 1\n" + rows)


def test_a_long_first_row_does_not_allocate_width_times_height():
    # Row 0 is valid and 5 million cells wide; the 1 million rows after it
    # hold one cell each. Allocating the grid after row 0 alone would ask for
    # 5e12 cells; the precise path must report row 1 instead.
    width, height = 5_000_000, 1_000_000
    text = f"{width} {height}\n1\n1\n1\n0 0\n" + ";".join(["1"] * width) + "\n" + "1\n" * (height - 1)
    assert verdict(text, fast=True) == ("error", f"m.txt:7:2: row 1 has 1 cells, expected {width} (the width on line 1)")


def sliced(chunk_chars: int):
    """Big maps are parsed in slices of rows, reusing scratch arrays: make small maps do the same."""
    return mock.patch.object(map_file, "_CHUNK_CHARS", chunk_chars)


@pytest.mark.parametrize("chunk_chars", [1, 40])
def test_maps_read_in_slices_agree(chunk_chars):
    # A slice per row (or per few rows), of varying lengths: T markers,
    # trailing `;`, types on the sea and bad rows in later slices.
    with sliced(chunk_chars):
        answered = [assert_same(format_map(generate_island(s, s, rng=np.random.default_rng(s))))
                    for s in (5, 16, 40)]
        answered += [assert_same(foreign_map_text(seed)) for seed in range(30)]
        answered.append(assert_same(FUZZ_BASE))
        assert all(answered)
        for text in ACCEPTED.values():
            assert assert_same(text)
        for text, _ in REJECTED.values():
            assert_same(text)
        for row in TRICKY_ROWS:
            assert_same(edit(7, row))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_valid_maps(), st.sampled_from([1, 8, 40]))
def test_near_valid_grids_in_slices_agree(text, chunk_chars):
    with sliced(chunk_chars):
        assert_same(text)


def test_scratch_arrays_kept_from_map_to_map_change_nothing():
    # A thread keeps its scratch arrays for its next map (up to a size): maps
    # of other sizes after it, T markers, trailing `;` and rejected grids read
    # as with fresh arrays, and threads reading at once do not share them.
    texts = [format_map(generate_island(s, s, rng=np.random.default_rng(s))) for s in (40, 5, 64, 16)]
    texts += [foreign_map_text(seed) for seed in range(6)] + [FUZZ_BASE, edit(7, TRICKY_ROWS[0])]
    fresh = []
    for text in texts:
        with mock.patch.object(map_file, "_kept", threading.local()):
            fresh.append(verdict(text, fast=True))
    assert [verdict(text, fast=True) for text in texts * 2] == fresh * 2
    assert isinstance(map_file._kept.scratch, map_file._Scratch)  # not vacuous: the arrays were kept
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda text: verdict(text, fast=True), texts * 4)) == fresh * 4
    with mock.patch.object(map_file, "_KEEP_BYTES", 0):
        verdict(texts[0], fast=True)
        assert map_file._kept.scratch is None  # too large to keep
