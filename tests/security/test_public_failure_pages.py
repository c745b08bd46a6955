"""The published game page of a failed game on a public map holds its cause, not what the agent
wrote: docs/grading.md promises that no file of the public tree holds what an agent printed, yet
such a page was the teacher's page copied, with the agent's error text, its traceback (lines of
the group's code, for every classmate to read) and its printed output. Its link to the replay of
the turns up to the failure pointed at a page that only the teacher's tree had."""

from __future__ import annotations

import re
import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

LOUD = ("import sys\nfrom treasure_cli import LargeScan\n\n\nclass Agent:\n    def __init__(self):\n        self.n = 0\n\n"
        "    def act(self, obs):\n        self.n += 1\n        print('PRINTED-MARKER')\n"
        "        sys.stderr.write('STDERR-MARKER\\n')\n        if self.n == 3:\n"
        "            secret_line_of_my_code = 'CODE-MARKER'; raise RuntimeError('ERROR-MARKER ' + secret_line_of_my_code)\n"
        "        return LargeScan()\n")


def test_a_public_failed_game_page_shows_its_cause_and_nothing_the_agent_wrote(tmp_path):
    (tmp_path / "class" / "loud").mkdir(parents=True)
    (tmp_path / "class" / "loud" / "agent.py").write_text(LOUD)
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps" / "MAP_01.txt")
    db, runner = tmp_path / "r.sqlite", CliRunner()
    played = runner.invoke(cli, ["tournament", str(tmp_path / "class"), "--maps", str(tmp_path / "maps"), "--games", "2",
                                 "--db", str(db), "--seed", "5", "--jobs", "1"])
    assert played.exit_code == 1, played.output  # its games fail at turn 2
    report = runner.invoke(cli, ["tournament", "--db", str(db), "--report", "--maps", str(tmp_path / "maps"),
                                 "--html", str(tmp_path / "pages"), "--public-maps", str(tmp_path / "maps")])
    assert report.exit_code == 0, report.output
    teacher, public = tmp_path / "pages" / "teacher", tmp_path / "pages" / "public"
    games = sorted(p.name for p in public.glob("game-*.html") if 'data-outcome="failed"' in p.read_text())
    assert games  # (a game won before its third action has a replay page instead)
    for name in games:
        assert "ERROR-MARKER" in (teacher / name).read_text()  # the teacher's page has it all
        page = (public / name).read_text()
        assert "failed (agent-error)" in re.sub(r"<[^>]+>", "", page)
        for link in re.findall(r'href="(game-[0-9a-f]+-turns\.html)"', page):
            assert (public / link).is_file(), link
    for page in public.iterdir():
        text = page.read_text()
        for marker in ("PRINTED-MARKER", "STDERR-MARKER", "ERROR-MARKER", "CODE-MARKER"):
            assert marker not in text, (page.name, marker)
