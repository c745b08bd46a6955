"""The docs show real output: writing-an-agent.md's agents and architecture.md's step API
example are run here and compared with what they print."""

from __future__ import annotations

import re
import shutil

import pytest
from click.testing import CliRunner
from helpers import ROOT, user_folder

from treasure_cli.cli import cli

DOC = (ROOT / "docs" / "writing-an-agent.md").read_text()
FILES = dict(re.findall(r"```python\n# file: (\S+)\n(.*?)```", DOC, flags=re.S))
SHOWN = re.findall(r"```\n\$ (treasure [^\n]+)\n(.*?)```", DOC, flags=re.S)


def shown(command: str) -> str:
    return next(out for cmd, out in SHOWN if cmd == command)


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    return user_folder(tmp_path, monkeypatch, FILES)


def invoke(command: str):
    return CliRunner().invoke(cli, command.split()[1:])


def untimed(text: str) -> str:
    return re.sub(r"\d+\.\d{3}|\d+\.\d{2} s\b", "#", placed(text))


def placed(text: str) -> str:
    """Where the agents play said as the docs say it (in a sandbox), wherever bubblewrap cannot run."""
    text = text.replace("in processes of their own (no sandbox; ", "in a sandbox (bubblewrap; no network, ")
    text = text.replace("starts in a process of its own", "starts in a sandbox")
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("warning: "))


def test_the_doc_shows_its_files_and_commands():
    # the seventh, check-agent of the C++ example, is compared by test_cpp_agent.py
    assert set(FILES) == {"first.py", "my_agent.py", "slow.py"} and len(SHOWN) == 8


def test_check_agent_prints_what_the_doc_shows(user_dir):
    command = "treasure check-agent ./first.py:Scanner"
    result = invoke(command)
    assert result.exit_code == 0
    assert untimed(result.output) == untimed(shown(command))


def test_check_agent_at_a_tournaments_sizes_prints_what_the_doc_shows(user_dir):
    command = "treasure check-agent ./my_agent.py:MyAgent --sizes 32,64 --max-action-ms 200"
    result = invoke(command)
    assert result.exit_code == 0, result.output
    assert untimed(result.output) == untimed(shown(command))
    command = "treasure check-agent ./slow.py:Slow --sizes 16,32 --max-action-ms 250"
    result = invoke(command)
    assert result.exit_code == 1, result.output
    assert untimed(result.output) == untimed(shown(command))


def test_run_and_bench_print_what_the_doc_shows(user_dir):
    command = "treasure run input/ out/ --agent ./my_agent.py:MyAgent --jobs 2"
    result = invoke(command)
    assert result.exit_code == 0, result.output
    assert untimed(result.output) == untimed(shown(command))
    head = "".join((user_dir / "out" / "LOG_01.txt").read_text().splitlines(keepends=True)[:4])
    assert head == _head_block()
    command = "treasure bench --agents logic,./my_agent.py:MyAgent --sizes 16,32,64 --games 200 --seed 1 --no-timing"
    result = invoke(command)
    assert result.exit_code == 0, result.output
    assert placed(result.output) == shown(command)


def _head_block() -> str:
    return re.search(r"```\n\$ head -4 out/LOG_01.txt\n(.*?)```", DOC, flags=re.S).group(1)


def test_the_step_api_example_prints_what_architecture_md_shows(capsys):
    arch = (ROOT / "docs" / "architecture.md").read_text()
    code, printed = re.search(r"```python\n(# example: the step API\n.*?)```\n\nprints[^\n]*\n\n```\n(.*?)```",
                              arch, flags=re.S).groups()
    exec(compile(code, "docs/architecture.md", "exec"), {})
    assert capsys.readouterr().out == printed


def test_check_agent_beliefs_prints_what_the_doc_shows(user_dir):
    (user_dir / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "inverted_mask.py", user_dir / "examples" / "inverted_mask.py")
    command = "treasure check-agent examples/inverted_mask.py:Inverted --beliefs --keep-logs checked/"
    result = invoke(command)
    assert result.exit_code == 1
    assert untimed(result.output) == untimed(shown(command))
    # The flagged game is there to watch, its note and its flag with it.
    frames = invoke("treasure replay checked/LOG_03.txt --no-pause --no-color")
    assert frames.exit_code == 0 and "!! turn 3: your agent ruled out the treasure's tile" in frames.output


def test_a_type_checker_flags_the_wrong_actions_the_doc_shows(tmp_path):
    """writing-an-agent.md's typed agent, checked by mypy as the doc shows it (the editor's view of obs.)."""
    import subprocess
    import sys

    source = re.search(r"```python\n# type-check: typed\.py\n(.*?)```", DOC, flags=re.S).group(1)
    command, want = re.search(r"```\n\$ (mypy [^\n]+)\n(.*?)```", DOC, flags=re.S).groups()
    (tmp_path / "typed.py").write_text(source)
    # A cache of its own (sharing the project's, whose options differ, would void both): the
    # first run analyses numpy's stubs (~20 s), later runs on this checkout take ~1 s.
    result = subprocess.run([sys.executable, "-m", *command.split(),
                             "--cache-dir", str(ROOT / ".mypy_cache" / "docs-example")],
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stdout == want
