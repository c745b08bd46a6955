"""Shapes of hand-in met when a class made apart from the project went through `treasure tournament`
(issue 40's check): the plain kit as a Windows zip leaves it (no `#!`, no execute bit), a zip inside
the group's zip or folder (as a course site's "download all" gives it). Each gets the verdict a
teacher would give."""

from __future__ import annotations

import csv
import io
import shutil
import zipfile
from pathlib import Path

from click.testing import CliRunner
from helpers import ROOT, verdicts

from treasure_cli.cli import cli

KIT = (ROOT / "examples" / "plain_agent.py").read_text()
AGENT = "from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"


def write(path: Path, data: str | bytes, mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    path.chmod(mode)
    return path


def zipped(members: dict[str, str | bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def handed_in(c: Path) -> None:
    write(c / "kit" / "bot.py", KIT.replace("#!/usr/bin/env python3\n", ""))  # neither #! nor +x
    write(c / "kit-crlf.zip", zipped({"Rendu/agent_kit.py": KIT.replace("\n", "\r\n")}))  # #! with \r, no +x
    write(c / "nested.zip", zipped({"rendu/final.zip": zipped({"agent.py": AGENT}), "rendu/LISEZMOI.txt": "x\n"}))
    write(c / "moodle_123_assignsubmission_file_" / "rendu.zip", zipped({"TP/agent.py": AGENT}))
    write(c / "deep.zip", zipped({"a.zip": zipped({"b.zip": zipped({"agent.py": AGENT})})}))
    write(c / "two-zips" / "v1.zip", zipped({"agent.py": AGENT}))
    write(c / "two-zips" / "v2.zip", zipped({"agent.py": AGENT}))
    write(c / "rar" / "rendu.rar", b"Rar!\x1a\x07\x00" + b"\0" * 40)
    write(c / "nested-slip.zip", zipped({"in.zip": zipped({"agent.py": AGENT, "../../escaped.py": "x = 1\n"})}))
    write(c / "nested-bomb.zip", zipped({"in.zip": zipped({"agent.py": AGENT, **{f"f{i}": "" for i in range(2001)}})}))
    write(c / "kit-manifest" / "agent.toml", 'entry = "src/kit.py"\n')
    write(c / "kit-manifest" / "src" / "kit.py", KIT)
    write(c / "helper-script" / "Makefile", "all:\n\tcp run.sh agent && chmod +x agent\n")
    write(c / "helper-script" / "run.sh", "#!/bin/sh\nexec cat\n")
    write(c / "helper-script" / "tools" / "plot.py", "import sys\nif __name__ == '__main__':\n    print(sys.stdin.read())\n")


def test_every_shape_of_hand_in_gets_the_verdict_a_teacher_would_give(tmp_path):
    c = tmp_path / "class"
    handed_in(c)
    said = verdicts(c)
    assert not (tmp_path / "escaped.py").exists() and not (c / "escaped.py").exists()
    said["helper-script"] = said["helper-script"].partition(" (built")[0]
    none = "no agent found (a Python file with a class that has act(obs), or one executable program)"
    assert said == {
        "kit": "python-program bot.py",
        "kit-crlf": "python-program Rendu/agent_kit.py",
        "nested": "python agent.py",
        "moodle_123_assignsubmission_file_": "python TP/agent.py",
        "deep": f"a.zip: {none}; it holds an archive in an archive in an archive (b.zip): unpack the one to grade "
                "into a folder of its own",
        "two-zips": f"{none}; it holds 2 archives (v1.zip, v2.zip): unpack the one to grade into a folder of its own",
        "rar": f"{none}; it holds rendu.rar, an archive of a kind that is not unpacked (only .zip and .tar are): "
               "unpack it into a folder of its own and grade that",
        "nested-slip": "in.zip: the archive has a path outside its folder ('../../escaped.py'): refused",
        "nested-bomb": "in.zip: the archive has more files than the cap",
        "kit-manifest": "python-program src/kit.py",
        "helper-script": "make agent",  # a build's program, not the helper script beside it
    }


def test_the_kit_without_its_execute_bit_and_a_zip_in_a_zip_play_and_have_their_rows(tmp_path):
    c = tmp_path / "class"
    write(c / "kit" / "bot.py", KIT.replace("#!/usr/bin/env python3\n", ""))
    write(c / "nested.zip", zipped({"rendu/final.zip": zipped({"agent.py": AGENT})}))
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    db, grades = tmp_path / "r.sqlite", tmp_path / "grades.csv"
    runner = CliRunner()
    played = runner.invoke(cli, ["tournament", str(c), "--maps", str(tmp_path / "MAP_01.txt"), "--games", "2",
                                 "--db", str(db), "--seed", "4", "--jobs", "1"])
    assert played.exit_code == 0, played.output
    report = runner.invoke(cli, ["tournament", "--db", str(db), "--report", "--csv", str(grades)])
    assert report.exit_code == 0, report.output
    with open(grades, newline="", encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert {name: (row["verdict"], row["games"]) for name, row in rows.items()} == {
        "kit": ("played", "2"), "nested": ("played", "2")}
    assert rows["kit"]["wins"] == "2"  # the kit wins both games on this map with this seed


def test_a_requirements_file_asking_for_what_is_not_installed_is_said_before_any_game(tmp_path):
    c = tmp_path / "class"
    write(c / "reqs" / "agent.py", "import treasure_no_such_package\n" + AGENT)
    write(c / "reqs" / "requirements.txt", "numpy>=1.20  # installed\n-r more.txt\ntreasure-no-such-package==3.2\n\n")
    dry = CliRunner().invoke(cli, ["tournament", str(c), "--maps", str(ROOT / "input" / "MAP_01.txt"), "--db",
                                   str(tmp_path / "r.sqlite"), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert ("note: reqs: its requirements.txt asks for treasure-no-such-package, which this Python does not have"
            in dry.output)
    assert "numpy" not in dry.output.partition("note:")[2]


def test_an_archive_with_a_path_too_long_is_refused_in_one_short_line(tmp_path):
    c = tmp_path / "class"
    write(c / "long.zip", zipped({"agent.py": AGENT, "/".join(["e" * 200] * 25) + "/y.txt": "x"}))
    reason = verdicts(c)["long"]
    assert reason.startswith("the archive has a path too long to unpack ('eeee") and reason.endswith(
        "...', 5030 characters): refused"), reason
    assert "treasure-cli-unpacked" not in reason
