"""A Rust group plays (issue 40: "a Rust binary runs in the sandbox as it does outside it"): a
tiny agent in Rust, standard library only (tests/grading/rust_agent.rs), compiled here with
rustc, handed in as a group's folder with its source beside it, plays a tournament at process
and sandbox level, and has its row in the grades."""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.sandbox import levels

SOURCE = Path(__file__).with_name("rust_agent.rs")
AGENT = "from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"


def rustc() -> str:
    found = shutil.which("rustc") or next((str(p) for p in [Path.home() / ".cargo" / "bin" / "rustc"] if p.is_file()),
                                          None)
    if found is None:
        pytest.fail("rustc is not installed, so the Rust agent cannot be built: `make test` installs it, "
                    "or apt-get install rustc")
    return found


@pytest.fixture(scope="module")
def binary(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rust") / "treasure-agent"
    done = subprocess.run([rustc(), "-O", "-o", str(out), str(SOURCE)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("level", ["process", "sandbox"])
def test_a_rust_group_plays_a_tournament_and_has_its_row(tmp_path, binary, level):
    if level == "sandbox" and not levels.bwrap_works():
        pytest.skip("bubblewrap cannot run here")
    klass = tmp_path / "class"
    (klass / "rusty" / "src").mkdir(parents=True)
    shutil.copy(binary, klass / "rusty" / "treasure-agent")  # (copy keeps its executable bit)
    shutil.copy(SOURCE, klass / "rusty" / "src" / "main.rs")
    (klass / "ann").mkdir()
    (klass / "ann" / "agent.py").write_text(AGENT)
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    db = tmp_path / "r.sqlite"
    played = CliRunner().invoke(cli, ["tournament", str(klass), "--maps", str(tmp_path / "MAP_01.txt"), "--games", "2",
                                      "--seed", "1", "--db", str(db), "--no-timing", "--agent-isolation", level,
                                      "--jobs", "1"])
    assert played.exit_code == 0, played.output  # (1 if a game failed)
    assert "exec:" in played.output and "rusty/treasure-agent" in played.output
    report = CliRunner().invoke(cli, ["tournament", "--db", str(db), "--report", "--csv", str(tmp_path / "g.csv")])
    assert report.exit_code == 0, report.output
    with open(tmp_path / "g.csv", newline="", encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert rows["rusty"]["verdict"] == "played" and rows["ann"]["verdict"] == "played"
    assert rows["rusty"]["games"] == "2", rows["rusty"]


def test_a_cargo_group_is_built_in_the_sandbox_and_plays(tmp_path):
    """Issue 40's language table: source with a Cargo.toml is built with cargo in the sandbox (no
    network, the toolchain read-only), and the one program in target/release/ plays."""
    rustc()
    if shutil.which("cargo") is None and not (Path.home() / ".cargo" / "bin" / "cargo").is_file():
        pytest.fail("cargo is not installed, so the crate cannot be built: `make test` installs it, "
                    "or apt-get install cargo")
    if not levels.bwrap_works():
        pytest.fail("bubblewrap cannot run here: `make test` installs it")
    klass = tmp_path / "class"
    crate = klass / "crab" / "agent"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "crab-agent"\nversion = "0.1.0"\nedition = "2021"\n\n'
                                      "[dependencies]\n")
    shutil.copy(SOURCE, crate / "src" / "main.rs")
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    db = tmp_path / "r.sqlite"
    played = CliRunner().invoke(cli, ["tournament", str(klass), "--maps", str(tmp_path / "MAP_01.txt"), "--games", "2",
                                      "--seed", "1", "--db", str(db), "--no-timing", "--agent-isolation", "sandbox",
                                      "--jobs", "1"])
    assert played.exit_code == 0, played.output
    report = CliRunner().invoke(cli, ["tournament", "--db", str(db), "--report", "--csv", str(tmp_path / "g.csv")])
    with open(tmp_path / "g.csv", newline="", encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert rows["crab"]["verdict"] == "played" and rows["crab"]["games"] == "2", (rows, report.output)
    dry = CliRunner().invoke(cli, ["tournament", str(klass), "--maps", str(tmp_path / "MAP_01.txt"), "--db",
                                   str(tmp_path / "d.sqlite"), "--dry-run"])
    assert "crab  cargo  agent/target/release/crab-agent (built with cargo)" in dry.output, dry.output
