"""Grading a class (issue 22): a folder of submissions, game ids, three ways back to a game, the gradebook."""

from __future__ import annotations

import csv
import json
import os
import shutil
import sqlite3

import pytest
from click.testing import CliRunner
from helpers import GREEDY_GROUP as GREEDY, WANDERER, class_folder, invoke

from treasure_cli.cli import cli
from treasure_cli.errors import AgentLoadError, TreasureError
from treasure_cli.formats.game_record import parse_log
from treasure_cli.grading.store import Store
from treasure_cli.grading.submissions import find_submissions
from treasure_cli.rules.events import GameFailed

@pytest.fixture
def klass(tmp_path, monkeypatch):
    """A class folder (a file, a student's folder, notes), and two small maps in hidden/."""
    return class_folder(tmp_path, monkeypatch, {"ann.py": GREEDY.format(name="Ann"), "bob/agent.py": WANDERER,
                                                "bob/notes.md": "my notes", "README.txt": "to grade by Friday"})


def test_a_class_folder_becomes_named_agents_found_without_running_them(tmp_path):
    marker = tmp_path / "ran"
    folder = tmp_path / "class"
    (folder / "dora").mkdir(parents=True)
    (folder / "carl.py").write_text(f"open({str(marker)!r}, 'w')\nclass Carl:\n    def act(self, obs): pass\n")
    (folder / "dora" / "main.py").write_text("class Helper:\n    pass\nclass Dora:\n    def act(self, obs): pass\n")
    (folder / "dora" / "util.py").write_text("def helper(): pass\n")
    program = folder / "eve"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    (folder / "two.py").write_text("class A:\n    def act(self, obs): pass\nclass B:\n    def act(self, obs): pass\n")
    (folder / "notes.txt").write_text("")
    found, left_out = find_submissions([str(folder)])
    assert [(s.name, s.spec) for s in found] == [
        ("carl", f"{folder}/carl.py:Carl"), ("dora", f"{folder}/dora/main.py:Dora"), ("eve", f"exec:{program}")]
    assert left_out == [f"{folder}/notes.txt: not a submission (a .py file with an agent class, a folder, an archive, "
                        "or an executable program)",
                        f"{folder}/two.py: 2 agent classes (A, B); say which: {folder}/two.py:A or {folder}/two.py:B"]
    assert not marker.exists()  # classes are found by parsing, not by running the file
    # given one by one, a broken submission is an error, and file.py:Class picks a class
    with pytest.raises(AgentLoadError, match="2 agent classes"):
        find_submissions([str(folder / "two.py")])
    assert find_submissions([f"{folder}/two.py:B"])[0][0].name == "two"
    with pytest.raises(TreasureError, match="two submissions are both named 'carl'"):
        find_submissions([str(folder / "carl.py"), str(folder / "carl.py")])


def test_replay_db_rebuilds_every_stored_game_byte_for_byte_as_bench_keeps_it(klass):
    """The tournament and bench play the same games (same ids); each one, played again from the store
    alone, writes exactly the log bench kept."""
    played = invoke("tournament", "students", "--with", "logic", "--maps", "hidden", "--games", "2",
                    "--seed", "11", "--db", "r.sqlite", "--json", "--no-timing", "--jobs", "1")
    assert played.exit_code == 0, played.output
    assert "left out: students/README.txt: not a submission" in played.stderr
    games = json.loads(played.stdout)["games"]
    assert {g["agent"] for g in games} == {"ann", "bob", "logic"} and len(games) == 12
    kept = invoke("bench", "--agents", "students/ann.py:Ann,students/bob/agent.py:Wanderer,logic", "--maps", "hidden",
                  "--games", "2", "--seed", "11", "--keep-logs", "kept", "--keep", "all", "--json", "--jobs", "1")
    assert kept.exit_code == 0, kept.output
    bench_games = json.loads(kept.stdout)["games"]
    assert sorted(g["game_id"] for g in bench_games) == sorted(g["game_id"] for g in games)
    assert {g["outcome"] for g in games} == {"WIN", "LOSE"}  # both kinds are rebuilt
    with Store("r.sqlite") as store:
        rows = store.rows()
    with sqlite3.connect("r.sqlite") as db:  # the id is in the store's own column too
        assert {r[0] for r in db.execute("SELECT game_id FROM games")} == {r.game_id for r in rows}
    for row in rows:
        again = invoke("replay", "--db", "r.sqlite", row.game_id, "--maps", "hidden", "--log", f"{row.game_id}.txt",
                       "--turn", "1", "--no-color")
        assert again.exit_code == 0, again.output
        assert (klass / f"{row.game_id}.txt").read_bytes() == (klass / "kept" / f"{row.game_id}.txt").read_bytes()
        # The log names its map by file name: the command that replays it is said.
        told = again.stderr.split("replay it with: ")[1].split(")")[0].split()
        assert told[:3] == ["treasure", "replay", f"{row.game_id}.txt"] and told[3] == "--map"
        assert invoke("replay", *told[2:], "--turn", "1", "--no-color").exit_code == 0
        lines = (klass / f"{row.game_id}.txt").read_text().splitlines()
        assert (lines[1], int(lines[2])) == (row.outcome, row.turns)


def test_replay_db_finds_the_map_by_content_and_refuses_changed_code(klass):
    assert invoke("tournament", "students/ann.py", "--maps", "hidden/MAP_01.txt", "--games", "1",
                  "--db", "r.sqlite").exit_code == 0
    with Store("r.sqlite") as store:
        row = store.rows()[0]
    os.mkdir("elsewhere")
    shutil.copy("hidden/MAP_01.txt", "elsewhere/renamed.txt")  # found by content, not by name
    page = invoke("replay", "--db", "r.sqlite", row.game_id[:6], "--maps", "elsewhere", "--html", "g.html")
    assert page.exit_code == 0, page.output
    assert f"seed {row.seed}, agent students/ann.py:Ann" in (klass / "g.html").read_text()
    missing = invoke("replay", "--db", "r.sqlite", row.game_id, "--maps", "hidden/MAP_02.txt")
    assert missing.exit_code == 1 and ("no map with that content is among the maps found in hidden/MAP_02.txt "
                                       "(1 map)") in missing.output
    unknown = invoke("replay", "--db", "r.sqlite", "abcdef123456", "--maps", "hidden")
    assert unknown.exit_code == 1 and "holds no game abcdef123456" in unknown.output
    (klass / "students" / "ann.py").write_text(GREEDY.format(name="Ann") + "# resubmitted\n")
    changed = invoke("replay", "--db", "r.sqlite", row.game_id, "--maps", "hidden")
    assert changed.exit_code == 1
    assert f"was played by students/ann.py:Ann with code {row.agent_digest}; that agent's code is now" in changed.output


def test_run_game_seed_plays_the_stored_game(klass):
    assert invoke("tournament", "--with", "greedy", "--maps", "hidden/MAP_02.txt", "--games", "2",
                  "--db", "r.sqlite").exit_code == 0
    with Store("r.sqlite") as store:
        rows = store.rows()
    for row in rows:
        ran = invoke("run", "hidden/MAP_02.txt", "out", "--agent", "greedy", "--game-seed", str(row.seed), "--json")
        assert ran.exit_code == 0, ran.output
        got = json.loads(ran.stdout)[0]
        assert (got["seed"], got["outcome"], got["turns"]) == (row.seed, row.outcome, row.turns)
    folder = invoke("run", "hidden", "out", "--game-seed", "5")
    assert folder.exit_code == 2 and "--game-seed plays one game: INPUT must be one map file" in folder.output


def test_bench_keeps_the_logs_asked_for_and_a_failed_game_s_log_up_to_its_failure(klass):
    (klass / "broken.py").write_text("class Broken:\n    def act(self, obs):\n        raise ValueError('oops')\n")
    r = invoke("bench", "--agents", "random,broken.py", "--maps", "hidden/MAP_01.txt", "--games", "3",
               "--keep-logs", "lost", "--json")
    assert r.exit_code == 1  # a game failed
    games = json.loads(r.stdout)["games"]
    not_won = {g["game_id"] for g in games if g["outcome"] != "WIN"}
    files = sorted(p.name for p in (klass / "lost").iterdir())
    assert files == sorted(f"{g['game_id']}.txt" for g in games if g["game_id"] in not_won)
    failed = [g for g in games if g["outcome"] == "failed"]
    assert len(failed) == 3 and all(g["log"].endswith(f"{g['game_id']}.txt") for g in failed)
    text = (klass / "lost" / f"{failed[0]['game_id']}.txt").read_text()
    end = parse_log(text)[-1]  # run's failed-game log: header "failed", its turns, then what failed
    assert text.splitlines()[1] == "failed" and isinstance(end, GameFailed)
    assert (end.turn, end.kind) == (1, "agent-error") and "ValueError: oops" in end.message
    assert f"(game {failed[0]['game_id']})" in r.stderr  # the failures listed name their games


def test_the_gradebook_round_trips_through_the_csv_module(klass):
    invoke("tournament", "students", "--with", "logic", "--maps", "hidden", "--games", "2", "--db", "r.sqlite")
    report = invoke("tournament", "--db", "r.sqlite", "--report", "--json", "--csv", "grades.csv")
    assert report.exit_code == 0, report.output
    data = json.loads(report.stdout)
    standings = data["standings"]
    with open(klass / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["student", "student_id", "rank", "tied", "win_percent", "win_low", "win_high", "games", "wins",
                             "failures", "mean_turns_to_win", "ms_per_turn", "verdict", "reason", "agent", "code",
                             "flags", "above_on_wins", "above_on_turns"]
    # every agent ranked, then what was left out of the class folder (the notes file), scoring zero
    assert [r["student"] for r in rows] == [s["agent"] for s in standings] + ["README.txt"]
    assert {r["student"] for r in rows[:3]} == {"ann", "bob", "logic"}
    assert rows[3]["rank"] == "" and rows[3]["verdict"] == "left out" and rows[3]["games"] == "0"
    assert rows[3]["reason"].startswith("not a submission") and data["unranked"][0]["agent"] == "README.txt"
    for row, s in zip(rows, standings):
        assert int(row["rank"]) == s["rank"] and row["tied"] == ("yes" if s["tied"] else "no")
        assert row["verdict"] == s["verdict"] == ("baseline" if row["student"] == "logic" else "played")
        assert float(row["win_percent"]) == pytest.approx(100 * s["win_rate"], abs=0.05)
        assert (float(row["win_low"]), float(row["win_high"])) == pytest.approx(
            (100 * s["win_low"], 100 * s["win_high"]), abs=0.05)
        assert (int(row["games"]), int(row["wins"]), int(row["failures"])) == (s["games"], s["wins"], s["failed"])
        assert row["mean_turns_to_win"] == ("" if s["mean_turns_win"] is None else f"{s['mean_turns_win']:.1f}")
        assert float(row["ms_per_turn"]) >= 0 and row["agent"] == s["spec"] and row["code"] == s["agent_digest"]
        assert int(row["rank"].lstrip("=")) == 1 + int(row["above_on_wins"]) + int(row["above_on_turns"])
        assert (int(row["above_on_wins"]), int(row["above_on_turns"])) == (s["above_wins"], s["above_turns"])


def test_the_pages_replay_lost_games_with_maps_and_say_why_not_without(klass):
    # A known seed (with its warning): the same games every run, bob losing some of them.
    assert invoke("tournament", "students/bob", "--maps", "hidden/MAP_01.txt", "--games", "3", "--seed", "1",
                  "--db", "r.sqlite").exit_code == 0
    with Store("r.sqlite") as store:
        lost = [r for r in store.rows() if r.outcome == "LOSE"]
        won = [r for r in store.rows() if r.outcome == "WIN"]
    assert lost and won
    bare = invoke("tournament", "--db", "r.sqlite", "--report", "--html", "bare")
    assert bare.exit_code == 0 and "without --maps the games have no replay page" in bare.stderr
    played = len(lost) + len(won)
    assert (f"{played} of the {played} games played to their end have no replay page"
            in (klass / "bare" / "teacher" / "index.html").read_text())
    page = (klass / "bare" / "teacher" / f"game-{lost[0].game_id}.html").read_text()
    assert 'id="no-replay"' in page and "written without --maps" in page
    full = invoke("tournament", "--db", "r.sqlite", "--report", "--maps", "hidden", "--html", "full")
    assert full.exit_code == 0
    assert "have no replay page" not in (klass / "full" / "teacher" / "index.html").read_text()
    page = (klass / "full" / "teacher" / f"game-{lost[0].game_id}.html").read_text()
    assert 'id="no-replay"' not in page and f"seed {lost[0].seed}, agent students/bob/agent.py:Wanderer" in page
    assert 'href="agent-bob.html"' in page  # back to the student's page
    # every game is linked from the student's page, wins included, and a won game's page replays it
    student = (klass / "full" / "teacher" / "agent-bob.html").read_text()
    for row in lost + won:
        assert f'<a href="game-{row.game_id}.html">' in student
    page = (klass / "full" / "teacher" / f"game-{won[0].game_id}.html").read_text()
    assert 'id="no-replay"' not in page and f"seed {won[0].seed}, agent students/bob/agent.py:Wanderer" in page


def test_a_game_id_names_what_decides_the_game_and_not_the_time_limit():
    from treasure_cli.play.records import game_id
    from treasure_cli.play.records import settings_key

    base = game_id("logic", "package:x", settings_key(0.5, None, None), "m", 0, 7)
    assert base == game_id(" logic ", "package:x", settings_key(0.5, None, 30.0), "m", 0, 7)  # a limit moves nothing
    others = [game_id("greedy", "package:x", settings_key(0.5, None, None), "m", 0, 7),
              game_id("logic", "package:y", settings_key(0.5, None, None), "m", 0, 7),
              game_id("logic", "package:x", settings_key(0.6, None, None), "m", 0, 7),
              game_id("logic", "package:x", settings_key(0.5, 40, None), "m", 0, 7),
              game_id("logic", "package:x", settings_key(0.5, None, None), "n", 0, 7),
              game_id("logic", "package:x", settings_key(0.5, None, None), "m", 1, 7),
              game_id("logic", "package:x", settings_key(0.5, None, None), "m", 0, 8)]
    assert len({base, *others}) == 8 and all(len(g) == 12 for g in others)


def test_check_agent_says_ok_for_no_check_that_saw_no_game(tmp_path, monkeypatch):
    """Every game failed: the beliefs and time checks saw no game, and say so instead of "ok"."""
    (tmp_path / "crash.py").write_text(
        "from treasure_cli.rules.actions import LargeScan\n\n\n"
        "class Crash:\n    def act(self, obs):\n        if obs.turn >= 2:\n            raise ValueError('boom')\n"
        "        return LargeScan()\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["check-agent", "crash.py:Crash", "--games", "2", "--beliefs",
                                      "--agent-isolation", "process"])
    assert result.exit_code == 1, result.output
    lines = {line.split(":")[0]: line for line in result.output.splitlines() if line[:4] in ("ok  ", "FAIL")}
    assert lines["ok    loads"]
    for name in ("beliefs", "time per action"):
        assert f"FAIL  {name}" in lines, result.output
        assert "no game played to the end (2 of 2 failed or stopped): nothing to check" in lines[f"FAIL  {name}"]
