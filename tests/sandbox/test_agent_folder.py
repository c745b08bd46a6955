"""An agent plays with its folder (sandbox/launch.py, sandbox/tree.py): helpers it imports, a
package with relative imports and a data file opened by name work at every isolation level, as
they would with `python agent.py` at home; a launcher script finds the files beside it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from treasure_cli.cli import cli
from treasure_cli.sandbox import levels, tree

LEVELS = ["none", "process", "sandbox"]


def package_agent(folder: Path) -> Path:
    """An agent of several files: a helper module, a subpackage with a relative import, a data
    file read at import and again when built (each read adds 1: `plan` insists on 2)."""
    (folder / "strategy").mkdir(parents=True)
    (folder / "agent.py").write_text(
        "import json\n\nfrom helpers import scan\nfrom strategy import plan\n\n"
        "WEIGHTS = json.load(open('weights.json'))\n\n\n"
        "class Agent:\n    def __init__(self):\n        with open('weights.json') as f:\n"
        "            self.weights = json.load(f)\n\n"
        "    def act(self, obs):\n        return plan(scan, self.weights['scale'] + WEIGHTS['scale'])\n")
    (folder / "helpers.py").write_text("from treasure_cli import LargeScan\n\n\ndef scan():\n    return LargeScan()\n")
    (folder / "strategy" / "__init__.py").write_text("from .core import plan\n")
    (folder / "strategy" / "core.py").write_text("def plan(make, scale):\n    assert scale == 2, scale\n    return make()\n")
    (folder / "weights.json").write_text('{"scale": 1}\n')
    return folder / "agent.py"


def check(spec: str, level: str) -> str:
    if level == "sandbox" and not levels.bwrap_works():
        pytest.skip("bubblewrap cannot run here")
    done = CliRunner().invoke(cli, ["check-agent", spec, "--games", "1", "--sizes", "10", "--agent-isolation", level])
    assert done.exit_code == 0, done.output
    return done.output


@pytest.mark.parametrize("level", LEVELS)
def test_a_package_agent_imports_its_helpers_and_opens_its_data_at_every_level(tmp_path, level):
    agent = package_agent(tmp_path / "group")
    said = check(f"{agent}:Agent", level)
    assert "ok    legal actions: 1 of 1 game played to the end" in said


def test_two_groups_helpers_of_one_name_never_mix_in_one_process(tmp_path):
    """At `none` both agents load into the referee's process: each gets its own `helpers`."""
    from treasure_cli.agents.registry import resolve

    for name, value in (("a", 1), ("b", 2)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "helpers.py").write_text(f"VALUE = {value}\n")
        (tmp_path / name / "agent.py").write_text(
            "import helpers\n\nclass Agent:\n    value = helpers.VALUE\n    def act(self, obs):\n        pass\n")
    here = os.getcwd()
    assert resolve(f"{tmp_path / 'a' / 'agent.py'}:Agent").factory.value == 1
    assert resolve(f"{tmp_path / 'b' / 'agent.py'}:Agent").factory.value == 2
    assert os.getcwd() == here  # the referee's working folder is its own again


@pytest.mark.parametrize("level", ["process", "sandbox"])
def test_a_launcher_script_starts_in_its_folder_with_its_files(tmp_path, level):
    group = tmp_path / "group"
    package_agent(group / "lib")
    run = group / "run.sh"
    # What it starts is found by a relative path: only the launcher's own folder has it.
    run.write_text(f'#!/bin/sh\ncd "$(dirname "$0")/lib"\nexec {sys.executable} -I -m '
                   'treasure_cli.sandbox.agent_host agent.py:Agent\n')
    run.chmod(0o755)
    (group / "agent.toml").write_text('entry = "run.sh"\n')  # (else the Python agent would be played itself)
    said = check(f"exec:{run}", level)
    assert "1 of 1 game played to the end" in said


def test_the_folder_walk_skips_links_and_litter_and_holds_its_caps(tmp_path):
    (tmp_path / "__MACOSX").mkdir()
    (tmp_path / "__MACOSX" / "agent.py").write_text("x")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "a.pyc").write_bytes(b"x")
    (tmp_path / ".DS_Store").write_bytes(b"x")
    (tmp_path / "secret").symlink_to("/etc/passwd")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.py").write_text("abc")
    assert tree.files(tmp_path) == [(Path("sub/a.py"), 3)]
    with pytest.raises(tree.TooBig, match="more than 4 bytes"):
        (tmp_path / "b.txt").write_text("hello")
        tree.files(tmp_path, max_bytes=4)
    with pytest.raises(tree.TooBig, match="more than 1 files"):
        tree.files(tmp_path, max_files=1)


def test_a_folder_of_single_file_submissions_is_not_shown_to_each_of_them(tmp_path):
    """`students/ann.py` and `students/bob.py`: ann's sandbox must not hold bob's code."""
    from treasure_cli.sandbox.launch import agent_launch

    agent = "from treasure_cli import LargeScan\n\nclass {}:\n    def act(self, obs):\n        return LargeScan()\n"
    (tmp_path / "ann.py").write_text(agent.format("Ann"))
    (tmp_path / "bob.py").write_text(agent.format("Bob"))
    copy = Path(agent_launch(f"{tmp_path / 'ann.py'}:Ann", "process").argv[-1].rpartition(":")[0])
    assert sorted(p.name for p in copy.parent.iterdir()) == ["ann.py"]
    # A group's folder: its agent.py beside another agent file still gets its folder.
    (tmp_path / "agent.py").write_text(agent.format("Agent"))
    copy = Path(agent_launch(f"{tmp_path / 'agent.py'}:Agent", "process").argv[-1].rpartition(":")[0])
    assert sorted(p.name for p in copy.parent.iterdir()) == ["agent.py", "ann.py", "bob.py"]


def test_a_file_beside_other_groups_folders_gets_its_file_alone(tmp_path):
    """`students/ann.py` beside `students/bob/agent.py`: ann's sandbox must not hold bob's folder;
    a group whose manifest is above its entry's folder still gets that folder."""
    from treasure_cli.sandbox.launch import agent_launch

    agent = "from treasure_cli import LargeScan\n\nclass {}:\n    def act(self, obs):\n        return LargeScan()\n"
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "agent.py").write_text(agent.format("Bob"))
    (tmp_path / "ann.py").write_text(agent.format("Ann"))
    copy = Path(agent_launch(f"{tmp_path / 'ann.py'}:Ann", "process").argv[-1].rpartition(":")[0])
    assert sorted(p.name for p in copy.parent.iterdir()) == ["ann.py"]
    group = tmp_path / "carl"
    (group / "src").mkdir(parents=True)
    (group / "agent.toml").write_text('entry = "src/bot.py"\n')
    (group / "src" / "bot.py").write_text(agent.format("Bot"))
    (group / "src" / "baseline.py").write_text(agent.format("Baseline"))
    copy = Path(agent_launch(f"{group / 'src' / 'bot.py'}:Bot", "process").argv[-1].rpartition(":")[0])
    assert sorted(p.name for p in copy.parent.iterdir()) == ["baseline.py", "bot.py"]


def nested_group(group: Path) -> Path:
    """A group whose agent is one folder down (`src/agent.py`), opening `../data/weights.json` and
    importing a package from the group's top folder (`tools/`), as it runs at home from an IDE."""
    for folder in ("src", "data", "tools"):
        (group / folder).mkdir(parents=True)
    (group / "src" / "agent.py").write_text(
        "import json\n\nfrom tools import scan\n\n\n"
        "class Agent:\n    def __init__(self):\n        with open('../data/weights.json') as f:\n"
        "            self.scale = json.load(f)['scale']\n\n"
        "    def act(self, obs):\n        assert self.scale == 3, self.scale\n        return scan()\n")
    (group / "tools" / "__init__.py").write_text("from .moves import scan\n")
    (group / "tools" / "moves.py").write_text("from treasure_cli import LargeScan\n\n\ndef scan():\n    return LargeScan()\n")
    (group / "data" / "weights.json").write_text('{"scale": 3}\n')
    return group


@pytest.mark.parametrize("level", LEVELS)
def test_a_group_agent_one_folder_down_gets_its_whole_tree_at_every_level(tmp_path, level):
    group = nested_group(tmp_path / "class" / "Groupe 01")
    said = check(str(group), level)
    assert "ok    legal actions: 1 of 1 game played to the end" in said


@pytest.mark.parametrize("level", ["process", "sandbox"])
def test_a_group_program_one_folder_down_starts_in_its_folder_with_the_whole_tree(tmp_path, level):
    group = nested_group(tmp_path / "class" / "carl")
    (group / "bin").mkdir()
    run = group / "bin" / "run.sh"
    # The launcher starts in its own folder, bin/: the agent is in ../src, its data in ../data, and
    # `python -m` from the top puts the top folder (tools/) on the import path.
    run.write_text(f'#!/bin/sh\ncd .. && test -f bin/run.sh || exit 1\nexec {sys.executable} -m '
                   'treasure_cli.sandbox.agent_host src/agent.py:Agent\n')
    run.chmod(0o755)
    (group / "agent.toml").write_text('entry = "bin/run.sh"\n')
    said = check(str(group), level)
    assert "1 of 1 game played to the end" in said


def test_a_group_tree_copy_holds_the_group_s_files_only(tmp_path):
    """The copy holds the group's tree (no litter, no link, nothing of the class folder around it);
    a path that climbs out of its group (`top/./../x`) is not taken for a group's."""
    from treasure_cli.agents.registry import group_top
    from treasure_cli.sandbox.launch import agent_launch

    group = nested_group(tmp_path / "class" / "ann")
    (tmp_path / "class" / "bob.py").write_text("class Bob:\n    def act(self, obs):\n        pass\n")
    (group / "__pycache__").mkdir()
    (group / "__pycache__" / "x.pyc").write_bytes(b"x")
    (group / "secret").symlink_to("/etc/passwd")
    argv = agent_launch(f"{group}/./src/agent.py:Agent", "process").argv
    copy, _, rest = argv[-1].rpartition(":")[0].rpartition("/./")
    assert rest == "src/agent.py"
    assert sorted(p.relative_to(copy).as_posix() for p in Path(copy).rglob("*") if p.is_file()) == [
        "data/weights.json", "src/agent.py", "tools/__init__.py", "tools/moves.py"]
    assert group_top(f"{group}/./../bob.py") is None and group_top(f"{group}/./src/agent.py") == str(group)


SH_AGENT = """#!/bin/sh
# Plays from its own folder (src/), with the group's data one folder up, or not at all.
test -f ../data/weights.json || exit 3
while IFS= read -r line; do
  case "$line" in
    *'"type":"hello"'*|*'"type": "hello"'*) echo '{"type": "hello", "protocol": 1, "agent": "sh"}' ;;
    *'"type":"act"'*|*'"type": "act"'*) echo '{"type": "action", "action": "scan"}' ;;
    *'"type":"end"'*|*'"type": "end"'*) echo '{"type": "ready"}' ;;
    *'"type":"bye"'*|*'"type": "bye"'*) exit 0 ;;
  esac
done
"""


@pytest.mark.skipif(not levels.bwrap_works(), reason="builds run only in the sandbox")
@pytest.mark.parametrize("level", ["process", "sandbox"])
def test_a_group_built_one_folder_down_plays_with_its_whole_tree(tmp_path, level):
    """src/Makefile builds src/bot: the build sees the group's tree, and so does the program it made."""
    group = tmp_path / "class" / "dora"
    (group / "src").mkdir(parents=True)
    (group / "data").mkdir()
    (group / "data" / "weights.json").write_text("{}\n")
    (group / "src" / "bot.sh").write_text(SH_AGENT)  # (not executable: the build makes the program)
    (group / "src" / "Makefile").write_text("bot: bot.sh\n\ttest -f ../data/weights.json\n\tcp bot.sh bot\n"
                                            "\tchmod +x bot\n")
    said = check(str(group), level)
    assert "1 of 1 game played to the end" in said
