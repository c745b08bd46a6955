"""`treasure generate` and `treasure check` through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import ROOT, SMALL_MAP

from treasure_cli import __version__
from treasure_cli.cli import cli
from treasure_cli.islands.generator import generate_island
from treasure_cli.islands.style import map_style
from treasure_cli.rules.island import Island
from treasure_cli.formats.map_file import format_map, parse_map, read_map


def run(*args: str):
    return CliRunner().invoke(cli, list(args), prog_name="treasure")


def expected_text(size: int, seed: int) -> str:
    return format_map(generate_island(size, size, rng=np.random.default_rng(seed)))


def ok_line(path: Path | str, island: Island) -> str:
    return (
        f"{path}: ok, {island.width}x{island.height} {map_style(island)}, {len(island.land_regions)} land regions, "
        f"{len(island.prisons)} prisons, {int(island.mountain.sum())} mountain tiles, "
        f"r={island.reveal_turn} f={island.free_turn}, digest {island.digest}"
    )


# -- generate -------------------------------------------------------------------
def test_generate_prints_the_map_to_stdout():
    result = run("generate", "--size", "12", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert result.stdout == expected_text(12, 3)
    assert parse_map(result.stdout).shape == (12, 12)


def test_generate_defaults_to_16_by_16_seed_0():
    result = run("generate")
    assert result.exit_code == 0
    assert result.stdout == expected_text(16, 0)


def test_generate_same_seed_twice_is_identical_and_other_seed_differs():
    a = run("generate", "--size", "20", "--seed", "9").stdout
    b = run("generate", "--size", "20", "--seed", "9").stdout
    c = run("generate", "--size", "20", "--seed", "10").stdout
    assert a == b
    assert a != c


def test_generate_width_height_and_counts():
    result = run(
        "generate", "--width", "30", "--height", "14", "--regions", "5", "--prisons", "3",
        "--mountains", "7", "--reveal-turn", "6", "--free-turn", "11", "--seed", "2",
    )
    assert result.exit_code == 0, result.output
    island = parse_map(result.stdout)
    assert island.shape == (14, 30)
    assert island.land_regions == (1, 2, 3, 4, 5)
    assert len(island.prisons) == 3
    assert int(island.mountain.sum()) == 7
    assert (island.reveal_turn, island.free_turn) == (6, 11)


def test_generate_output_file(tmp_path):
    out = tmp_path / "MAP_x.txt"
    result = run("generate", "--size", "12", "--seed", "4", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {out}\n"
    assert out.read_text() == expected_text(12, 4)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MAP_x.txt"]


def test_generate_count_into_folder(tmp_path):
    folder = tmp_path / "maps"
    result = run("generate", "--size", "10", "--count", "3", "--seed", "7", "--output-dir", str(folder))
    assert result.exit_code == 0, result.output
    names = ["MAP_01.txt", "MAP_02.txt", "MAP_03.txt"]
    assert result.output == "".join(f"wrote {folder / n}\n" for n in names)
    assert sorted(p.name for p in folder.iterdir()) == names
    # Map k is the single map of seed SEED + k - 1.
    for k, name in enumerate(names):
        assert (folder / name).read_text() == expected_text(10, 7 + k)


def test_generate_count_pads_to_the_number_of_digits(tmp_path):
    result = run("generate", "--size", "6", "--count", "100", "--output-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names[0] == "MAP_001.txt" and names[-1] == "MAP_100.txt" and len(names) == 100


def test_generated_folder_passes_check(tmp_path):
    run("generate", "--size", "9", "--count", "2", "--output-dir", str(tmp_path))
    result = run("check", str(tmp_path))
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        ok_line(tmp_path / f"MAP_0{k}.txt", read_map(tmp_path / f"MAP_0{k}.txt")) for k in (1, 2)
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--size", "4"], "Error: Invalid value for '--size': 4 is not in the range x>=5."),
        (["--width", "3", "--height", "9"], "Error: Invalid value for '--width': 3 is not in the range x>=5."),
        (["--seed", "-1"], "Error: Invalid value for '--seed': -1 is not in the range x>=0."),
        (["--regions", "0"], "Error: Invalid value for '--regions': 0 is not in the range x>=1."),
        (["--prisons", "0"], "Error: Invalid value for '--prisons': 0 is not in the range x>=1."),
        (["--mountains", "-2"], "Error: Invalid value for '--mountains': -2 is not in the range x>=0."),
        (["--reveal-turn", "0"], "Error: Invalid value for '--reveal-turn': 0 is not in the range x>=1."),
        (["--free-turn", "0"], "Error: Invalid value for '--free-turn': 0 is not in the range x>=1."),
        (["--count", "0", "--output-dir", "x"], "Error: Invalid value for '--count': 0 is not in the range x>=1."),
        (["--size", "10", "--regions", "8"], "Error: regions must be between 1 and 7 for a 10x10 map, got 8"),
        (["--size", "5000"], "Error: width must be between 5 and 4096, got 5000"),
        (["--size", "10", "--width", "10", "--height", "10"], "Error: give either --size or --width and --height, not both"),
        (["--width", "10"], "Error: --width and --height go together"),
        (["--count", "2"], "Error: --count needs --output-dir"),
        (["-o", "a.txt", "--output-dir", "d"], "Error: give either -o/--output or --output-dir, not both"),
    ],
)
def test_generate_bad_options(args, message):
    result = run("generate", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == message


@pytest.mark.parametrize("args", [["--size", "abc"], ["--bogus"], ["--seed"]])
def test_generate_malformed_options(args):
    # click words these itself (and rewords them between versions): check the shape only.
    result = run("generate", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1].startswith("Error: ")


# -- check ----------------------------------------------------------------------
GOOD = SMALL_MAP
GOOD_OK = f"ok, 6x5 island, 2 land regions, 2 prisons, 1 mountain tiles, r=2 f=5, digest {parse_map(SMALL_MAP).digest}"


def test_check_valid_files(tmp_path):
    a, b = tmp_path / "MAP_a.txt", tmp_path / "MAP_b.txt"
    a.write_text(GOOD)
    b.write_text(GOOD.replace("\n", "\r\n"))
    result = run("check", str(a), str(b))
    assert result.exit_code == 0
    assert result.stdout == f"{a}: {GOOD_OK}\n{b}: {GOOD_OK}\n"
    assert result.stderr == ""


def test_check_folder_with_one_broken_map_reports_it_and_every_other_map(tmp_path):
    (tmp_path / "MAP_1.txt").write_text(GOOD)
    (tmp_path / "MAP_2.txt").write_text(GOOD.replace("0; 1; 1; 2; 2; 0\n0; 0", "0; 1; 1X; 2; 2; 0\n0; 0"))
    (tmp_path / "MAP_3.txt").write_text(GOOD)
    (tmp_path / "notes.md").write_text("not a map")
    result = run("check", str(tmp_path))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{tmp_path / 'MAP_1.txt'}: {GOOD_OK}",
        f"{tmp_path / 'MAP_2.txt'}:9:7: cell (3, 2): unknown cell type 'X', expected M, P, T or nothing",
        f"{tmp_path / 'MAP_3.txt'}: {GOOD_OK}",
    ]
    assert result.stderr == "1 of 3 maps invalid\n"


def test_check_warning_does_not_fail(tmp_path):
    path = tmp_path / "MAP_w.txt"
    path.write_text(GOOD.replace("\n3\n", "\n7\n"))
    result = run("check", str(path))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f"{path}:4: warning: R is 7 but the regions present need 3 (highest region 2); using 3",
        f"{path}: {GOOD_OK}",
    ]


def test_check_non_utf8_file(tmp_path):
    path = tmp_path / "MAP_b.txt"
    path.write_bytes(b"6 5\n\xff\n")
    result = run("check", str(path))
    assert result.exit_code == 1
    assert result.stdout == f"{path}:2:1: not a text file (invalid UTF-8 byte)\n"


def test_check_missing_input_and_empty_folder(tmp_path):
    missing = run("check", str(tmp_path / "nope"))
    assert missing.exit_code == 1
    assert missing.stderr == f"Error: {tmp_path / 'nope'}: no such file or folder\n"
    empty = run("check", str(tmp_path))
    assert empty.exit_code == 1
    assert empty.stderr == f"Error: no map files (*.txt) found in {tmp_path}\n"


def test_shipped_maps_pass_check():
    folder = ROOT / "input"
    names = sorted(p.name for p in folder.glob("MAP_*.txt"))
    assert names[:5] == ["MAP_01.txt", "MAP_02.txt", "MAP_03.txt", "MAP_04.txt", "MAP_05.txt"]
    result = run("check", str(folder))
    assert result.exit_code == 0, result.output
    sizes = [read_map(folder / n).shape for n in names[:5]]
    assert sizes == [(16, 16), (32, 32), (64, 64), (100, 100), (128, 128)]


# -- help and version -----------------------------------------------------------
@pytest.mark.parametrize("args", [["-h"], ["--help"], ["check", "-h"], ["generate", "-h"], ["generate", "--help"]])
def test_help(args):
    result = run(*args)
    assert result.exit_code == 0
    assert result.stdout.startswith(f"Usage: treasure {args[0]}" if args[0] in ("check", "generate") else "Usage: treasure [OPTIONS]")
    assert "Example:" in result.stdout


def test_generate_help_lists_every_option():
    text = run("generate", "-h").stdout
    for option in ("--size", "--width", "--height", "--regions", "--prisons", "--mountains",
                   "--reveal-turn", "--free-turn", "--seed", "-o, --output", "--count", "--output-dir"):
        assert option in text


def test_version():
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout == f"treasure, version {__version__}\n"


def test_generate_style_maze_writes_a_maze_that_check_accepts(tmp_path):
    path = tmp_path / "MAZE.txt"
    assert run("generate", "--size", "21", "--style", "maze", "--seed", "3", "-o", str(path)).exit_code == 0
    island = read_map(path)
    assert island.mountain[1:-1, 1:-1].mean() > 0.3  # walls everywhere
    checked = run("check", str(path))
    assert checked.exit_code == 0 and "ok, 21x21 " in checked.stdout
    again = run("generate", "--size", "21", "--style", "maze", "--seed", "3")
    assert again.stdout == path.read_text()
    bad = run("generate", "--size", "21", "--style", "maze", "--mountains", "4")
    assert bad.exit_code != 0 and "Error: a maze's mountains are its walls" in bad.output


def test_bench_style_maze_plays_mazes_and_says_so_in_its_json():
    result = run("bench", "--agents", "greedy", "--sizes", "12", "--games", "2", "--style", "maze", "--jobs", "1",
                 "--json", "--no-timing")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["options"]["style"] == "maze" and len(data["games"]) == 2
    plain = json.loads(run("bench", "--agents", "greedy", "--sizes", "12", "--games", "1", "--jobs", "1",
                           "--json", "--no-timing").stdout)
    assert "style" not in plain["options"]  # the default islands' JSON is as it was


def test_check_reports_a_missing_path_and_still_checks_the_others(tmp_path):
    result = CliRunner().invoke(cli, ["check", str(ROOT / "input" / "MAP_01.txt"), str(tmp_path / "nonexist.txt")])
    assert result.exit_code == 1
    assert f"{ROOT / 'input' / 'MAP_01.txt'}: ok, 16x16 island" in result.stdout
    assert f"{tmp_path / 'nonexist.txt'}: no such file or folder" in result.stdout
    assert "1 of 2 maps invalid" in result.stderr
