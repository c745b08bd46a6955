"""What a tournament publishes (issues 40 and 41): every group accounted for in every output, names
that cannot inject, a gradebook a spreadsheet cannot run, unique pages, and private maps kept private."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from helpers import GREEDY_GROUP as GREEDY, WANDERER, class_folder, invoke

from treasure_cli.grading.store import Store

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as the start of a formula

RAISES = "class Broken:\n    def act(self, obs):\n        raise ValueError('not today')\n"
TWO = "class A:\n    def act(self, obs):\n        pass\n\n\nclass B:\n    def act(self, obs):\n        pass\n"
FORGED = "eve\n=1    forged  file:0000000000000000    100   100  100.0"  # a file name that would forge a row


@pytest.fixture
def klass(tmp_path, monkeypatch):
    """ann plays, bob fails every game, dora holds two agent classes, syntax does not parse; two maps."""
    return class_folder(tmp_path, monkeypatch, {"ann.py": GREEDY.format(name="Ann"), "bob/agent.py": RAISES,
                                                "dora.py": TWO,
                                                "syntax.py": "class Agent:\n    def act(self, obs)\n        pass\n"})


def play(*extra: str, students: str = "students"):
    return invoke("tournament", students, "--maps", "hidden", "--games", "2", "--db", "r.sqlite", "--no-timing",
                  "--agent-isolation", "none", *extra)


EXPECTED = {"ann": "played", "bob": "failed", "dora": "left out", "syntax": "left out"}


def test_every_group_has_a_row_with_its_verdict_in_every_output(klass):
    played = play()
    assert played.exit_code == 1, played.output  # bob's games failed
    rows = {line.split()[0]: line for line in played.stdout.split("each scores 0):\n")[1].splitlines()[1:]}
    assert set(rows) == {"bob", "dora", "syntax"}
    assert "left out  2 agent classes (A, B)" in rows["dora"] and "left out  line 2: " in rows["syntax"]
    assert "failed    all 4 games failed (agent-error)" in rows["bob"]

    # later, from the store alone: the text report, the CSV, the JSON and both trees of pages
    report = invoke("tournament", "--db", "r.sqlite", "--report", "--csv", "grades.csv", "--html", "site",
                    "--json")
    assert report.exit_code == 0, report.output
    data = json.loads(report.stdout)
    verdicts = {s["agent"]: s["verdict"] for s in data["standings"] + data["unranked"]}
    assert verdicts == EXPECTED
    assert data["groups"] == {"found": 4, "played": 1, "left out": 2, "failed": 1}
    assert all(u["games"] == 0 and u["win_rate"] == 0 and u["rank"] is None for u in data["unranked"])
    with open("grades.csv", newline="") as f:
        grades = {r["student"]: r for r in csv.DictReader(f)}
    assert {name: r["verdict"] for name, r in grades.items()} == EXPECTED
    assert grades["dora"]["reason"].startswith("2 agent classes (A, B); say which")
    assert (grades["dora"]["rank"], grades["dora"]["games"], grades["dora"]["win_percent"]) == ("", "0", "0.0")
    text = invoke("tournament", "--db", "r.sqlite", "--report").stdout
    table = {line.split()[1]: line for line in text.split("\n\n")[0].splitlines()[1:]}
    assert set(table) == set(EXPECTED)
    assert table["dora"].startswith("-") and table["dora"].endswith(
        "left out: 2 agent classes (A, B); say which: students/dora.py:A or students/dora.py:B")
    assert "4 groups found: 1 played, 2 left out, 1 failed" in text
    for tree in ("teacher", "public"):
        index = (klass / "site" / tree / "index.html").read_text()
        assert 'data-found="4" data-played="1" data-left-out="2" data-failed="1"' in index
        assert index.index('id="groups"') < index.index('id="ranking"')  # at its top
        assert ('href="../public/index.html"' in index) == (tree == "teacher")  # which one to publish
        for name, verdict in EXPECTED.items():
            assert re.search(rf'data-agent="{name}">.*?data-verdict="{verdict}"', index), (tree, name)
            page = (klass / "site" / tree / f"agent-{name}.html").read_text()
            assert f'<p id="verdict" data-verdict="{verdict}">' in page, (tree, name)

    # dora hands in one class: she plays, and her old verdict goes (the JSON of the run says the rest)
    (klass / "students" / "dora.py").write_text(GREEDY.format(name="Dora"))
    again = play("--json")
    assert again.exit_code == 1
    assert {u["agent"]: u["verdict"] for u in json.loads(again.stdout)["unranked"]} == {
        "bob": "failed", "syntax": "left out"}
    with Store("r.sqlite") as store:
        assert [v[0] for v in store.verdicts()] == ["syntax"]


def test_a_name_with_a_newline_or_a_formula_cannot_forge_a_row_or_run_in_a_spreadsheet(klass):
    students = klass / "students"
    for entry in ("bob", "dora.py", "syntax.py"):
        shutil.rmtree(students / entry) if (students / entry).is_dir() else (students / entry).unlink()
    (students / f"{FORGED}.py").write_text(GREEDY.format(name="Eve"))
    (students / '=HYPERLINK("evil.example","grades").py').write_text(GREEDY.format(name="Link"))
    (students / "-2+3.py").write_text("def broken(:\n")  # left out: its name reaches the CSV too
    played = play()
    assert played.exit_code == 0, played.output
    for out in (played.stdout, played.stderr):
        assert not any(line.startswith("=1    forged") for line in out.splitlines()), out
    report = invoke("tournament", "--db", "r.sqlite", "--report", "--csv", "grades.csv", "--html", "site")
    assert report.exit_code == 0, report.output
    for out in (report.stdout, report.stderr):
        assert not any(line.startswith("=1    forged") for line in out.splitlines()), out
    assert "eve\\n=1    forged" in report.stdout  # shown escaped
    table = report.stdout.split("\n\n")[0].splitlines()
    assert len(table) == 1 + 4  # the header, ann, the link, eve and the left-out one: no forged row
    text = Path("grades.csv").read_text()
    assert len(text.splitlines()) == 1 + 4  # one line per group
    with open("grades.csv", newline="") as f:
        cells = [cell for row in csv.reader(f) for cell in row]
        f.seek(0)
        grades = list(csv.DictReader(f))
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS)]
    assert {r["student"] for r in grades} == {"ann", "'=HYPERLINK(\"evil.example\",\"grades\")",
                                               "eve\\n=1    forged  file:0000000000000000    100   100  100.0",
                                               "'-2+3"}
    ranked = [r for r in grades if r["rank"]]
    assert all(r["rank"].isdigit() for r in ranked) and {r["tied"] for r in ranked} <= {"yes", "no"}
    # the pages show the name escaped, never as a line break of its own
    page = next((klass / "site" / "teacher").glob("agent-eve*.html")).read_text()
    assert "eve\\n=1    forged" in page and FORGED not in page


def test_formula_cells_are_made_inert_as_owasp_advises():
    from treasure_cli.formats.spreadsheet import csv_text, inert

    for bad in ("=1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"):
        assert inert(bad).startswith("'"), bad
    assert inert("ann") == "ann" and inert("12.5") == "12.5" and inert("a=b") == "a=b"
    rows = list(csv.reader(csv_text(["name", "rank"], [{"name": "=cmd|' /C calc'!A0", "rank": "1"}]).splitlines()))
    assert rows == [["name", "rank"], ["'=cmd|' /C calc'!A0", "1"]]


def test_every_group_gets_a_page_of_its_own():
    from treasure_cli.view.leaderboard import page_names

    names = ["ann!", "ann", "Zoé", "Zoë", "Zo", "ANN", "ann_", "agent"]
    pages = page_names(names)
    assert len({p.casefold() for p in pages.values()}) == len(names)
    assert pages["ann"] == "agent-ann.html" and pages["Zo"] == "agent-Zo.html"
    assert all(re.fullmatch(r"agent-[A-Za-z0-9._-]+\.html", p) for p in pages.values())
    # a name chosen to take another's page (the slug and digest of "ann!") gets a page of its own
    clash = pages["ann!"][len("agent-"):-len(".html")]
    again = page_names(["ann!", clash])
    assert again["ann!"] != again[clash]


def test_an_accented_name_keeps_its_letters_in_its_page_name():
    """Élise's page is agent-Elise-<digest>.html, not agent-lise-...: accents are folded (NFKD, the
    combining marks dropped), whichever form the disk gave the name in; case is kept, as for any name."""
    import unicodedata

    from treasure_cli.view.leaderboard import page_names, slug

    assert slug("Élise") == "Elise" and slug("Zoë Martin") == "Zoe_Martin" and slug("Ærø ﬁle") == "r_file"
    assert slug(unicodedata.normalize("NFD", "Groupe 01 - Élise & Zoë")) == "Groupe_01_-_Elise_Zoe"
    assert slug("山田") == "agent"  # nothing left to fold: the name's digest tells such pages apart
    names = ["Élise", "Elise", "élise", unicodedata.normalize("NFD", "Élise")]
    pages = page_names(names)
    assert pages["Elise"] == "agent-Elise.html"  # a name the slug keeps: no digest
    assert all(pages[n].startswith(("agent-Elise-", "agent-elise-")) for n in names[::2])
    assert len({p.casefold() for p in pages.values()}) == len(names)  # still one page each


def test_two_groups_whose_names_cut_the_same_keep_both_pages(klass):
    students = klass / "students"
    for entry in ("bob", "dora.py", "syntax.py"):
        shutil.rmtree(students / entry) if (students / entry).is_dir() else (students / entry).unlink()
    (students / "ann!.py").write_text(GREEDY.format(name="Loud"))
    (students / "Zoé.py").write_text(GREEDY.format(name="Zoe"))
    (students / "Zoë.py").write_text(GREEDY.format(name="Zoe"))
    assert play().exit_code == 0
    assert invoke("tournament", "--db", "r.sqlite", "--report", "--html", "site").exit_code == 0
    pages = sorted((klass / "site" / "teacher").glob("agent-*.html"))
    assert len(pages) == 4
    titles = {re.search(r"<title>(.*?)</title>", p.read_text())[1] for p in pages}
    assert titles == {"ann", "ann!", "Zoé", "Zoë"}
    index = (klass / "site" / "teacher" / "index.html").read_text()
    assert {f'href="{p.name}"' for p in pages} <= set(re.findall(r'href="agent-[^"]+"', index))


def test_the_public_tree_holds_nothing_of_a_private_map(klass):
    students = klass / "students"
    for entry in ("dora.py", "syntax.py"):
        (students / entry).unlink()
    (students / "wanda.py").write_text(WANDERER)  # loses games: each has a replay page for the teacher
    assert play().exit_code == 1
    report = invoke("tournament", "--db", "r.sqlite", "--report", "--maps", "hidden", "--html", "site",
                    "--public-maps", "hidden/MAP_01.txt", "--agent-isolation", "none")
    assert report.exit_code == 0, report.output
    with Store("r.sqlite") as store:
        rows = store.rows()
        secret = store.secret_seed()
        assert [p for p, _ in store.published_maps().values()] == ["hidden/MAP_01.txt"]
    private = [r for r in rows if r.map_path.endswith("MAP_02.txt")]
    public = [r for r in rows if r.map_path.endswith("MAP_01.txt")]
    teacher, published = klass / "site" / "teacher", klass / "site" / "public"
    # what would give MAP_02 away: its island and treasure as its replay pages draw them, its games
    # (every game played has a replay page now, wins too: the store's secret seed decides which are lost)
    pages = [(r, (teacher / f"game-{r.game_id}.html").read_text()) for r in private
             if (teacher / f"game-{r.game_id}.html").is_file()]
    lost, replay = next((r, text) for r, text in pages if '"terrain":[' in text)
    island = re.search(r'"terrain":\[[^\]]*\]', replay)[0]
    treasure = re.search(r'"treasure":\d+', replay)[0]
    secrets = ([island, treasure, str(secret), "MAP_02"] + [f"{r.seed}" for r in private]
               + [r.game_id for r in private])
    texts = {p.name: p.read_text() for p in published.iterdir()}
    assert "index.html" in texts and any(f"game-{r.game_id}.html" in texts for r in public)
    for name, text in texts.items():
        for secret_text in secrets:
            assert secret_text not in text, (name, secret_text)
        if not name.startswith("game-"):  # (a public map's failed game shows its cause, as for the teacher)
            assert "file:" not in text and "not today" not in text  # no code digest, no agent's own words
    assert sum(secret_text in (teacher / f"game-{lost.game_id}.html").read_text() for secret_text in secrets) >= 3
    # each group's public page: its games on the public map, each as its teacher's page shows it
    for name in ("ann", "bob", "wanda"):
        page, full = (published / f"agent-{name}.html").read_text(), (teacher / f"agent-{name}.html").read_text()
        assert "<h2>Games on the public maps</h2>" in page and "<h2>Games by map</h2>" in full
        mine = [r for r in public if r.name == name]
        assert len(mine) == 2 and all(f'data-game="{r.game_id}"' in page and f'data-game="{r.game_id}"' in full
                                      for r in mine)

    # the JSON gives the secret seed only when asked
    plain = json.loads(invoke("tournament", "--db", "r.sqlite", "--report", "--json").stdout)
    assert "secret_seed" not in plain and str(secret) not in json.dumps(plain)
    asked = json.loads(invoke("tournament", "--db", "r.sqlite", "--report", "--json", "--include-secret-seed").stdout)
    assert asked["secret_seed"] == secret
    for extra in ((), ("--include-secret-seed",)):  # and the JSON of the games played, the same way
        games = play("--json", *extra, students="students/ann.py")
        assert json.loads(games.stdout)["options"]["seed"] == (secret if extra else None)
        assert (str(secret) in games.stdout) == bool(extra)

    # a tournament on the published map says so; on the private one, nothing
    again = invoke("tournament", "students/ann.py", "--maps", "hidden", "--games", "2", "--db", "r.sqlite",
                   "--agent-isolation", "none")
    warned = [line for line in again.stderr.splitlines() if "were published" in line]
    assert len(warned) == 1 and "MAP_01.txt" in warned[0] and "grade on private maps" in warned[0]

    # a later report that publishes fewer maps leaves none of the earlier public pages of the others
    wider = invoke("tournament", "--db", "r.sqlite", "--report", "--html", "site", "--public-maps", "hidden")
    assert wider.exit_code == 0 and (published / f"game-{lost.game_id}.html").is_file()
    narrower = invoke("tournament", "--db", "r.sqlite", "--report", "--html", "site", "--public-maps",
                      "hidden/MAP_01.txt")
    assert narrower.exit_code == 0 and not any((published / f"game-{r.game_id}.html").exists() for r in private)


def test_tables_line_up_by_display_width_and_show_control_characters_escaped():
    from treasure_cli.view.tables import align

    decomposed = "Zoe\u0308"  # Zoë as a disk may hand it over: e and a combining diaeresis
    text = align([["agent", "wins"], [decomposed, "1"], ["山田", "2"], ["esc\x1b[31m", "3"], ["ann", "4"]], 1)
    lines = text.splitlines()
    assert len(lines) == 5 and "esc\\x1b[31m" in text and "\x1b" not in text
    import unicodedata

    def columns(line: str) -> int:
        return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
                   for c in line)

    assert len({columns(line) for line in lines}) == 1  # every row as wide on screen: the numbers line up
