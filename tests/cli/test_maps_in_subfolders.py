"""Maps as teachers make them: one subfolder per size, named by their path under --maps everywhere,
`generate` adding maps to a folder without overwriting, `check --recursive`, and a stored game's
map that cannot be found named with the folder searched and what it held."""

from __future__ import annotations

import json
import re
import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.grading.store import Store


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def sized_maps(folder):
    """hidden/s16/MAP_01.txt and hidden/s32/MAP_01.txt: the same file name in two subfolders."""
    for sub, name in (("s16", "MAP_01.txt"), ("s32", "MAP_02.txt")):
        (folder / "hidden" / sub).mkdir(parents=True)
        shutil.copy(ROOT / "input" / name, folder / "hidden" / sub / "MAP_01.txt")


def test_generate_into_a_folder_with_maps_writes_the_next_numbers_and_never_overwrites(tmp_path):
    out = tmp_path / "hidden"
    assert invoke("generate", "--size", "12", "--count", "2", "--seed", "1", "--output-dir", str(out)).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    more = invoke("generate", "--size", "20", "--count", "2", "--seed", "5", "--output-dir", str(out))
    assert more.exit_code == 0, more.output
    assert sorted(p.name for p in out.iterdir()) == ["MAP_01.txt", "MAP_02.txt", "MAP_03.txt", "MAP_04.txt"]
    assert {n: (out / n).read_bytes() for n in before} == before
    # The k-th map written is still the map of seed SEED + k - 1.
    single = invoke("generate", "--size", "20", "--seed", "6")
    assert (out / "MAP_04.txt").read_text() == single.output
    maze = invoke("generate", "--size", "12", "--style", "maze", "--count", "1", "--prefix", "MAZE12_",
                  "--output-dir", str(out))
    assert maze.exit_code == 0 and maze.output.strip() == f"wrote {out}/MAZE12_01.txt"
    assert invoke("generate", "--prefix", "a/b", "--count", "1", "--output-dir", str(out)).exit_code == 2
    assert invoke("generate", "--prefix", "X_").exit_code == 2  # a prefix names files of --output-dir


def test_check_takes_folders_recursively(tmp_path):
    sized_maps(tmp_path)
    flat = invoke("check", str(tmp_path / "hidden"))
    assert flat.exit_code == 1 and "(their subfolders hold some: give --recursive)" in flat.output
    deep = invoke("check", "--recursive", str(tmp_path / "hidden"))
    assert deep.exit_code == 0, deep.output
    assert [line.split(":")[0] for line in deep.output.splitlines()] == [
        f"{tmp_path}/hidden/s16/MAP_01.txt", f"{tmp_path}/hidden/s32/MAP_01.txt"]


def test_a_tournament_searches_subfolders_and_names_maps_by_their_path_under_maps(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sized_maps(tmp_path)
    played = invoke("tournament", "--with", "random,greedy", "--maps", "hidden", "--games", "2", "--seed", "3",
                    "--db", "r.sqlite", "--json")
    assert played.exit_code == 0, played.output
    assert sorted({g["map"] for g in json.loads(played.stdout)["games"]}) == ["s16/MAP_01.txt", "s32/MAP_01.txt"]
    with Store("r.sqlite") as store:
        assert sorted({r.map_path for r in store.rows()}) == ["s16/MAP_01.txt", "s32/MAP_01.txt"]
    report = invoke("tournament", "--db", "r.sqlite", "--report", "--maps", "hidden", "--html", "board")
    assert report.exit_code == 0, report.output
    random_page = (tmp_path / "board" / "teacher" / "agent-random.html").read_text()
    assert ">s16/MAP_01.txt<" in random_page and ">s32/MAP_01.txt<" in random_page
    lost = [p for p in (tmp_path / "board" / "teacher").glob("game-*.html") if "no-replay" not in p.read_text()]
    assert lost, "no lost game was played again for its page"

    # A folder that does not hold the game's map: which folder, how many maps, and --recursive.
    with Store("r.sqlite") as store:
        game = next(r.game_id for r in store.rows() if r.map_path == "s32/MAP_01.txt")
    (tmp_path / "other").mkdir()
    shutil.copy(ROOT / "input" / "MAP_03.txt", tmp_path / "other")
    wrong = invoke("replay", "--db", "r.sqlite", game, "--maps", "other", "--no-pause")
    assert wrong.exit_code == 1
    assert "played on s32/MAP_01.txt" in wrong.output
    assert "among the maps found in other and its subfolders (1 map)" in wrong.output
    flat = invoke("replay", "--db", "r.sqlite", game, "--maps", "hidden", "--no-recursive", "--no-pause")
    assert flat.exit_code == 1
    assert re.search(r"found in hidden \(0 maps; not its subfolders, which hold 2 more maps: give --recursive\)",
                     " ".join(flat.output.split())), flat.output
    empty = invoke("tournament", "--db", "r.sqlite", "--report", "--maps", "hidden", "--no-recursive",
                   "--html", "board2")
    assert empty.exit_code == 1 and "give --recursive" in " ".join(empty.output.split())
    assert not (tmp_path / "board2").exists()
