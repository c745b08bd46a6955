"""Groups of a second hidden class, as students hand them in, with the verdict a teacher would give.

* A Python group with a `src/` layout and a `pyproject.toml`, whose agent lies in its package
  (`src/treasure_bot/agent.py`, with `from .strategy import choose`), failed every game: "attempted
  relative import with no known parent package". At home it imports (`pip install -e .`).
* A group that hands in a Jupyter notebook was left out with "no agent found", which does not say
  what it holds; a manifest naming a language the table lacks (`language = "haskell"`) was left out
  as "entry Main.hs is not an executable program", which does not say the language is unknown.
"""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

AGENT = "from treasure_cli import LargeScan\nfrom .strategy import choose\n\n\nclass Bot:\n    def act(self, obs):\n" \
        "        return choose(obs)\n"
STRATEGY = "from treasure_cli import LargeScan\n\nfrom . import weights\n\n\ndef choose(obs):\n" \
           "    assert weights.SCAN == 1\n    return LargeScan()\n"


def _class(tmp_path):
    klass = tmp_path / "class"
    package = klass / "pysrc" / "src" / "treasure_bot"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .agent import Bot\n")
    (package / "agent.py").write_text(AGENT)
    (package / "strategy.py").write_text(STRATEGY)
    (package / "weights.py").write_text("SCAN = 1\n")
    (klass / "pysrc" / "pyproject.toml").write_text('[project]\nname = "treasure-bot"\nversion = "0.1"\n')
    (klass / "notebook").mkdir()
    (klass / "notebook" / "TP_agent.ipynb").write_text(json.dumps({"cells": [], "nbformat": 4}))
    (klass / "haskell").mkdir()
    (klass / "haskell" / "Main.hs").write_text("main = interact id\n")
    (klass / "haskell" / "agent.toml").write_text('entry = "Main.hs"\nlanguage = "haskell"\n')
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps" / "MAP_01.txt")
    return klass


def test_an_agent_in_a_package_of_a_src_layout_plays_with_its_relative_imports(tmp_path):
    klass = _class(tmp_path)
    db = tmp_path / "r.sqlite"
    played = CliRunner().invoke(cli, ["tournament", str(klass), "--maps", str(tmp_path / "maps"), "--games", "2",
                                      "--seed", "3", "--db", str(db), "--jobs", "1", "--json"])
    assert played.exit_code == 0, played.output
    games = json.loads(played.stdout[played.stdout.index("{"):])["games"]
    assert len(games) == 2 and all(g["outcome"] != "failed" for g in games), games
    report = CliRunner().invoke(cli, ["tournament", "--db", str(db), "--report", "--json"])
    rows = {r["agent"]: r for r in json.loads(report.stdout)["standings"] + json.loads(report.stdout)["unranked"]}
    assert rows["pysrc"]["verdict"] == "played", rows["pysrc"]
    assert {rows[g]["verdict"] for g in ("notebook", "haskell")} == {"left out"}


def test_a_notebook_and_an_unknown_language_are_named_in_their_reasons(tmp_path):
    klass = _class(tmp_path)
    dry = CliRunner().invoke(cli, ["tournament", str(klass), "--maps", str(tmp_path / "maps"),
                                   "--db", str(tmp_path / "r.sqlite"), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "1 group to play, 2 left out" in dry.output
    assert "left out: notebook: no agent found" in dry.output
    assert "it holds a Jupyter notebook (TP_agent.ipynb), which is not played: export" in dry.output
    assert "left out: haskell: agent.toml: language 'haskell' is none this program builds or starts" in dry.output
