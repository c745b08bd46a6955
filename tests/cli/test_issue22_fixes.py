"""Issue 22, item 7: consistent exits, no silent overwrite, --maps in subfolders, and help and docs
that say what the program does."""

from __future__ import annotations

import json
import re
import shlex
import shutil

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

POLICY = '''from treasure_cli.gym import PolicyAgent


def make_agent():
    return PolicyAgent(lambda obs, mask: int(mask.nonzero()[0][0]))  # the first legal action
'''


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_generate_refuses_to_overwrite_maps_and_names_them_unless_forced(tmp_path):
    out = tmp_path / "hidden"
    assert invoke("generate", "--size", "32", "--count", "3", "--seed", "1", "--output-dir", str(out)).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    again = invoke("generate", "--size", "16", "--count", "2", "--output-dir", str(out))  # the next numbers
    assert again.exit_code == 0 and again.output.split() == ["wrote", f"{out}/MAP_04.txt", "wrote", f"{out}/MAP_05.txt"]
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name in before} == before
    single = invoke("generate", "-o", str(out / "MAP_03.txt"))
    assert single.exit_code == 2 and "1 map file already exists" in single.output
    forced = invoke("generate", "--size", "16", "--count", "2", "--output-dir", str(out), "--force")
    assert forced.exit_code == 0
    assert (out / "MAP_01.txt").read_bytes() != before["MAP_01.txt"] and (out / "MAP_03.txt").read_bytes() == before[
        "MAP_03.txt"]


def test_maps_take_subfolders_with_recursive_or_a_glob(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for sub, name in (("week1", "MAP_01.txt"), ("week2", "MAP_02.txt")):
        (tmp_path / "maps" / sub).mkdir(parents=True)
        shutil.copy(ROOT / "input" / name, tmp_path / "maps" / sub)
    flat = invoke("bench", "--agents", "random", "--maps", "maps", "--games", "1")
    assert flat.exit_code == 1 and "no map files (*.txt) found in maps" in flat.output
    for how in (["--maps", "maps", "--recursive"], ["--maps", "maps/**/*.txt"]):
        r = invoke("bench", "--agents", "random", *how, "--games", "1", "--json")
        assert r.exit_code == 0, r.output
        # each named by its path under --maps, as a tournament names it
        assert sorted(g["map"] for g in json.loads(r.stdout)["games"]) == ["week1/MAP_01.txt", "week2/MAP_02.txt"]
    none = invoke("bench", "--agents", "random", "--maps", "maps/*.txt", "--games", "1")
    assert none.exit_code == 1 and "maps/*.txt: no file matches" in none.output
    t = invoke("tournament", "--with", "random", "--maps", "maps", "--recursive", "--games", "1", "--db", "r.sqlite")
    assert t.exit_code == 0 and "2 games played" in t.output


def test_bench_and_tournament_exit_1_when_a_game_failed_as_the_docs_say(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "oops.py").write_text("class Oops:\n    def act(self, obs):\n        raise ValueError('no')\n")
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path)
    for args in (["bench", "--agents", "random,oops.py", "--maps", "MAP_01.txt", "--games", "1"],
                 ["tournament", "oops.py", "--with", "random", "--maps", "MAP_01.txt", "--games", "1",
                  "--db", "r.sqlite"]):
        r = invoke(*args)
        assert r.exit_code == 1 and "1 game failed (1 agent-error)" in r.stderr, (args, r.output)
    clean = invoke("bench", "--agents", "random", "--maps", "MAP_01.txt", "--games", "1")
    assert clean.exit_code == 0
    said = (ROOT / "docs" / "reliability.md").read_text()
    assert "`run`, `bench` and `tournament` alike: one failed game" in said and "makes the status 1" in said


def test_run_help_says_the_seed_comes_from_the_map_s_content():
    text = " ".join(invoke("run", "--help").output.split())
    assert "derived from it and the map's content (not its name)" in text
    assert "file name" not in text.split("--seed", 1)[1].split("--truth-rate")[0]


def test_bench_md_lists_the_json_keys_bench_prints(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "oops.py").write_text("class Oops:\n    def act(self, obs):\n        raise ValueError('no')\n")
    r = invoke("bench", "--agents", "random,oops.py", "--sizes", "16", "--games", "1", "--json")
    data = json.loads(r.stdout)
    block = re.search(r"## JSON\n.*?```\n(.*?)```", (ROOT / "docs" / "bench.md").read_text(), flags=re.S)[1]
    games_doc = set(re.findall(r'"(\w+)"', re.search(r'"games":\s*\[\{(.*?)\}', block, flags=re.S)[1]))
    stats_doc = set(re.findall(r'"(\w+)"', re.search(r'"stats":\s*\[\{(.*?)\}', block, flags=re.S)[1]))
    builtin = next(g for g in data["games"] if g["agent"] == "random")
    assert games_doc == set(builtin) and "game_seed" not in games_doc
    assert {"error", "log", "warnings", "seed", "game_id"} <= games_doc
    assert stats_doc == set(data["stats"][0]) and "failed" in stats_doc
    # what only an agent that is not built in adds is said in the text under the block
    extra = set(next(g for g in data["games"] if g["agent"] != "random")) - set(builtin)
    assert extra and all(f"`{key}`" in (ROOT / "docs" / "bench.md").read_text() for key in extra)


def test_the_gymnasium_doc_s_commands_run_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "input", tmp_path / "input")
    (tmp_path / "mypolicies").mkdir()
    (tmp_path / "mypolicies" / "agent.py").write_text(POLICY)
    doc = (ROOT / "docs" / "gymnasium.md").read_text()
    lines = [line for line in doc.splitlines() if line.startswith("treasure ") and "mypolicies" in line]
    assert len(lines) == 2
    for line in lines:
        r = CliRunner().invoke(cli, shlex.split(line)[1:])
        assert r.exit_code == 0, (line, r.output)


@pytest.mark.parametrize("command", ["run", "bench", "tournament", "replay", "generate"])
def test_help_texts_name_the_new_options(command):
    text = invoke(command, "--help").output
    wanted = {"run": "--game-seed", "bench": "--keep-logs", "tournament": "--csv", "replay": "--db",
              "generate": "--force"}[command]
    assert wanted in text
