"""Copies found as MOSS finds them: token fingerprints (grading/tokens.py) flag every disguised copy
of the corpus and no pair of distinct agents; the parse is capped and runs in a child under a memory
limit; the flags reach the gradebook, both agents' pages and a side-by-side page."""

from __future__ import annotations

import csv
import itertools
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT
from similarity_corpus import DENSEST, copies, distinct, renamed_per_function

from treasure_cli.cli import cli
from treasure_cli.grading import tokens


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict[str, tokens.Prints]:
    folder = tmp_path_factory.mktemp("corpus")
    paths = {}
    for name, (suffix, text) in distinct().items():
        paths[name] = folder / f"{name}{suffix}"
        paths[name].write_text(text)
    for name, (_, suffix, text) in copies().items():
        paths[name] = folder / f"{name}{suffix}"
        paths[name].write_text(text)
    prints = tokens.fingerprint_all(paths)
    assert not [p.note for p in prints.values() if p.note]
    return prints


def share(prints, a, b) -> float:
    m = tokens.compare(a, prints[a], b, prints[b])
    assert m is not None
    return m.share


@pytest.mark.parametrize("copy", sorted(copies()))
def test_every_disguised_copy_is_flagged(corpus, copy):
    original = copies()[copy][0]
    assert share(corpus, original, copy) >= tokens.THRESHOLD


def test_no_two_distinct_agents_are_flagged(corpus):
    shares = {(a, b): share(corpus, a, b) for a, b in itertools.combinations(sorted(distinct()), 2)}
    assert max(shares.values()) < tokens.THRESHOLD, max(shares.items(), key=lambda kv: kv[1])


def test_names_comments_and_layout_make_no_token_difference():
    one = "def f(a, b):\n    # sum\n    return a + b  # done\n\n\nx = f(1, 2)\n"
    two = "def g(p,q):\n    '''doc'''\n    return p+q\nzz=g(7,8)\n"
    assert [t.text for t in tokens.python_tokens(one)] == [t.text for t in tokens.python_tokens(two)]
    c_one = "#include <x>\nint add(int a, int b) { /* sum */ return a + b; } // end\n"
    c_two = "int plus(int x,\n         int y)\n{\n  return x+y;\n}\n"
    assert [t.text for t in tokens.c_tokens(c_one)] == [t.text for t in tokens.c_tokens(c_two)]
    assert tokens.c_tokens(c_two)[-2].line == 4  # each token keeps its line, for the highlights


def test_a_file_over_the_cap_is_left_out_and_said(tmp_path):
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * (tokens.MAX_SOURCE_BYTES // 6 + 10))
    small = tmp_path / "small.py"
    small.write_text(DENSEST)
    got = tokens.fingerprint_all({"big": big, "small": small})
    assert "over 256 KiB" in got["big"].note and not got["big"].prints
    assert got["small"].prints and not got["small"].note


def test_the_parse_runs_in_a_child_under_the_memory_limit(tmp_path, monkeypatch):
    path = tmp_path / "a.py"
    path.write_text(DENSEST)
    monkeypatch.setattr(tokens, "CHILD_MEMORY", 8 << 20)  # too little for an interpreter: the child fails
    got = tokens.parse_all({"a": path})
    assert got["a"].prints.note.startswith("the parse") and not got["a"].prints.prints
    assert got["a"].code.digest.startswith("bytes:")  # compared by its bytes only, and said
    monkeypatch.setattr(tokens, "CHILD_MEMORY", 512 << 20)
    assert tokens.parse_all({"a": path})["a"].prints.prints


def test_a_class_with_a_copy_gets_its_flags_in_the_gradebook_on_both_pages_and_side_by_side(tmp_path):
    students = tmp_path / "students"
    students.mkdir()
    shutil.copy(ROOT / "examples" / "densest_scan.py", students / "ann.py")
    (students / "bob.py").write_text(renamed_per_function(DENSEST))  # ann's, renamed function by function
    shutil.copy(ROOT / "examples" / "raw_observation.py", students / "cyd.py")
    db = str(tmp_path / "r.sqlite")
    maps = str(ROOT / "input" / "MAP_01.txt")
    played = CliRunner().invoke(cli, ["tournament", str(students), "--maps", maps, "--games", "1", "--db", db,
                                      "--agent-isolation", "none", "--jobs", "1"])
    assert played.exit_code == 0, played.output
    report = CliRunner().invoke(cli, ["tournament", "--db", db, "--report", "--csv", str(tmp_path / "g.csv"),
                                      "--html", str(tmp_path / "site")])
    assert report.exit_code == 0, report.output
    with open(tmp_path / "g.csv", newline="") as f:
        flags = {row["student"]: row["flags"] for row in csv.DictReader(f)}
    assert "similar code with bob" in flags["ann"] and "similar code with ann" in flags["bob"]
    assert flags["cyd"] == ""
    site = Path(tmp_path / "site" / "teacher")
    page = site / "similar-ann--bob.html"
    assert page.is_file() or (site / "similar-bob--ann.html").is_file()
    page = page if page.is_file() else site / "similar-bob--ann.html"
    text = page.read_text()
    assert text.count('class="l m"') > 20 and 'data-agent="ann"' in text and 'data-agent="bob"' in text
    for name, other in (("ann", "bob"), ("bob", "ann")):
        mine = (site / f"agent-{name}.html").read_text()
        assert 'id="agent-flags"' in mine and f"with {other}: similar code" in mine and page.name in mine
    assert 'id="agent-flags"' not in (site / "agent-cyd.html").read_text()
    assert page.name in (site / "index.html").read_text()
    # every pair has its percentage in --json, the copy's far above the others
    data = json.loads(CliRunner().invoke(cli, ["tournament", "--db", db, "--report", "--json"]).stdout)
    percent = {frozenset((x["a"], x["b"])): x["percent"] for x in data["similarity"]}
    assert set(percent) == {frozenset(p) for p in (("ann", "bob"), ("ann", "cyd"), ("bob", "cyd"))}
    assert percent[frozenset(("ann", "bob"))] >= 100 * tokens.THRESHOLD > percent[frozenset(("ann", "cyd"))]


def test_a_submission_that_hangs_the_parse_leaves_only_itself_out(tmp_path, monkeypatch):
    import os

    good = tmp_path / "good.py"
    good.write_text(DENSEST)
    hangs = tmp_path / "hangs.py"
    os.mkfifo(hangs)  # opening it waits for a writer that never comes
    monkeypatch.setattr(tokens, "CHILD_SECONDS", 3.0)
    got = tokens.parse_all({"good": good, "hangs": hangs})
    assert got["good"].prints.prints and not got["good"].prints.note
    assert got["hangs"].prints.note == "the parse took over 3 s"


def test_a_raw_string_never_closed_costs_one_pass():
    tokens_ = tokens.c_tokens('R"(' * 80_000)  # each opener would otherwise scan to the end again
    assert [t.text for t in tokens_] == ["S"]
    assert [t.text for t in tokens.c_tokens('auto s = R"x(a)" b)x"; int c;')] == [
        "auto", "V", "=", "S", ";", "int", "V", ";"]
