"""A report written after the temporary folder was emptied (a restart between the tournament and its
report): a group handed in as an archive plays from a folder unpacked there, gone now. The report is
still written, every other page whole, and that group's game pages say why they have no replay and
what brings it back; running the tournament's command again unpacks it as it was, plays nothing, and
the next report replays its games."""

from __future__ import annotations

import shutil
import tempfile
import zipfile

from helpers import GREEDY_GROUP, invoke


def test_a_report_after_the_unpacked_archive_is_gone_says_how_to_bring_it_back(tmp_path, monkeypatch):
    home = tmp_path / "tmp"
    home.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(home))
    klass = tmp_path / "class"
    (klass / "ann").mkdir(parents=True)
    (klass / "ann" / "agent.py").write_text(GREEDY_GROUP.format(name="Ann"))
    with zipfile.ZipFile(klass / "bob.zip", "w") as z:
        z.writestr("bob/agent.py", GREEDY_GROUP.format(name="Bob"))
    maps = tmp_path / "maps"
    invoke("generate", "--count", "1", "--size", "12", "--output-dir", str(maps), "--seed", "4")
    db = str(tmp_path / "r.sqlite")
    play = ("tournament", str(klass), "--maps", str(maps), "--db", db, "--games", "1", "--seed", "1",
            "--agent-isolation", "process")
    invoke(*play)
    unpacked = list(home.glob("treasure-cli-unpacked-*"))
    assert unpacked
    for folder in unpacked:
        shutil.rmtree(folder)

    pages = tmp_path / "pages"
    result = invoke("tournament", "--db", db, "--report", "--maps", str(maps), "--html", str(pages),
                    "--agent-isolation", "process")
    assert result.exit_code == 0, result.output
    games = {p: p.read_text() for p in (pages / "teacher").glob("game-*.html")}
    gone = [t for t in games.values() if 'id="no-replay"' in t]
    assert len(games) == 2 and len(gone) == 1
    assert "played by bob from" in gone[0] and "run the tournament&#x27;s command again" in gone[0]

    again = invoke(*play)
    assert "0 to play" in again.output
    invoke("tournament", "--db", db, "--report", "--maps", str(maps), "--html", str(pages),
           "--agent-isolation", "process")
    assert not any('id="no-replay"' in p.read_text() for p in (pages / "teacher").glob("game-*.html"))
