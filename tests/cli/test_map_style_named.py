"""A tournament names each map by its path under --maps and its style (issue 40): in the dry run,
in its messages, in the store's rows and on the pages."""

from __future__ import annotations

import re
import sqlite3

from helpers import class_folder, invoke

CRASH = ("from treasure_cli import Agent\n\nclass Crash(Agent):\n"
         "    def act(self, obs):\n        raise RuntimeError('boom')\n")


def _maps(tmp_path):
    for args in (["--size", "16", "--output-dir", "maps/s16"],
                 ["--size", "20", "--style", "maze", "--output-dir", "maps/m20"]):
        assert invoke("generate", "--count", "1", "--seed", "5", *args).exit_code == 0


def test_the_dry_run_lists_the_maps_by_size_and_style(tmp_path, monkeypatch):
    class_folder(tmp_path, monkeypatch, {"crash.py": CRASH})
    _maps(tmp_path)
    result = invoke("tournament", "students/", "--maps", "maps/", "--db", "r.sqlite", "--dry-run")
    assert result.exit_code == 0, result.output
    assert re.search(r"^maps: 2$", result.output, re.M)
    assert re.search(r"^  1 island 16x16 +s16/MAP_01\.txt$", result.output, re.M)
    assert re.search(r"^  1 maze 20x20 +m20/MAP_01\.txt$", result.output, re.M)


def test_messages_rows_and_pages_name_the_map_s_style(tmp_path, monkeypatch):
    class_folder(tmp_path, monkeypatch, {"crash.py": CRASH})
    _maps(tmp_path)
    played = invoke("tournament", "students/", "--maps", "maps/", "--db", "r.sqlite", "--games", "1",
                    "--seed", "2", "--agent-isolation", "process", "--jobs", "1")
    assert re.search(r"^  m20/MAP_01\.txt \(maze\): agent .*crash\.py:Crash failed", played.output, re.M), played.output
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        assert dict(db.execute("SELECT map_path, map_style FROM games")) == {"s16/MAP_01.txt": "island",
                                                                             "m20/MAP_01.txt": "maze"}
    report = invoke("tournament", "--db", "r.sqlite", "--report", "--maps", "maps/", "--html", "pages")
    assert report.exit_code == 0, report.output
    index = (tmp_path / "pages" / "teacher" / "index.html").read_text()
    assert re.search(r"</a>: (m20|s16)/MAP_01\.txt \((maze|island)\): agent .*crash\.py:Crash failed", index)
    group = (tmp_path / "pages" / "teacher" / "agent-crash.html").read_text()
    assert re.search(r'm20/MAP_01\.txt</td><td>20x20</td><td class="style">maze</td>', group)
    assert re.search(r's16/MAP_01\.txt</td><td>16x16</td><td class="style">island</td>', group)
    failed = [p.read_text() for p in (tmp_path / "pages" / "teacher").glob("game-*.html")
              if "-turns" not in p.name]
    assert any("on m20/MAP_01.txt (20x20 maze), game 0" in text for text in failed)
    assert any("<pre>m20/MAP_01.txt (maze): agent" in text for text in failed)
    turns = [p.read_text() for p in (tmp_path / "pages" / "teacher").glob("game-*-turns.html")]
    assert any("m20/MAP_01.txt (20x20 maze), seed" in text for text in turns)
