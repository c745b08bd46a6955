"""docs/log-format.md shows real lines: every example it gives is a line that `treasure run` writes
for the shipped maps, with `logic` (the golden logs, which `make run` writes), with `--agent random`
(`--max-turns 3` for a timeout), or with `--notes`, as the page says."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import read_log
from treasure_cli.rules import events as ev

DOC = (ROOT / "docs" / "log-format.md").read_text()
GOLDEN = sorted((ROOT / "tests" / "golden").glob("LOG_*.txt"))


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, list]:
    """Each run's logs (paths), as the page names the runs: in the checkout, as a reader would."""
    out = tmp_path_factory.mktemp("logs")
    runs = {"random": ["--agent", "random"], "notes": ["--notes"], "short": ["--agent", "random", "--max-turns", "3"]}
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)  # the logs name their map as given: input/MAP_01.txt
        for name, options in runs.items():
            result = CliRunner().invoke(cli, ["run", "input/", str(out / name), *options])
            assert result.exit_code == 0, result.output
    logs = {name: sorted((out / name).glob("LOG_*.txt")) for name in runs}
    logs["logic"] = GOLDEN
    assert all(len(paths) == 5 for paths in logs.values())
    return logs


def lines_of(paths) -> set[str]:
    return {line for path in paths for line in path.read_text().splitlines()}


def test_the_header_shown_is_a_real_logs_first_three_lines():
    shown = re.search(r"## Header: lines 1–3\n\n```\n(.*?)```", DOC, flags=re.S)[1]
    values = [line.split()[0] for line in shown.splitlines()]
    logs = [path.read_text().splitlines()[:3] for path in GOLDEN]
    assert values in logs, values


def test_every_example_line_of_the_events_table_and_the_endings_is_written_by_run(written):
    table = re.search(r"\| event \| pattern, then a real line \|\n(.*?)\n\n", DOC, flags=re.S)[1]
    examples = re.findall(r"^\| \| `([^`]+)` \|$", table, flags=re.M)
    endings = re.search(r"\nExample endings: (.*?)\n\n", DOC, flags=re.S)[1]
    examples += re.findall(r"`(turn \d+: [^`]+)`", endings)
    assert len(examples) == 18, examples  # 15 line types, 3 endings
    real = lines_of(written["logic"]) | lines_of(written["random"]) | lines_of(written["short"])
    assert [line for line in examples if line not in real] == []


def test_every_hint_sentence_example_is_a_hint_of_its_kind_in_a_real_log(written):
    rows = re.findall(r"^\| (\d+) \| (.*?) \| (.*?) \|$", DOC, flags=re.M)
    assert [int(k) for k, _, _ in rows] == list(range(1, 16))
    given: dict[int, set[str]] = {}
    for path in written["random"] + written["logic"]:
        for event in read_log(path):
            if isinstance(event, ev.HintGiven):
                given.setdefault(int(event.hint.kind), set()).add(event.hint.sentence())
    for kind, sentence, example in rows:
        # the kinds without parameters show their one sentence in the middle column
        text = example.strip("`") if example.startswith("`") else sentence.strip("`")
        assert text in given[int(kind)], (kind, text)


def test_the_notes_example_is_the_start_of_a_line_run_notes_writes(written):
    shown = re.search(r"\*\*Notes \(only with `--notes`\)\.\*\*.*?```\n(.*?)\n```", DOC, flags=re.S)[1]
    assert shown.endswith("...") and ", candidates eAEB" in shown  # a stored zlib stream, cut for the page
    start = shown.removesuffix("...")
    assert [line for line in lines_of(written["notes"]) if line.startswith(start)], start


def test_the_failed_game_example_is_what_run_writes(tmp_path, monkeypatch):
    section = DOC.split("## A failed game's log", 1)[1].split("\n## ", 1)[0]
    agent, shown = re.findall(r"```\n(.*?)```", section, flags=re.S)
    (tmp_path / "crashes.py").write_text(agent)
    (tmp_path / "input").mkdir()
    (tmp_path / "input" / "MAP_03.txt").write_text((ROOT / "input" / "MAP_03.txt").read_text())
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run", "input/MAP_03.txt", "out/", "--agent", "crashes.py:Crashes"])
    assert result.exit_code == 1
    lines = (tmp_path / "out" / "LOG_03.txt").read_text().splitlines()
    head, _, tail = shown.partition("...\n")
    assert lines[:3] == head.splitlines() and lines[-2:] == tail.splitlines()
