"""A class as it arrives (grading/submissions.py, grading/intake.py, grading/archives.py): every
group found at any depth or left out with its reason, archives unpacked safely, caps held."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import unicodedata
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, verdicts

from treasure_cli.cli import cli
from treasure_cli.grading.submissions import Roster, find_submissions
from treasure_cli.sandbox import levels

AGENT = "from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"
HELPED = ("from helpers import scan\n\n\nclass Agent:\n    def __init__(self):\n        self.w = open('w.json').read()\n\n"
          "    def act(self, obs):\n        return scan()\n")
HELPERS = "from treasure_cli import LargeScan\n\n\ndef scan():\n    return LargeScan()\n"
ELISE = "Groupe 01 - Élise Dupont & Zoë Martin"


def write(path: Path, text: str | bytes, mode: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    if mode is not None:
        path.chmod(mode)
    return path


@pytest.fixture(scope="module")
def binary(tmp_path_factory) -> bytes:
    """The C++ example agent, built: a prebuilt program as a group hands one in."""
    if shutil.which("g++") is None:
        pytest.skip("the prebuilt program is the C++ example, and g++ is not here")
    out = tmp_path_factory.mktemp("cpp") / "treasure-agent"
    subprocess.run(["g++", "-std=c++17", "-O2", "-o", str(out), str(ROOT / "examples" / "cpp" / "agent.cpp")],
                   check=True, timeout=300)
    return out.read_bytes()


def zipped(path: Path, members: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)


@pytest.fixture
def klass(tmp_path: Path, binary: bytes) -> Path:
    c = tmp_path / "class"
    # One folder down, an accented name decomposed on disk (as macOS writes it).
    write(c / unicodedata.normalize("NFD", ELISE) / "TP_Treasure" / "agent.py", AGENT)
    write(c / unicodedata.normalize("NFD", ELISE) / "TP_Treasure" / "README.md", "notes")
    write(c / "g02" / "src" / "agent.py", AGENT)
    write(c / "g02" / ".git" / "config", "x")
    write(c / "g02" / "__MACOSX" / "src" / "._agent.py", "garbage")
    zipped(c / "g03.zip", {"g03/agent.py": HELPED, "g03/helpers.py": HELPERS, "g03/w.json": "{}",
                           "__MACOSX/g03/._agent.py": "\x00\x05", "g03/.DS_Store": "x"})
    write(c / "g04" / "agent.py", HELPED)  # a multi-file package with a data file
    write(c / "g04" / "helpers.py", HELPERS)
    write(c / "g04" / "w.json", "{}")
    write(c / "g05" / "build" / "treasure-agent", binary, 0o755)  # a prebuilt program, one folder down
    write(c / "g05" / "agent.cpp", "// the source, handed in with the program\n")
    write(c / "g06" / "treasure-agent", binary, 0o755)
    write(c / "g06" / "run.sh", "#!/bin/sh\nexec ./treasure-agent\n", 0o755)
    write(c / "g07" / "agent.py", "class Agent:\n    def act(self, obs)\n        return 1\n")
    write(c / "g08" / "agent.py", AGENT + "#" * (4 << 20))  # 4 MB of source
    zipped(c / "g09.zip", {"agent.py": AGENT, "../escaped.py": "print('out')\n"})
    write(c / "g10" / "TP" / "agent.cpp", (ROOT / "examples" / "cpp" / "agent.cpp").read_text())  # source only
    write(c / "g10" / "TP" / "Makefile", (ROOT / "examples" / "cpp" / "Makefile").read_text())
    write(c / "g13" / "agent.cpp", "int main() { return undeclared; }\n")
    write(c / "g13" / "Makefile", "build/agent: agent.cpp\n\tmkdir -p build\n\tg++ -o build/agent agent.cpp\n")
    write(c / "g11" / "a.py", AGENT)
    write(c / "g11" / "b.py", AGENT.replace("Agent", "Other"))
    write(c / "g12" / "agent.toml", 'entry = "b.py"\nclass = "Other"\n')
    write(c / "g12" / "a.py", AGENT)
    write(c / "g12" / "b.py", AGENT.replace("Agent", "Other"))
    write(c / "notes.txt", "a README left in the class's folder")
    (c / "g14").symlink_to("/etc")
    return c


BUILDS = levels.bwrap_works()  # C++ source is built only in the sandbox


def test_every_group_of_a_class_as_it_arrives_has_its_verdict(klass):
    said = verdicts(klass)
    assert said == {
        ELISE: "python TP_Treasure/agent.py",
        "g02": "python src/agent.py",
        "g03": "python g03/agent.py",
        "g04": "python agent.py",
        "g05": "program build/treasure-agent",
        "g06": "2 programs (run.sh, treasure-agent); choose one with agent.toml: entry = \"PROGRAM\"",
        "g07": "no agent class: agent.py:2: expected ':'",
        "g08": "agent.py is 4.2 MB, over the 2 MB cap for a source file",
        "g09": "the archive has a path outside its folder ('../escaped.py'): refused",
        **({"g10": "make TP/build/treasure-agent (built with make)",
            "g13": "the build failed: agent.cpp:1:21: error: 'undeclared' was not declared in this scope"}
           if BUILDS else {g: "needs a build, and builds run only in the sandbox (bubblewrap), which cannot run here"
                           for g in ("g10", "g13")}),
        "g11": "2 agent classes (a.py:Agent, b.py:Other); choose one with agent.toml: entry = \"FILE.py\" and "
               "class = \"NAME\"",
        "g12": "python b.py",
        "g14": "a link, not a submission (give the file or folder)",
        "notes.txt": "not a submission (a .py file with an agent class, a folder, an archive, or an executable program)",
    }
    assert not (klass.parent / "escaped.py").exists()


def test_a_class_plays_in_one_command_and_dry_run_plays_nothing(klass, tmp_path):
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    roster = write(tmp_path / "roster.csv", f"folder,student id,display name\n{ELISE},s1,Élise D. & Zoë M.\n"
                                            "g04,s4,Team Four\ng99,s9,Nobody Here\n")
    runner = CliRunner()
    dry = runner.invoke(cli, ["tournament", str(klass), "--maps", str(tmp_path / "MAP_01.txt"), "--db",
                              str(tmp_path / "r.sqlite"), "--dry-run", "--roster", str(roster)])
    assert dry.exit_code == 0, dry.output
    assert ("7 groups to play, 8 left out" if BUILDS else "6 groups to play, 9 left out") in dry.output
    groups = dry.output.partition("games to play")[0]  # (the maps are listed after, indented too)
    rows = {line.split("  ")[1]: line for line in groups.splitlines() if line.startswith("  ") and
            not line.startswith("  left out")}
    assert re.fullmatch(r"  Élise D\. & Zoë M\.  python +TP_Treasure/agent\.py +2 files  106 B", rows["Élise D. & Zoë M."])
    assert re.fullmatch(r"  g05 +program +build/treasure-agent +2 files +[0-9.]+ kB", rows["g05"])
    assert len({line.index(" python ") if " python " in line else line.index(" program ") for line in rows.values()
                if " make " not in line}) == 1  # the columns aligned, by width on screen
    assert "left out: g09: the archive has a path outside its folder" in dry.output
    assert ("games to play: 35 (7 agents" if BUILDS else "games to play: 30 (6 agents") in dry.output
    assert "warning: no folder for the roster's 'Nobody Here' (s9)" in dry.output
    assert "warning: the roster does not know the folder 'g02'" in dry.output
    assert not (tmp_path / "r.sqlite").exists()
    played = runner.invoke(cli, ["tournament", str(klass), "--maps", str(tmp_path / "MAP_01.txt"), "--games", "1",
                                 "--db", str(tmp_path / "r.sqlite"), "--no-timing", "--agent-isolation", "process",
                                 "--seed", "1"])  # no game may fail: the same games every run
    assert played.exit_code == 0, played.output
    for name in (ELISE, "g02", "g03", "g04", "g05", "g12", *(["g10"] if BUILDS else [])):
        assert name in played.output
    report = runner.invoke(cli, ["tournament", "--db", str(tmp_path / "r.sqlite"), "--report", "--csv",
                                 str(tmp_path / "grades.csv")])
    assert report.exit_code == 0, report.output
    import csv

    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as f:
        graded = {row["student"]: row["verdict"] for row in csv.DictReader(f)}
    expected = verdicts(klass)  # every group of the class has its row, with its verdict
    assert set(graded) == set(expected)
    assert {g for g, v in graded.items() if v == "played"} == {
        ELISE, "g02", "g03", "g04", "g05", "g12", *(["g10"] if BUILDS else [])}
    assert graded["g13"] == "build failed" and graded["g09"] == "left out"


def hostile_zip(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("agent.py", AGENT)
        info = zipfile.ZipInfo("link")
        info.external_attr = (0o120777 << 16)
        z.writestr(info, "/etc/passwd")


def hostile_tar(path: Path, kind: str) -> None:
    with tarfile.open(path, "w:gz") as t:
        data = AGENT.encode()
        info = tarfile.TarInfo("agent.py")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
        bad = tarfile.TarInfo({"absolute": "/tmp/treasure-owned.py", "symlink": "link", "hardlink": "hard"}[kind])
        if kind == "symlink":
            bad.type, bad.linkname = tarfile.SYMTYPE, "/etc/passwd"
        elif kind == "hardlink":
            bad.type, bad.linkname = tarfile.LNKTYPE, "agent.py"
        else:
            bad.size = len(data)
        t.addfile(bad, io.BytesIO(data) if kind == "absolute" else None)


@pytest.mark.parametrize("kind, reason", [
    ("zip-link", "the archive has a link ('link'): refused"),
    ("absolute", "the archive has an absolute path ('/tmp/treasure-owned.py'): refused"),
    ("symlink", "the archive has a link ('link'): refused"),
    ("hardlink", "the archive has a link ('hard'): refused"),
    ("bomb", "the archive unpacks to more than 50 MB (the cap)"),
    ("many", "the archive has more files than the cap"),
])
def test_a_hostile_archive_is_left_out_and_changes_nothing_outside(tmp_path, tmp_path_factory, monkeypatch, kind,
                                                                  reason):
    # Archives unpack under this test's own temporary folder: the machine's is shared with other runs.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("own-tmp")))
    c = tmp_path / "class"
    c.mkdir()
    if kind == "zip-link":
        hostile_zip(c / "g.zip")
    elif kind == "bomb":
        with zipfile.ZipFile(c / "g.zip", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("agent.py", AGENT)
            z.writestr("zeros.bin", b"\0" * (51 << 20))
    elif kind == "many":
        zipped(c / "g.zip", {"agent.py": AGENT, **{f"f{i}.txt": "" for i in range(2001)}})
    else:
        hostile_tar(c / "g.tar.gz", kind)
    def outside() -> list[str]:  # (not all of /tmp: other programs write there meanwhile)
        return sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))

    before = outside()
    found, left_out = find_submissions([str(c)])
    assert found == [] and [(x.name, x.reason) for x in left_out] == [("g", reason)]
    assert outside() == before
    assert not os.path.exists("/tmp/treasure-owned.py")
    unpacked = Path(tempfile.gettempdir()) / f"treasure-cli-unpacked-{os.getuid()}"
    assert not [n for n in os.listdir(unpacked) if n.startswith(".")]  # no half-unpacked folder left


def test_a_roster_maps_nfc_folder_names_to_display_names(klass, tmp_path):
    found, left_out = find_submissions([str(klass)])
    roster = write(tmp_path / "r.csv", f"{ELISE},s1,Élise & Zoë\ng07,s7,Team Seven\n")  # composed; decomposed on disk
    named, out, warnings = Roster.read(str(roster)).apply(found, left_out)
    assert [(s.name, s.student_id) for s in named if s.folder == ELISE] == [("Élise & Zoë", "s1")]
    assert [(x.name, x.student_id, x.reason) for x in out if x.folder == "g07"] == [
        ("Team Seven", "s7", "no agent class: agent.py:2: expected ':'")]
    assert "the roster does not know the folder 'g08'" in " ".join(warnings)
    assert "'g07'" not in " ".join(warnings)


def test_check_agent_takes_a_group_as_the_tournament_does_and_a_class_in_one_go(tmp_path):
    c = tmp_path / "class"
    write(c / "g04" / "deep" / "agent.py", HELPED)
    write(c / "g04" / "deep" / "helpers.py", HELPERS)
    write(c / "g04" / "deep" / "w.json", "{}")
    write(c / "g07" / "agent.py", "class Agent:\n    def act(self, obs)\n        return 1\n")
    runner = CliRunner()
    args = ["--games", "1", "--sizes", "10", "--agent-isolation", "process"]
    one = runner.invoke(cli, ["check-agent", str(c / "g04"), *args])
    assert one.exit_code == 0, one.output
    assert "group g04: python deep/agent.py (3 files)" in one.output
    assert "ok    legal actions: 1 of 1 game played to the end" in one.output
    every = runner.invoke(cli, ["check-agent", "--class", str(c), *args])
    assert every.exit_code == 1
    assert every.output.splitlines()[-2:] == ["ok    g04: python deep/agent.py: every check passed",
                                              "FAIL  g07: left out: no agent class: agent.py:2: expected ':'"]


def test_no_source_file_over_the_cap_is_parsed_however_it_is_given(tmp_path, monkeypatch):
    import ast

    from treasure_cli.errors import AgentLoadError
    from treasure_cli.grading.normalise import code_print

    big = write(tmp_path / "big.py", AGENT + "#" * (4 << 20))
    parsed = []
    real = ast.parse
    monkeypatch.setattr(ast, "parse", lambda source, *a, **k: parsed.append(len(source)) or real(source, *a, **k))
    with pytest.raises(AgentLoadError, match="over the 2 MB cap for a source file"):
        find_submissions([str(big)])
    checked = CliRunner().invoke(cli, ["check-agent", str(big)])
    assert checked.exit_code != 0 and "over the 2 MB cap for a source file" in checked.output, checked.output
    assert "exact bytes only" in code_print(big).note
    assert parsed == []


@pytest.mark.skipif(not BUILDS, reason="builds run only in the sandbox")
def test_a_build_runs_in_the_sandbox_under_a_time_limit_and_writes_only_its_copy(tmp_path):
    from treasure_cli.sandbox import languages

    group = tmp_path / "g"
    marker = tmp_path / "outside"
    # It tries to write beside the group's folder, and then to run for ever.
    write(group / "Makefile", f"all:\n\t-touch {marker} {group}/written\n\tsleep 30\n")
    built = languages.build(group, languages.LANGUAGES[0], seconds=2)
    assert built.program is None and built.verdict == "the build took more than 2 s"
    assert not marker.exists() and not (group / "written").exists()
    assert "touch" in built.log.read_text()


@pytest.mark.skipif(not BUILDS, reason="builds run only in the sandbox")
def test_the_same_source_is_built_once_and_plays_the_same_program(tmp_path):
    from treasure_cli.sandbox import languages

    group = tmp_path / "g"
    write(group / "Makefile", "prog:\n\tprintf '#!/bin/sh\\n' > prog; date +%N >> prog; chmod +x prog\n")
    first = languages.build(group, languages.LANGUAGES[0])
    again = languages.build(group, languages.LANGUAGES[0])
    assert first.verdict == "" and first.program is not None and again.program == first.program
    assert first.program.read_bytes() == again.program.read_bytes()  # (a build again would differ)
    write(group / "Makefile", "prog:\n\tprintf '#!/bin/sh\\n' > prog; chmod +x prog\n")
    assert languages.build(group, languages.LANGUAGES[0]).program.read_bytes() == b"#!/bin/sh\n"
