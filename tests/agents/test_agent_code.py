"""Which code an agent spec stands for, and file agents sent as bytes to machines without the file."""

from __future__ import annotations

import pytest
from helpers import ROOT

from treasure_cli import __version__
from treasure_cli.agents.registry import agent_code, is_file_spec, load_source, resolve
from treasure_cli.errors import AgentLoadError
from treasure_cli.formats.map_file import read_map
from treasure_cli.play.games import play_game

SOURCE = "from treasure_cli.agents.greedy import GreedyAgent\n\nclass Mine(GreedyAgent):\n    tag = {tag!r}\n"


def test_a_file_agent_is_known_by_the_hash_of_its_bytes(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(SOURCE.format(tag="one"))
    spec = f"{path}:Mine"
    first = agent_code(spec)
    assert first.digest.startswith("file:") and first.source == path.read_bytes()
    assert agent_code(spec) == first
    path.write_text(SOURCE.format(tag="two"))
    assert agent_code(spec).digest != first.digest


def test_built_ins_and_modules_have_digests_that_say_what_they_hash():
    assert agent_code("logic").digest == f"package:treasure-cli=={__version__}"
    module = agent_code("treasure_cli.agents.greedy:GreedyAgent")
    assert module.digest.startswith("module:") and module.source is None
    import hashlib

    greedy = ROOT / "src" / "treasure_cli" / "agents" / "greedy.py"
    assert module.digest == "module:" + hashlib.sha256(greedy.read_bytes()).hexdigest()[:16]


def test_is_file_spec():
    assert is_file_spec("a/b.py:C") and is_file_spec("b.py:C") and is_file_spec("./x:C")
    assert not is_file_spec("logic") and not is_file_spec("pkg.mod:C")


def test_a_shipped_file_agent_plays_like_the_file_and_versions_never_mix(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(SOURCE.format(tag="one"))
    spec = f"{path}:Mine"
    island = read_map(ROOT / "input" / "MAP_02.txt").precompute()
    shipped = load_source(spec, SOURCE.format(tag="one").encode())
    other = load_source(spec, SOURCE.format(tag="two").encode())
    assert shipped.spec == spec and shipped.build().tag == "one" and other.build().tag == "two"
    by_file, _ = play_game(island, spec, 11, map_name="m", keep_events=False)
    by_bytes, _ = play_game(island, shipped, 11, map_name="m", keep_events=False)
    assert by_bytes.agent == spec
    assert (by_bytes.outcome, by_bytes.reason, by_bytes.turns) == (by_file.outcome, by_file.reason, by_file.turns)
    assert resolve(spec).factory.__module__ != shipped.factory.__module__  # the file's own module is apart


def test_shipped_source_that_fails_says_which_agent(tmp_path):
    with pytest.raises(AgentLoadError, match=r"x\.py:A.*ZeroDivisionError"):
        load_source("students/x.py:A", b"1/0\n")
    with pytest.raises(AgentLoadError, match="has no 'Missing'"):
        load_source("students/y.py:Missing", b"class A: pass\n")
