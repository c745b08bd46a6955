"""`bench --from-json FILE [--html PAGE]` on a file someone sent (ninth round).

The file is meant to be one `bench --json` wrote, but it may be anyone's: one nested past the
JSON parser's depth, or whose games hold a string for a number, stopped the command with a
traceback (the table's checks caught some; the page's, none). Now each is one `Error:` line
naming the file, and no page is written."""

from __future__ import annotations

import json

import pytest
from helpers import invoke


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict:
    result = invoke("bench", "--agents", "logic", "--sizes", "16", "--games", "2", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{"):])


def _damaged_games(data: dict, how: str) -> dict:
    data = json.loads(json.dumps(data))
    if how == "not a list":
        data["games"] = [5]
    elif how == "turns as text":
        data["games"][0]["turns"] = "x"
    elif how == "no seconds":
        data["games"][0]["seconds"] = None
    elif how == "run seconds as text":
        data["seconds"] = "x"
    return data


def test_json_nested_past_the_parsers_depth(tmp_path):
    sent = tmp_path / "bench.json"
    sent.write_text("[" * 100_000)
    for extra in ([], ["--html", str(tmp_path / "r.html")]):
        result = invoke("bench", "--from-json", str(sent), *extra)
        assert result.exit_code == 1 and not isinstance(result.exception, RecursionError), result.exception
        assert result.output.startswith(f"Error: {sent}: not a file written by `treasure bench --json`")


@pytest.mark.parametrize("how", ["not a list", "turns as text", "no seconds", "run seconds as text"])
def test_a_damaged_run_is_an_error_and_writes_no_page(tmp_path, saved, how):
    sent = tmp_path / "bench.json"
    sent.write_text(json.dumps(_damaged_games(saved, how)))
    page = tmp_path / "r.html"
    result = invoke("bench", "--from-json", str(sent), "--html", str(page))
    assert result.exit_code == 1, (result.output, result.exception)
    assert result.output.startswith(f"Error: {sent}: not a file written by `treasure bench --json`"), result.output
    assert not page.exists()
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps(saved))
    assert invoke("bench", "--from-json", str(whole), "--html", str(page)).exit_code == 0 and page.is_file()
