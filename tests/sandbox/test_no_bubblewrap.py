"""Where bubblewrap is not installed (macOS, Windows, many containers), `auto` plays agents in
plain processes with one warning and `sandbox` refuses (docs/security.md): here with `bwrap`
really absent from PATH, found by the same lookup as on such a machine."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from treasure_cli.cli import cli
from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.map_file import write_map
from treasure_cli.sandbox import levels as sandbox

AGENT = "from treasure_cli import LargeScan\n\nclass Scans:\n    def act(self, obs):\n        return LargeScan()\n"


@pytest.fixture
def no_bwrap_on_path(monkeypatch, tmp_path):
    """PATH with only this interpreter's folder (no bwrap there), and the cached answer forgotten."""
    folder = Path(sys.executable).parent
    assert not (folder / "bwrap").exists()
    monkeypatch.setenv("PATH", str(folder))
    sandbox.bwrap_works.cache_clear()
    yield
    sandbox.bwrap_works.cache_clear()


@pytest.fixture
def job(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    for i in (1, 2):
        write_map(generate_island(10, 10, rng=np.random.default_rng(i)), maps / f"MAP_0{i}.txt")
    agent = tmp_path / "scans.py"
    agent.write_text(AGENT)
    return maps, f"{agent}:Scans"


def test_auto_warns_once_and_plays_in_plain_processes(no_bwrap_on_path, job, tmp_path):
    assert shutil.which("bwrap") is None and not sandbox.bwrap_works()
    maps, agent = job
    r = CliRunner().invoke(cli, ["run", str(maps), str(tmp_path / "out"), "--agent", agent, "--json"])
    assert r.exit_code == 0, r.output
    warnings = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "bubblewrap cannot run here" in warnings[0]
    games = json.loads(r.stdout)
    assert [g["isolation"] for g in games] == ["process", "process"]
    assert all(g["outcome"] in ("WIN", "LOSE") for g in games)


def test_sandbox_by_name_refuses_and_writes_nothing(no_bwrap_on_path, job, tmp_path):
    maps, agent = job
    r = CliRunner().invoke(cli, ["run", str(maps), str(tmp_path / "out"), "--agent", agent,
                                 "--agent-isolation", "sandbox"])
    assert r.exit_code == 2
    assert sandbox.NO_SANDBOX in r.stderr and "use --agent-isolation process" in r.stderr
    assert not (tmp_path / "out").exists()
