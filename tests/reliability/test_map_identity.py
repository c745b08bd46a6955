"""A log names its map exactly and is tied to its content; a map's game does not depend on its name."""

from __future__ import annotations

import os
import shutil

from click.testing import CliRunner
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import format_event, parse_event, read_log
from treasure_cli.rules import events as ev

MAP = ROOT / "input" / "MAP_02.txt"


@settings(max_examples=300)
@given(name=st.text(min_size=1, max_size=40), agent=st.text(min_size=1, max_size=20))
def test_any_map_path_or_agent_spec_survives_the_game_line(name, agent):
    start = ev.GameStarted(name, 7, 5, 1, agent, 0.5, 48, False, "0123456789abcdef")
    line = format_event(start)
    assert line.isascii() or line.isprintable()
    assert len(line.splitlines()) == 1
    assert parse_event(line) == start


def test_the_same_map_under_two_names_in_two_folders_plays_the_same_game(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "deeper").mkdir(parents=True)
    shutil.copy(MAP, tmp_path / "a" / "MAP_02.txt")
    # the same map in another layout: CRLF line ends and padded cells
    text = MAP.read_text().replace("; ", " ;  ").replace("\n", "\r\n")
    (tmp_path / "b" / "deeper" / "island.txt").write_bytes(text.encode())
    for src, out in (("a", "oa"), ("b/deeper", "ob")):
        assert CliRunner().invoke(cli, ["run", str(tmp_path / src), str(tmp_path / out)]).exit_code == 0
    a = (tmp_path / "oa" / "LOG_02.txt").read_text().splitlines()
    b = (tmp_path / "ob" / "LOG_island.txt").read_text().splitlines()
    assert a[:3] == b[:3] and a[4:] == b[4:]
    assert a[3].split("(", 1)[1] == b[3].split("(", 1)[1]  # size, digest, seed, agent, ...


def test_a_map_whose_name_holds_a_newline_or_odd_bytes_gets_a_log_that_replays(tmp_path):
    (tmp_path / "in").mkdir()
    odd = os.fsencode(str(tmp_path / "in")) + b"/MAP_a\nb \xff.txt"
    with open(odd, "wb") as fh:
        fh.write(MAP.read_bytes())
    r = CliRunner().invoke(cli, ["run", str(tmp_path / "in"), str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    [log] = list((tmp_path / "out").iterdir())
    start = read_log(log)[0]
    assert os.fsencode(start.map_name) == odd
    replay = CliRunner().invoke(cli, ["replay", str(log), "--turn", "1", "--no-color"])
    assert replay.exit_code == 0, replay.output
    check = CliRunner().invoke(cli, ["check", str(tmp_path / "in")])
    assert check.exit_code == 0 and '/MAP_a\\nb \\udcff.txt": ok' in check.output


def test_replay_refuses_a_log_whose_map_has_changed(tmp_path):
    shutil.copy(MAP, tmp_path / "MAP_02.txt")
    assert CliRunner().invoke(cli, ["run", str(tmp_path / "MAP_02.txt"), str(tmp_path / "out")]).exit_code == 0
    lines = (tmp_path / "MAP_02.txt").read_text().splitlines()
    lines[1] = str(int(lines[1]) + 1)  # another reveal turn: another map
    (tmp_path / "MAP_02.txt").write_text("\n".join(lines) + "\n")
    r = CliRunner().invoke(cli, ["replay", str(tmp_path / "out" / "LOG_02.txt"), "--turn", "1"])
    assert r.exit_code == 1
    assert r.output.startswith(f"Error: {tmp_path / 'out' / 'LOG_02.txt'}:4: the map has changed since this game")
