"""A group that hands in a program written in Python (the plain kit, examples/plain_agent.py: an
executable `#!` script that speaks the protocol, whose `Agent(island)` the referee cannot make)
plays as a program, not as a broken agent class."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.grading import intake
from treasure_cli.grading.store import Store

KIT = ROOT / "examples" / "plain_agent.py"


def group(tmp_path: Path, name: str, mode: int) -> Path:
    folder = tmp_path / "class" / name
    folder.mkdir(parents=True)
    shutil.copy(KIT, folder / "agent.py")
    (folder / "agent.py").chmod(mode)
    return folder


def test_an_executable_python_program_is_the_groups_program(tmp_path):
    found = intake.find_agent(group(tmp_path, "kit", 0o755))
    assert (found.language, found.entry) == ("program", "agent.py")
    assert found.spec.startswith("exec:")


def test_a_class_that_needs_arguments_is_not_an_agent_class_and_the_kit_plays_as_a_python_program(tmp_path):
    found, lone = intake.agent_classes(group(tmp_path, "kit", 0o644) / "agent.py")
    assert (found, lone) == ([], [])
    # Without its execute bit (as an archive made on Windows hands it in) the kit is still a program:
    # started by the system's Python, not an agent class the referee would fail to make.
    kit = intake.find_agent(tmp_path / "class" / "kit")
    assert (kit.language, kit.entry) == ("python-program", "agent.py")


def test_a_binary_beside_an_executable_helper_script_is_still_the_one_program(tmp_path):
    folder = group(tmp_path, "both", 0o755)
    (folder / "agent.py").rename(folder / "tools.py")
    shutil.copy("/bin/true", folder / "treasure-agent")
    assert intake.find_agent(folder).entry == "treasure-agent"


def test_the_plain_kit_handed_in_as_a_group_plays_and_wins_in_the_sandbox(tmp_path):
    group(tmp_path, "kit", 0o755)
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    db = tmp_path / "r.sqlite"
    played = CliRunner().invoke(cli, ["tournament", str(tmp_path / "class"), "--maps", str(tmp_path / "MAP_01.txt"),
                                      "--games", "2", "--db", str(db), "--seed", "4", "--jobs", "1"])
    assert played.exit_code == 0, played.output
    with Store(db) as store:
        rows = store.rows()
    assert len(rows) == 2 and all(r.outcome == "WIN" for r in rows), [(r.outcome, r.error) for r in rows]


def test_run_with_the_kit_as_a_file_says_to_play_it_as_a_program():
    result = CliRunner().invoke(cli, ["run", str(ROOT / "input" / "MAP_01.txt"), "unused", "--agent", str(KIT)])
    assert result.exit_code == 2 and f"played as exec:{KIT}" in result.output
