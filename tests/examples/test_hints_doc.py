"""docs/hints.md shows real output: its kind file is loaded with --hints, played by `run` and
`bench`, replayed in the terminal and as a page, and refused by `replay` without it (the file
beside the log named, not run); and the
kinds of examples/hints/ play as their docstring says."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from helpers import ROOT, user_folder

from treasure_cli.cli import cli
from treasure_cli.rules import plugin_kinds

DOC = (ROOT / "docs" / "hints.md").read_text()
FILES = dict(re.findall(r"```python\n# file: (\S+)\n(.*?)```", DOC, flags=re.S))
SHOWN = re.findall(r"```\n\$ (treasure [^\n]+)\n(.*?)```", DOC, flags=re.S)
EXAMPLE = str(ROOT / "examples" / "hints" / "kinds.py")


def untimed(text: str) -> str:
    return re.sub(r"\d+\.\d{3}", "#", text)


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    return user_folder(tmp_path, monkeypatch, FILES)


def invoke(command: str):
    return CliRunner().invoke(cli, command.split()[1:])


def test_the_doc_shows_its_kind_and_what_its_commands_print(user_dir, monkeypatch):
    assert set(FILES) == {"edge.py"} and len(SHOWN) == 3
    (run_cmd, run_out), (replay_cmd, replay_out), _ = SHOWN
    run = invoke(run_cmd)
    assert run.exit_code == 0, run.output
    assert untimed(run.output) == untimed(run_out)
    line = re.search(r"```\n(turn 1: the pirate gives hint 1 .*)\n```", DOC)[1]
    assert line in (user_dir / "out" / "LOG_01.txt").read_text().splitlines()
    monkeypatch.setattr(plugin_kinds, "_INSTALLED", {})  # as in a new process: run's --hints is gone
    refused = invoke(replay_cmd)
    assert refused.exit_code == 1 and refused.output == replay_out
    shown = invoke(replay_cmd + " --no-color --hints edge.py")
    assert shown.exit_code == 0, shown.output
    assert "kind near-edge@edge.py#" in shown.output and "game over, WIN" in shown.output
    # The very file beside the log is named, with the option that loads it, and not run.
    monkeypatch.setattr(plugin_kinds, "_INSTALLED", {})
    (user_dir / "out" / "edge.py").write_bytes((user_dir / "edge.py").read_bytes())
    copied_cmd, copied_out = re.search(r"```\n\$ cp edge.py out/\n\$ (treasure [^\n]+)\n(.*?)```", DOC, flags=re.S).groups()
    assert copied_cmd == replay_cmd
    beside = invoke(replay_cmd)
    assert beside.exit_code == 1 and beside.output == copied_out, beside.output
    assert "near-edge" not in plugin_kinds._INSTALLED
    given = invoke(replay_cmd + " --no-color --hints out/edge.py")  # the command it names
    assert given.exit_code == 0 and "game over, WIN" in given.output, given.output
    page = invoke("treasure replay out/LOG_02.txt --hints edge.py --html page.html")
    assert page.exit_code == 0, page.output
    assert "the map&#x27;s outer band" in (user_dir / "page.html").read_text() or \
        "the map's outer band" in (user_dir / "page.html").read_text()


def test_bench_plays_the_doc_kind_and_says_so_in_its_json(user_dir):
    bench = invoke("treasure bench --agents logic --sizes 16 --games 6 --jobs 2 --json --no-timing "
                   "--hints edge.py --hint-weights builtin=0.5,near-edge=2")
    assert bench.exit_code == 0, bench.output
    data = json.loads(bench.stdout)
    assert data["options"]["hints"]["near-edge"] == 2.0 and data["options"]["hints"]["not_tiles"] == 1.0 * 0.5
    assert data["stats"][0]["games"] == 6 and data["stats"][0]["failed"] == 0


def test_an_isolated_agent_plays_plugin_hints_it_never_heard_of(user_dir):
    # densest_scan runs in a process of its own, whose host says "tiles": false and has no edge.py.
    spec = f"{ROOT / 'examples' / 'densest_scan.py'}:DensestScan"
    run = invoke(f"treasure run input/MAP_02.txt out2/ --agent {spec} --agent-isolation process "
                 "--hints edge.py --hint-weights builtin=0")
    assert run.exit_code == 0, run.output
    assert "1 played, 1 won" in run.output or "1 played, 0 won, 1 lost" in run.output
    assert "kind near-edge" in (user_dir / "out2" / "LOG_02.txt").read_text()
    checked = invoke(f"treasure check-agent {spec} --games 2 --agent-isolation process --hints edge.py")
    assert "FAIL  legal actions" not in checked.output, checked.output


def test_the_cli_says_what_is_wrong_with_a_hint_option(user_dir):
    (user_dir / "bad.py").write_text("import numpy\n")
    for args, message in [
        ("--hints bad.py", "--hints bad.py: the file defines no hint kind"),
        ("--hint-weights near-edge=1", "no hint kind called 'near-edge'"),
        ("--hints edge.py --hint-weights builtin=x", "'builtin=x' is not NAME=WEIGHT"),
    ]:
        result = invoke(f"treasure run input/MAP_01.txt out3/ {args}")
        assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
    stored = invoke("treasure bench --maps input/MAP_01.txt --games 1 --db r.sqlite --hints edge.py "
                    "--hint-weights builtin=x")
    assert stored.exit_code == 1 and "'builtin=x' is not NAME=WEIGHT" in stored.output
    assert not (user_dir / "r.sqlite").exists()  # refused before the store is made


def test_the_example_kinds_say_what_they_mean():
    import numpy as np

    from treasure_cli.formats.hint_plugins import load_file
    from helpers import SMALL_ROWS, island_from_grid

    kinds = {cls.name: cls for cls in load_file(EXAMPLE)}
    island = island_from_grid(SMALL_ROWS, (2, 5)).public()  # a mountain at (2, 2); regions 1 and 2
    near = kinds["near-mountain"](1, True)
    assert near.statement() == "the treasure is within 1 step of a mountain"
    assert {tuple(p) for p in np.argwhere(near.mask(island))} == {(1, 2), (3, 2), (2, 1), (2, 3)}
    far = kinds["near-mountain"](1, False)
    assert not (far.mask(island) & near.mask(island)).any() and (far.mask(island) | near.mask(island)).sum() == 23
    even = kinds["region-number"](2, 0)
    assert even.statement() == "the treasure is in a region with an even number"
    assert np.array_equal(even.mask(island), island.regions == 2)
    assert kinds["region-number"](3, 1).statement() == (
        "the treasure is in a region whose number leaves 1 when divided by 3")
