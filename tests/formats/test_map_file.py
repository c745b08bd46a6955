"""The map reader and writer (RULES §2): every accepted variant, every rejected
case with its exact message, the round trip, and a fuzz test."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from helpers import SMALL_MAP

from treasure_cli.errors import MapFormatError
from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.island import Island
from treasure_cli.formats.map_file import format_map, parse_map, read_map, write_map

BASE = SMALL_MAP  # 6x5; header on lines 1-5, map rows on lines 6-10


def base_island() -> Island:
    regions = np.array(
        [
            [0, 0, 0, 0, 0, 0],
            [0, 1, 1, 2, 2, 0],
            [0, 1, 1, 2, 2, 0],
            [0, 1, 1, 2, 2, 0],
            [0, 0, 0, 0, 0, 0],
        ]
    )
    mountain = np.zeros((5, 6), dtype=bool)
    mountain[1, 3] = True
    prison = np.zeros((5, 6), dtype=bool)
    prison[2, 1] = prison[2, 4] = True
    return Island(regions, mountain, prison, 2, 5, (1, 2))


def edit(line: int, new: str, text: str = BASE) -> str:
    """`text` with its 1-based `line` replaced."""
    lines = text.split("\n")
    lines[line - 1] = new
    return "\n".join(lines)


def error_of(text: str) -> str:
    with pytest.raises(MapFormatError) as info:
        parse_map(text, "m.txt")
    return str(info.value)


def test_base_map_parses_to_the_expected_island():
    warnings: list[str] = []
    assert parse_map(BASE, "m.txt", warnings) == base_island()
    assert warnings == []


def test_writer_emits_the_canonical_form():
    assert format_map(base_island()) == BASE


# -- accepted variants ----------------------------------------------------------
ACCEPTED = {
    "blank lines before the header": "\n\n  \n" + BASE,
    "blank lines between header lines": BASE.replace("\n2\n5\n", "\n\n2\n\t\n5\n\n"),
    "blank lines after the rows": BASE + "\n\n   \n",
    "blank lines between rows": BASE.replace("0; 1P;", "\n0; 1P;"),
    "no final newline": BASE.rstrip("\n"),
    "CRLF line ends": BASE.replace("\n", "\r\n"),
    "tabs and spaces around numbers and ;": BASE.replace("; ", " \t;\t  ").replace("6 5", " \t6 \t 5\t"),
    "no spaces at all": BASE.replace("; ", ";"),
    "one trailing ; per row": BASE.replace("; 0\n", "; 0;\n"),
    "trailing ; with spaces": BASE.replace("; 0\n", "; 0 ; \t\n"),
    "header numbers separated by a comma": BASE.replace("6 5", "6,5").replace("1 2\n", "1, 2\n"),
    "header numbers separated by comma and spaces": BASE.replace("6 5", "6 ,\t5"),
    "T marker agreeing with line 5 (2T form)": edit(7, "0; 1; 1T; 2M; 2; 0"),
    "T marker agreeing with line 5 (2 T form)": edit(7, "0; 1; 1 T; 2M; 2; 0"),
    "space between region and type": BASE.replace("1P", "1 P").replace("2M", "2\tM"),
}


@pytest.mark.parametrize("text", list(ACCEPTED.values()), ids=list(ACCEPTED))
def test_accepted_variants_give_the_same_island(text):
    warnings: list[str] = []
    assert parse_map(text, "m.txt", warnings) == base_island()
    assert warnings == []


def test_multi_digit_regions():
    text = """\
6 5
2
5
18
1 2
0; 0; 0; 0; 0; 0
0; 1; 1; 17M; 17; 0
0; 1P; 1; 17; 17P; 0
0; 1; 1; 17; 17; 0
0; 0; 0; 0; 0; 0
"""
    island = parse_map(text, "m.txt")
    assert island.land_regions == (1, 17)
    assert island.mountain[1, 3] and island.regions[1, 3] == 17
    assert island.prison[2, 4] and island.regions[2, 4] == 17
    assert "17M" in format_map(island)
    assert parse_map(format_map(island)) == island


@pytest.mark.parametrize("declared", ["2", "9", "0"])
def test_region_count_disagreeing_warns_and_uses_the_real_count(declared):
    warnings: list[str] = []
    island = parse_map(edit(4, declared), "m.txt", warnings)
    assert island == base_island()
    assert island.region_count == 3
    assert warnings == [
        f"m.txt:4: warning: R is {declared} but the regions present need 3 (highest region 2); using 3"
    ]


def test_read_map_strips_a_utf8_bom(tmp_path):
    path = tmp_path / "MAP_bom.txt"
    path.write_bytes(b"\xef\xbb\xbf" + BASE.encode())
    assert read_map(path) == base_island()


# -- rejected cases -------------------------------------------------------------
UNREACHABLE = """\
6 5
2
5
3
1 1
0; 0; 0; 0; 0; 0
0; 1; 1M; 2; 2; 0
0; 1; 1M; 2; 2P; 0
0; 1; 1M; 2; 2; 0
0; 0; 0; 0; 0; 0
"""

REJECTED = {
    "missing header field (height)": (
        edit(1, "6"),
        "m.txt:1:2: expected the width and height (2 whole numbers), found '6'",
    ),
    "missing header field (treasure column)": (
        edit(5, "1"),
        "m.txt:5:2: expected the treasure row and column (2 whole numbers), found '1'",
    ),
    "extra header field": (
        edit(1, "6 5 7"),
        "m.txt:1:5: expected the width and height (2 whole numbers), found '6 5 7'",
    ),
    "file ends inside the header": (
        "6 5\n2\n5\n",
        "m.txt:3:1: file ends before header line 4: expected the number of regions (R)",
    ),
    "empty file": ("", "m.txt:1:1: file ends before header line 1: expected the width and height"),
    "non-numeric width/height": (
        edit(1, "6 x"),
        "m.txt:1:3: expected a whole number for the width and height, found 'x'",
    ),
    "non-numeric r": (
        edit(2, "two"),
        "m.txt:2:1: expected a whole number for the turn of the prison reveal (r), found 'two'",
    ),
    "non-integer f": (
        edit(3, "5.0"),
        "m.txt:3:1: expected a whole number for the turn of the pirate's release (f), found '5.0'",
    ),
    "non-numeric R": (
        edit(4, "R"),
        "m.txt:4:1: expected a whole number for the number of regions (R), found 'R'",
    ),
    "non-numeric treasure": (
        edit(5, "1 b"),
        "m.txt:5:3: expected a whole number for the treasure row and column, found 'b'",
    ),
    "zero width": (edit(1, "0 5"), "m.txt:1:1: width and height must be at least 1, found 0 5"),
    "row with too few cells": (
        edit(7, "0; 1; 1; 2M; 2"),
        "m.txt:7:15: row 1 has 5 cells, expected 6 (the width on line 1)",
    ),
    "row with too many cells": (
        edit(7, "0; 1; 1; 2M; 2; 0; 0"),
        "m.txt:7:19: row 1 has 7 cells, expected 6 (the width on line 1)",
    ),
    "row with two trailing ;": (
        edit(7, "0; 1; 1; 2M; 2; 0;;"),
        "m.txt:7:19: row 1 has 8 cells, expected 6 (the width on line 1)",
    ),
    "too few rows": (
        "\n".join(BASE.split("\n")[:9]) + "\n",
        "m.txt:9:1: found 4 map rows, expected 5 (the height on line 1)",
    ),
    "too many rows": (
        BASE + "0; 0; 0; 0; 0; 0\n",
        "m.txt:11:1: found more than 5 map rows, expected 5 (the height on line 1)",
    ),
    "unknown cell type": (
        edit(9, "0; 1; 1X; 2; 2; 0"),
        "m.txt:9:7: cell (3, 2): unknown cell type 'X', expected M, P, T or nothing",
    ),
    "two cell types": (
        edit(9, "0; 1; 1MP; 2; 2; 0"),
        "m.txt:9:7: cell (3, 2): unknown cell type 'MP', expected M, P, T or nothing",
    ),
    "non-numeric cell": (
        edit(9, "0; 1; a; 2; 2; 0"),
        "m.txt:9:7: cell (3, 2): expected a region number and an optional type M, P or T, found 'a'",
    ),
    "empty cell": (
        edit(9, "0; 1;; 2; 2; 0"),
        "m.txt:9:6: cell (3, 2): expected a region number and an optional type M, P or T, found ''",
    ),
    "negative region": (
        edit(9, "0; 1; -1; 2; 2; 0"),
        "m.txt:9:7: cell (3, 2): region -1 is negative, expected 0 or more",
    ),
    "region too large": (
        edit(9, "0; 1; 3000000000; 2; 2; 0"),
        "m.txt:9:7: cell (3, 2): region 3000000000 is too large, expected at most 2147483647",
    ),
    "M on sea": (edit(10, "0; 0; 0M; 0; 0; 0"), "m.txt:10:7: cell (4, 2): sea (region 0) cannot be of type M"),
    "P on sea": (edit(10, "0; 0; 0; 0P; 0; 0"), "m.txt:10:10: cell (4, 3): sea (region 0) cannot be of type P"),
    "T marker disagreeing with line 5": (
        edit(9, "0; 1; 1; 2T; 2; 0"),
        "m.txt:9:10: cell (3, 3): T marker disagrees with the treasure (1, 2) on line 5",
    ),
    "two T markers": (
        edit(9, "0; 1T; 1; 2; 2; 0", edit(7, "0; 1; 1T; 2M; 2; 0")),
        "m.txt:9:4: cell (3, 1): a second T marker, expected at most one",
    ),
    "treasure outside the map (row)": (
        edit(5, "5 2"),
        "m.txt:5:1: the treasure (5, 2) is outside the 6x5 map (rows 0-4, columns 0-5)",
    ),
    "treasure outside the map (negative)": (
        edit(5, "-1 2"),
        "m.txt:5:1: the treasure (-1, 2) is outside the 6x5 map (rows 0-4, columns 0-5)",
    ),
    "treasure outside the map (column)": (
        edit(5, "1 6"),
        "m.txt:5:1: the treasure (1, 6) is outside the 6x5 map (rows 0-4, columns 0-5)",
    ),
    "treasure on sea": (edit(5, "0 0"), "m.txt:5:1: the treasure (0, 0) is on the sea, expected a plain land tile"),
    "treasure on a mountain": (
        edit(5, "1 3"),
        "m.txt:5:1: the treasure (1, 3) is on a mountain, expected a plain land tile",
    ),
    "treasure on a prison": (
        edit(5, "2 1"),
        "m.txt:5:1: the treasure (2, 1) is on a prison, expected a plain land tile",
    ),
    "no prison": (
        BASE.replace("1P", "1").replace("2P", "2"),
        "m.txt:6:1: the map has no prison, expected at least one P cell",
    ),
    "no prison reaches the treasure": (
        UNREACHABLE,
        "m.txt:5:1: the treasure (1, 1) cannot be reached by walking from any prison",
    ),
    "r = 0": (edit(2, "0"), "m.txt:2:1: the reveal turn r must be 1 or more, found 0"),
    "r < 0": (edit(2, "-2"), "m.txt:2:1: the reveal turn r must be 1 or more, found -2"),
    "f = 0": (edit(3, "0"), "m.txt:3:1: the release turn f must be 1 or more, found 0"),
    "f < 0": (edit(3, "-3"), "m.txt:3:1: the release turn f must be 1 or more, found -3"),
    "over-long header number": (
        edit(2, "2" * 5000),
        "m.txt:2:1: the number for the turn of the prison reveal (r) is too long (5000 characters)",
    ),
    "over-long region number": (
        edit(9, "0; 1; " + "7" * 5000 + "; 2; 2; 0"),
        "m.txt:9:7: cell (3, 2): region number too long (5000 characters)",
    ),
    "huge width is checked before allocating": (
        edit(1, "5000000000000 5"),
        "m.txt:6:17: row 0 has 6 cells, expected 5000000000000 (the width on line 1)",
    ),
}


@pytest.mark.parametrize("text, message", list(REJECTED.values()), ids=list(REJECTED))
def test_rejected_cases_name_file_line_column(text, message):
    assert error_of(text) == message


def test_error_positions_count_crlf_and_blank_lines_like_an_editor():
    text = "\r\n" + edit(9, "0; 1; 1X; 2; 2; 0").replace("\n", "\r\n")
    assert error_of(text) == "m.txt:10:7: cell (3, 2): unknown cell type 'X', expected M, P, T or nothing"


def test_form_feed_is_not_a_line_break():
    # str.splitlines() would split here and shift every later line number.
    text = edit(9, "0; 1; 1X; 2; 2; 0").replace("\n2\n", "\n2\f\n")
    assert error_of(text) == "m.txt:9:7: cell (3, 2): unknown cell type 'X', expected M, P, T or nothing"


def test_error_carries_path_line_and_column():
    with pytest.raises(MapFormatError) as info:
        parse_map(edit(9, "0; 1; 1X; 2; 2; 0"), "dir/MAP_1.txt")
    err = info.value
    assert (err.path, err.line, err.column) == ("dir/MAP_1.txt", 9, 7)
    assert err.message == "cell (3, 2): unknown cell type 'X', expected M, P, T or nothing"


# -- files ----------------------------------------------------------------------
def test_non_utf8_file_is_a_map_format_error(tmp_path):
    path = tmp_path / "MAP_bin.txt"
    path.write_bytes(b"6 5\n2\n\xff\xfe\n")
    with pytest.raises(MapFormatError) as info:
        read_map(path)
    assert str(info.value) == f"{path}:3:1: not a text file (invalid UTF-8 byte)"


def test_missing_file_is_a_map_format_error(tmp_path):
    path = tmp_path / "nope.txt"
    with pytest.raises(MapFormatError) as info:
        read_map(path)
    assert str(info.value) == f"{path}: cannot read the file: No such file or directory"


@pytest.mark.parametrize("text", [BASE, edit(4, "9"), edit(9, "0; 1; 1X; 2; 2; 0")], ids=["valid", "warning", "broken"])
def test_reading_never_modifies_the_file(tmp_path, text):
    path = tmp_path / "MAP_x.txt"
    path.write_bytes(text.replace("\n", "\r\n").encode())
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # a past mtime, so a rewrite would show
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    try:
        read_map(path, [])
    except MapFormatError:
        pass
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MAP_x.txt"]


def test_write_map_then_read_map(tmp_path):
    path = tmp_path / "sub" / "MAP_w.txt"
    write_map(base_island(), path)
    assert path.read_bytes() == BASE.encode()
    assert read_map(path) == base_island()
    assert sorted(p.name for p in path.parent.iterdir()) == ["MAP_w.txt"]  # no temp file left


def test_writer_formats_huge_and_small_region_numbers_alike():
    # Region numbers past the writer's lookup table take its per-tile path.
    for top in (17, 2**31 - 1):
        regions = np.array([[0, 1, top], [top, 1, 0]])
        mountain = np.array([[False, False, True], [False, False, False]])
        prison = np.array([[False, True, False], [False, False, False]])
        island = Island(regions, mountain, prison, 2, 5, (1, 1))
        assert format_map(island).endswith(f"0; 1P; {top}M\n{top}; 1; 0\n")
        assert parse_map(format_map(island)) == island


def test_writer_refuses_an_island_without_treasure():
    with pytest.raises(ValueError):
        format_map(base_island().public())


# -- properties -----------------------------------------------------------------
@st.composite
def arbitrary_islands(draw) -> Island:
    """Valid islands that need not look like ours: any regions, scattered
    mountains and prisons, land on the border; one prison next to the treasure."""
    h = draw(st.integers(1, 7))
    w = draw(st.integers(2 if h == 1 else 1, 7))
    cells = st.integers(0, 30)
    regions = np.array(draw(st.lists(st.lists(cells, min_size=w, max_size=w), min_size=h, max_size=h)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    land = regions != 0
    mountain = land & (rng.random((h, w)) < 0.3)
    prison = land & ~mountain & (rng.random((h, w)) < 0.2)
    tr, tc = draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))
    if regions[tr, tc] == 0:
        regions[tr, tc] = draw(st.integers(1, 30))
    mountain[tr, tc] = prison[tr, tc] = False
    nbrs = [(tr + dr, tc + dc) for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1))]
    pr, pc = draw(st.sampled_from([p for p in nbrs if 0 <= p[0] < h and 0 <= p[1] < w]))
    if regions[pr, pc] == 0:
        regions[pr, pc] = draw(st.integers(1, 30))
    mountain[pr, pc], prison[pr, pc] = False, True
    return Island(regions, mountain, prison, draw(st.integers(1, 50)), draw(st.integers(1, 50)), (tr, tc))


@settings(max_examples=150, deadline=None)
@given(arbitrary_islands())
def test_round_trip_arbitrary_islands(island):
    text = format_map(island)
    warnings: list[str] = []
    assert parse_map(text, "m.txt", warnings) == island
    assert warnings == []
    assert format_map(parse_map(text)) == text


@settings(max_examples=40, deadline=None)
@given(st.integers(5, 30), st.integers(5, 30), st.integers(0, 2**32 - 1))
def test_round_trip_generated_islands(width, height, seed):
    island = generate_island(width, height, rng=np.random.default_rng(seed))
    assert parse_map(format_map(island)) == island


# A small valid map in an irregular (but accepted) layout, for mutation.
FUZZ_BASE = "\n" + edit(7, "0;1 ;1T; 2M;2 ;0;").replace("6 5", "6,5").replace("\n", "\r\n")
FUZZ_ALPHABET = "0123456789;;;  \t\n\r,-+MPTX."


def mutate(text: str, ops: list[tuple[int, int, int, str]]) -> str:
    """Apply (kind, position, length, payload) edits to characters, lines or cells."""
    for kind, pos, length, payload in ops:
        if kind == 0:  # delete characters
            i = pos % (len(text) + 1)
            text = text[:i] + text[i + length:]
        elif kind == 1:  # insert characters
            i = pos % (len(text) + 1)
            text = text[:i] + payload + text[i:]
        elif kind == 2:  # replace characters
            i = pos % (len(text) + 1)
            text = text[:i] + payload + text[i + len(payload):]
        else:
            lines = text.split("\n")
            i = pos % len(lines)
            if kind == 3:  # delete lines
                del lines[i:i + length]
            elif kind == 4:  # duplicate a line
                lines.insert(i, lines[i])
            elif kind == 5:  # swap two lines
                j = (pos + length) % len(lines)
                lines[i], lines[j] = lines[j], lines[i]
            else:  # replace one cell of a line
                cells = lines[i].split(";")
                cells[length % len(cells)] = payload
                lines[i] = ";".join(cells)
            text = "\n".join(lines)
    return text


def test_fuzz_base_is_valid():
    assert parse_map(FUZZ_BASE) == base_island()


def assert_parses_or_map_error(text: str) -> None:
    try:
        result = parse_map(text, "fuzz.txt", [])
    except MapFormatError as exc:
        assert str(exc).startswith("fuzz.txt:")
    else:
        assert isinstance(result, Island)


edits = st.tuples(
    st.integers(0, 6), st.integers(0, 10_000), st.integers(0, 4), st.text(FUZZ_ALPHABET, min_size=1, max_size=6)
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(edits, min_size=1, max_size=6))
def test_mutated_map_text_gives_island_or_map_format_error(ops):
    assert_parses_or_map_error(mutate(FUZZ_BASE, ops))


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(FUZZ_ALPHABET, max_size=200), st.text(max_size=200)))
def test_random_text_gives_island_or_map_format_error(text):
    assert_parses_or_map_error(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(FUZZ_ALPHABET, max_size=30), max_size=12), st.data())
def test_random_lines_after_a_valid_header_give_island_or_map_format_error(lines, data):
    header = data.draw(st.sampled_from(["3 3\n1\n2\n2\n1 1\n", "6 5\n2\n5\n3\n1 2\n", "1 2\n1\n1\n2\n0 0\n"]))
    assert_parses_or_map_error(header + "\n".join(lines))
