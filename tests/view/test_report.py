"""`bench --html` and `bench --from-json --html`: the report, and the message when matplotlib is missing."""

from __future__ import annotations

import json
import re
import sys

import pytest
from click.testing import CliRunner

from treasure_cli.cli import cli

BENCH = ["bench", "--agents", "logic,random", "--sizes", "16,24", "--games", "6", "--jobs", "1"]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bench")
    result = CliRunner().invoke(cli, BENCH + ["--json"])
    assert result.exit_code == 0, result.output
    (folder / "bench.json").write_text(result.output)
    return folder / "bench.json"


def test_report_from_a_saved_run_has_every_chart_and_the_table(saved, tmp_path):
    report = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["bench", "--from-json", str(saved), "--html", str(report)])
    assert result.exit_code == 0, result.output
    text = report.read_text()
    for chart in ("win-rate", "turns", "time"):
        assert f'id="chart-{chart}"' in text
    assert text.count("<svg") == 3
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//|url\((?!#)|@import""", text)  # nothing to fetch
    data = json.loads(saved.read_text())
    for s in data["stats"]:
        assert f"<td>{s['size']}</td><td>{s['agent']}</td><td>{s['games']}</td><td>{s['wins']}</td>" in text


def test_bench_html_writes_the_report_beside_the_table(tmp_path):
    report = tmp_path / "r.html"
    result = CliRunner().invoke(cli, BENCH + ["--no-timing", "--html", str(report)])
    assert result.exit_code == 0, result.output
    assert "win %" in result.output  # the table is still printed
    text = report.read_text()
    assert text.count("<svg") == 2 and "without timing" in text


def test_missing_matplotlib_says_how_to_install_it(saved, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    result = CliRunner().invoke(cli, ["bench", "--from-json", str(saved), "--html", str(tmp_path / "r.html")])
    assert result.exit_code == 1
    assert result.output.startswith("Error: ")
    assert "pip install 'treasure-cli[plot]'" in result.output
    assert not (tmp_path / "r.html").exists()


def test_from_json_alone_prints_the_table_again_and_needs_a_bench_file(saved, tmp_path):
    result = CliRunner().invoke(cli, ["bench", "--from-json", str(saved)])
    assert result.exit_code == 0, result.output
    data = json.loads(saved.read_text())
    rows = [line.split() for line in result.output.splitlines()]
    assert rows[0][:5] == ["size", "agent", "games", "wins", "win"]
    assert [(r[0], r[1], int(r[2]), int(r[3])) for r in rows[1:]] == [
        (s["size"], s["agent"], s["games"], s["wins"]) for s in data["stats"]]
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    result = CliRunner().invoke(cli, ["bench", "--from-json", str(bad), "--html", str(tmp_path / "r.html")])
    assert result.exit_code == 1 and "not a file written by `treasure bench --json`" in result.output


def test_the_page_of_a_run_is_the_page_of_its_saved_json(tmp_path):
    live, saved = tmp_path / "live.html", tmp_path / "saved.html"
    result = CliRunner().invoke(cli, BENCH + ["--no-timing", "--json", "--html", str(live)])
    assert result.exit_code == 0, result.output
    (tmp_path / "bench.json").write_text(result.stdout)
    again = CliRunner().invoke(cli, ["bench", "--from-json", str(tmp_path / "bench.json"), "--html", str(saved)])
    assert again.exit_code == 0, again.output
    assert live.read_text() == saved.read_text()


def test_the_table_keeps_a_name_with_spaces_in_one_cell(saved):
    from treasure_cli.view.report import report_html

    data = json.loads(saved.read_text())
    for s in data["stats"] + data["games"]:
        s["agent"] = "students/my  agent.py:Agent"
    page = report_html(data)
    table = page[page.index('<table id="bench-table">'):]
    assert table.count("<td>students/my  agent.py:Agent</td>") == len(data["stats"])


def test_the_header_gives_every_size_with_its_unit():
    """The bench report's header reads as a person would write it: 1024 MiB, 64 KiB, 600 s (the
    agents' output cap read 'output = 65536')."""
    from treasure_cli.view.report import _options_html

    header = _options_html({"limits": {"memory": 1 << 30, "cpu_seconds": 600, "file_size": 16 << 20,
                                       "output": 64 << 10, "open_files": 32}})
    assert "memory = 1024 MiB; cpu_seconds = 600 s; file_size = 16 MiB; output = 64 KiB; open_files = 32" in header
