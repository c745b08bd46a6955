"""`bench --versus AGENT`: the games one agent won and the other lost, each with both logs and the
command that replays them side by side."""

from __future__ import annotations

import html
import json
import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import read_log

BENCH = ["bench", "--agents", "logic,greedy", "--sizes", "16", "--games", "12", "--seed", "1", "--jobs", "1",
         "--no-timing", "--versus", "greedy"]


def test_the_pairs_listed_are_every_win_loss_game_and_their_commands_replay_both(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, [*BENCH, "--keep-logs", "kept", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    outcome = {(g["index"], g["agent"]): g for g in data["games"]}
    differ = sorted(i for i in range(12) if outcome[i, "logic"]["outcome"] != outcome[i, "greedy"]["outcome"])
    assert differ, "the seed gives no game to compare: pick another"
    assert sorted(p["index"] for p in data["versus"]) == differ
    for pair in data["versus"]:
        logs = [read_log(path) for path in pair["logs"]]
        starts = [events[0] for events in logs]
        assert [s.agent for s in starts] == ["greedy", "logic"]
        assert starts[0].seed == starts[1].seed == pair["seed"] and starts[0].map_digest == starts[1].map_digest
        ends = [Path(path).read_text().splitlines()[1] for path in pair["logs"]]  # the log's WIN/LOSE line
        assert sorted(ends) == ["LOSE", "WIN"]
        assert pair["won"] == ("greedy" if ends[0] == "WIN" else "logic")
        assert pair["game_ids"] == [outcome[pair["index"], a]["game_id"] for a in ("greedy", "logic")]
    # The table's listing: one line per pair with its ids, then the command; run one of them.
    text = CliRunner().invoke(cli, [*BENCH, "--keep-logs", "kept"])
    assert text.exit_code == 0, text.output
    commands = [line.strip() for line in text.stdout.splitlines() if line.strip().startswith("treasure replay")]
    assert len(commands) == len(differ)
    first = data["versus"][0]
    assert f"games {first['game_ids'][0]}, {first['game_ids'][1]}" in text.stdout
    words = shlex.split(commands[0])
    assert words[2:4] == first["logs"]
    replayed = CliRunner().invoke(cli, words[1:])
    assert replayed.exit_code == 0, replayed.output
    page = (tmp_path / words[words.index("--html") + 1]).read_text()
    titles = re.findall(r'<iframe id="board\d" title="([^"]*)"', page)
    assert [html.unescape(t).rsplit("agent ", 1)[1] for t in titles] == ["greedy", "logic"]


def test_versus_needs_a_folder_for_the_logs_and_one_of_the_agents(tmp_path):
    result = CliRunner().invoke(cli, BENCH)
    assert result.exit_code == 2 and "--versus goes with --keep-logs DIR" in result.output
    result = CliRunner().invoke(cli, [*BENCH[:-1], "random", "--keep-logs", str(tmp_path / "k")])
    assert result.exit_code == 2 and "'random' must be one of --agents" in result.output


def test_a_tournament_report_lists_the_pairs_and_replay_db_shows_both(tmp_path, monkeypatch):
    import shutil

    from helpers import ROOT

    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps" / "MAP_01.txt")
    monkeypatch.chdir(tmp_path)
    played = CliRunner().invoke(cli, ["tournament", "--with", "greedy,random", "--maps", "maps", "--games", "6",
                                      "--db", "r.sqlite", "--seed", "3", "--jobs", "1", "--json"])
    assert played.exit_code == 0, played.output
    report = ["tournament", "--db", "r.sqlite", "--report", "--versus", "greedy"]
    data = json.loads(CliRunner().invoke(cli, [*report, "--json"]).stdout)
    outcome = {(g["index"], g["agent"]): g["outcome"] for g in json.loads(played.stdout)["games"]}
    differ = [i for i in range(6) if outcome[i, "greedy"] != outcome[i, "random"]]
    assert differ, "the seed gives no game to compare: pick another"
    assert [p["index"] for p in data["versus"]] == differ
    assert all(sorted((p["won"], "greedy" if p["won"] == "random" else "random")) == ["greedy", "random"]
               for p in data["versus"])
    text = CliRunner().invoke(cli, [*report, "--maps", "maps"])
    assert text.exit_code == 0, text.output
    commands = [line.strip() for line in text.stdout.splitlines() if line.strip().startswith("treasure replay")]
    assert len(commands) == len(differ)
    words = shlex.split(commands[0])
    assert words[3:6] == ["r.sqlite", *data["versus"][0]["game_ids"]]
    shown = CliRunner().invoke(cli, words[1:])
    assert shown.exit_code == 0, shown.output
    page = (tmp_path / words[-1]).read_text()
    titles = [html.unescape(t) for t in re.findall(r'<iframe id="board\d" title="([^"]*)"', page)]
    assert [t.rsplit("agent ", 1)[1] for t in titles] == ["greedy", "random"]
    unknown = CliRunner().invoke(cli, [*report[:-1], "nobody"])
    assert unknown.exit_code == 2 and "'nobody' has no game" in unknown.output


def test_bench_versus_html_writes_every_head_to_head_page_and_links_them_from_the_report(tmp_path, monkeypatch):
    """Compare without typing: the report's head-to-head section links one page per pair, each
    written beside the logs, showing both games; the report's header is a table, not Python reprs."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, [*BENCH, "--keep-logs", "kept", "--json", "--html", "report.html"])
    assert result.exit_code == 0, result.output
    pairs = json.loads(result.stdout)["versus"]
    assert pairs
    report = (tmp_path / "report.html").read_text()
    links = re.findall(r'<a href="([^"]+)">side by side</a>', report)
    assert links == [Path(p["page"]).as_posix() for p in pairs]
    for pair, link in zip(pairs, links):
        page = (tmp_path / link).read_text()
        titles = re.findall(r'<iframe id="board\d" title="([^"]*)"', page)
        assert [html.unescape(t).rsplit("agent ", 1)[1] for t in titles] == ["greedy", "logic"]
        assert f"<td>{pair['game_ids'][0]}, {pair['game_ids'][1]}</td>" in report
    header = re.search(r'<table id="bench-options".*?</table>', report)[0]
    assert "<th>agents</th><td>logic, greedy</td>" in header
    assert "[" not in header and "{" not in header and "&#x27;" not in header
