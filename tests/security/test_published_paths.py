"""What is published names nothing of the teacher's machine and holds no agent's own words.

The public index and a group's public page gave a failed build's reason whole:
`the build failed: ... (build log: /tmp/treasure-cli-builds-0/<digest>.log)`, the teacher's
temporary folder and user id (0: the teacher grades as root). The JSON of `--report --json`,
which docs/grading.md says is made to be published, gave every failed group's first error text
(what the agent raised, which the public pages leave out) and the same build log's path."""

from __future__ import annotations

import json
import shutil
import tempfile

import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.sandbox import levels

RAISES = ("class Agent:\n    def act(self, obs):\n"
          "        raise RuntimeError('ERROR-MARKER in ' + __file__)\n")


@pytest.mark.skipif(not levels.bwrap_works(), reason="builds run only in the sandbox")
def test_published_pages_and_json_name_no_path_of_the_machine_and_no_agent_words(tmp_path):
    klass = tmp_path / "class"
    (klass / "cpp").mkdir(parents=True)
    (klass / "cpp" / "Makefile").write_text("agent: agent.cpp\n\tg++ -o agent agent.cpp\n")
    (klass / "cpp" / "agent.cpp").write_text("int main() { return undeclared_marker; }\n")
    (klass / "loud").mkdir()
    (klass / "loud" / "agent.py").write_text(RAISES)
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps" / "MAP_01.txt")
    db, runner = tmp_path / "r.sqlite", CliRunner()
    played = runner.invoke(cli, ["tournament", str(klass), "--maps", str(tmp_path / "maps"), "--games", "1",
                                 "--db", str(db), "--seed", "5", "--jobs", "1"])
    assert played.exit_code == 1, played.output  # loud's game fails
    assert "build log: " + tempfile.gettempdir() in played.output  # the teacher's own output has it
    report = runner.invoke(cli, ["tournament", "--db", str(db), "--report", "--maps", str(tmp_path / "maps"),
                                 "--html", str(tmp_path / "pages"), "--json"])
    assert report.exit_code == 0, report.output
    data = json.loads(report.output[report.output.index("{"):])
    reasons = {row["agent"]: row["reason"] for row in data["standings"] + data["unranked"]}
    assert reasons["cpp"].startswith("the build failed: agent.cpp:1:"), reasons
    assert reasons["loud"] == "its one game failed (agent-error)", reasons
    published = [p.read_text() for p in (tmp_path / "pages" / "public").iterdir()]
    assert any("undeclared_marker" in text for text in published)  # the compiler's words are its group's
    for text in published + [json.dumps({k: data[k] for k in ("standings", "unranked")})]:
        for secret in ("build log", tempfile.gettempdir() + "/", str(tmp_path), "ERROR-MARKER"):
            assert secret not in text, (secret, text[:200])
