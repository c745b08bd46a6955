"""File names a student hands in, in the messages of `run`, `run --step` and `check-agent` (ninth round).

A map's or an agent's file name is the student's: an escape sequence in it (`ESC ]0;` sets the
terminal's title, `ESC ]52;` its clipboard) must reach the terminal as its backslash escape, and
a line break must not begin a line that looks like the program's own. The tables escaped such
names already; these messages did not."""

from __future__ import annotations

import shutil

from helpers import ROOT, invoke

TITLE = "\x1b]0;PWNED\x07"
FORGED = "1 played, 1 won, 0 lost, 0 failed"


def _clean(output: str) -> None:
    assert "\x1b" not in output and "\x07" not in output, output
    assert "\\x1b]0;PWNED\\x07" in output, output


def test_maps_whose_logs_clash_are_named_escaped(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    for name in (f"MAP_{TITLE}.txt", f"map_{TITLE}.txt"):  # one log name on a case-insensitive disk
        shutil.copy(ROOT / "input" / "MAP_01.txt", maps / name)
    result = invoke("run", str(maps), str(tmp_path / "out"))
    assert result.exit_code == 2 and "would both write" in result.output
    _clean(result.output)


def test_no_clobber_names_the_log_escaped(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    the_map = maps / f"MAP_{TITLE}.txt"
    shutil.copy(ROOT / "input" / "MAP_01.txt", the_map)
    out = tmp_path / "out"
    assert invoke("run", str(maps), str(out)).exit_code == 0
    again = invoke("run", str(maps), str(out), "--no-clobber")
    assert again.exit_code == 2 and "--no-clobber" in again.output
    _clean(again.output)
    watched = invoke("run", str(the_map), str(out), "--step", "--no-clobber")
    assert watched.exit_code == 2 and "already holds the log of" in watched.output
    _clean(watched.output)


def test_a_bad_map_named_with_a_line_break_forges_no_line(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    (maps / f"MAP_{TITLE}\n{FORGED}\r.txt").write_text("7 6\nnot a map\n")
    result = invoke("run", str(maps), str(tmp_path / "out"))
    assert result.exit_code == 1
    _clean(result.output)
    assert not any(line.startswith(FORGED) for line in result.output.splitlines()), result.output
    assert "0 played, 0 won, 0 lost, 1 failed" in result.output


def test_check_agent_names_an_agent_file_on_one_line(tmp_path):
    agent = tmp_path / f"e{TITLE}\nok    legal actions, forged.py"
    agent.write_text("from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n"
                     "        return LargeScan()\n")
    result = invoke("check-agent", str(agent), "--games", "1", "--agent-isolation", "process")
    _clean(result.output)
    assert not any(line.startswith("ok    legal actions, forged") for line in result.output.splitlines()), \
        result.output
    assert any(line.startswith("ok    loads: ") and "\\nok    legal actions, forged.py" in line
               for line in result.output.splitlines()), result.output


def test_check_agent_class_names_a_group_on_one_line(tmp_path):
    klass = tmp_path / "class"
    klass.mkdir()
    forged = "ok    zed: python zed.py: every check passed"
    (klass / f"a\n{forged}.py").write_text("class Agent:\n    def act(self, obs):\n        raise ValueError('no')\n")
    result = invoke("check-agent", "--class", str(klass), "--games", "1", "--agent-isolation", "process")
    assert result.exit_code == 1, result.output
    assert not any(line.startswith(forged) for line in result.output.splitlines()), result.output
    assert any(line.startswith(f"FAIL  a\\n{forged}: ") for line in result.output.splitlines()), result.output


def test_check_agent_maps_named_with_a_line_break_forge_no_line(tmp_path):
    forged = "ok    deterministic: forged"
    maps = tmp_path / "maps"
    maps.mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", maps / f"MAP_01\n{forged}.txt")
    agent = tmp_path / "raiser.py"
    agent.write_text("class Agent:\n    def act(self, obs):\n        raise ValueError('no')\n")
    result = invoke("check-agent", str(agent), "--maps", str(maps), "--games", "1", "--agent-isolation", "process")
    assert result.exit_code == 1, result.output
    assert not any(line.startswith(forged) for line in result.output.splitlines()), result.output
    (maps / f"MAP_01\n{forged}.txt").write_text("7 6\nnot a map\n")
    broken = invoke("check-agent", str(agent), "--maps", str(maps), "--games", "1", "--agent-isolation", "process")
    assert broken.exit_code == 1 and "these maps cannot be played" in broken.output, broken.output
    assert not any(line.startswith(forged) for line in broken.output.splitlines()), broken.output
