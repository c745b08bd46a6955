"""The page exporter: its data decodes back to the step model's frames; the SVG frame; the CLI options."""

from __future__ import annotations

import html
import json
import re
import shutil
import unicodedata

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import GOLDEN, ROOT

from treasure_cli.cli import cli
from treasure_cli.view.page import page_data, page_html, runs, value_runs
from treasure_cli.view.sources import open_log

LOG = GOLDEN / "LOG_03.txt"
MAP = ROOT / "input" / "MAP_03.txt"


def decode_runs(r: list[int], size: int) -> np.ndarray:
    out = np.zeros(size, dtype=bool)
    k = 0
    for gap, length in zip(r[0::2], r[1::2]):
        k += gap
        out[k:k + length] = True
        k += length
    return out


def decode_values(r: list[int]) -> np.ndarray:
    return np.concatenate([np.full(n, v) for v, n in zip(r[0::2], r[1::2])])


@pytest.mark.parametrize("seed", range(5))
def test_runs_round_trip(seed):
    rng = np.random.default_rng(seed)
    mask = rng.random((7, 9)) < 0.4
    assert np.array_equal(decode_runs(runs(mask), 63).reshape(7, 9), mask)
    values = rng.integers(0, 3, (5, 6))
    assert np.array_equal(decode_values(value_runs(values)).reshape(5, 6), values)


def test_page_data_replays_every_frame_of_the_step_model():
    replay = open_log(LOG, str(MAP))
    data = page_data(replay)
    w, size = replay.island.width, replay.island.regions.size
    steps = data["steps"]
    assert len(steps["turn"]) == replay.last_step() + 1
    assert np.array_equal(decode_values(data["regions"]).reshape(replay.island.shape), replay.island.regions)
    cand = np.zeros(size, dtype=bool)
    for i in range(len(steps["turn"])):
        st = replay.state(i)
        out, back = decode_runs(steps["out"][i], size), decode_runs(steps["back"][i], size)
        cand = out if i == 0 else (cand & ~out) | back
        assert np.array_equal(cand.reshape(replay.island.shape), st.candidates), i
        assert steps["turn"][i] == st.turn
        assert steps["agent"][i] == (-1 if st.agent is None else st.agent[0] * w + st.agent[1])
        assert steps["lines"][i] == list(st.lines)
        if st.hint_mask is not None:
            mask = decode_runs(data["masks"][steps["mask"][i]], size).reshape(replay.island.shape)
            assert np.array_equal(mask, st.hint_mask & replay.island.land)


def test_page_is_self_contained_and_small():
    text = page_html(open_log(LOG, str(MAP)))
    assert len(text.encode()) <= 300_000  # a 64x64 game
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "@import" not in text and "url(" not in text
    data = json.loads(re.search(r'<script id="game-data" type="application/json">(.*?)</script>', text, re.S)[1])
    assert data["width"] == 64 and data["steps"]["lines"][-1][-1].startswith("turn ")


def test_replay_html_and_svg_options(tmp_path):
    page, svg = tmp_path / "g.html", tmp_path / "t2.svg"
    result = CliRunner().invoke(cli, ["replay", str(LOG), "--map", str(MAP), "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert page.stat().st_size > 10_000 and "wrote" in result.output
    result = CliRunner().invoke(cli, ["replay", str(LOG), "--map", str(MAP), "--turn", "2", "--svg", str(svg)])
    assert result.exit_code == 0, result.output
    text = svg.read_text()
    assert text.startswith("<svg") and text.rstrip().endswith("</svg>")
    replay = open_log(LOG, str(MAP))
    st = replay.state(replay.step_of_turn(2))
    assert f"step {st.index} of" in text and "turn 2" in text
    # the agent's tile is drawn in the agent's colour at its row and column
    r, c = st.agent
    assert re.search(rf'<rect x="{c}" y="{r}" width="1" height="1" fill="#e3201b"', text)
    assert len(text) < 120_000


def test_svg_of_a_turn_after_the_end_is_refused_as_replay_refuses_it(tmp_path):
    result = CliRunner().invoke(cli, ["replay", str(LOG), "--map", str(MAP), "--turn", "999",
                                      "--svg", str(tmp_path / "x.svg")])
    assert result.exit_code == 1 and "Error: there is no turn 999: the game ended on turn " in result.output
    assert not (tmp_path / "x.svg").exists()


def test_run_html_writes_a_page_beside_each_log(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    for name in ("MAP_01.txt", "MAP_02.txt"):
        shutil.copy(ROOT / "input" / name, maps / name)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", str(maps), str(out), "--html"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["LOG_01.html", "LOG_01.txt", "LOG_02.html", "LOG_02.txt"]
    assert "LOG_02.txt" in (out / "LOG_02.html").read_text() or "MAP_02" in (out / "LOG_02.html").read_text()


def test_an_agents_name_cannot_put_markup_on_the_page():
    """A student names the file: a name holding the page's data slot and a tag must come out as
    text, in the replay page and in the page of two games."""
    import dataclasses

    from treasure_cli.formats.map_file import read_map
    from treasure_cli.play.games import play_game
    from treasure_cli.view.page import compare_html
    from treasure_cli.view.steps import Replay

    island = read_map(ROOT / "input" / "MAP_01.txt")
    evil = "s1/*{{DATA}}*/null<img src=x onerror=alert(1)>.py:Agent"
    games = []
    for agent in ("logic", "greedy"):
        _, events = play_game(island, agent, 3, map_name="MAP_01.txt")
        games.append(Replay(island, [dataclasses.replace(events[0], agent=evil), *events[1:]]))
    for text in (page_html(games[0]), compare_html(games[0], games[1])):
        assert "<img" not in text and "onerror=alert(1)>" not in text
        assert "&lt;img src=x onerror=alert(1)&gt;" in text  # the title, as text


@pytest.mark.parametrize("name", ["a_long_folder_name_" * 6, "学生的文件夹" * 8], ids=["ascii", "wide"])
def test_svg_text_fits_however_long_the_agent_name(tmp_path, monkeypatch, name):
    """The heading names the agent as given: a long path is not cut at the map's width, nor one of
    wide (East Asian) characters, which a monospace font draws two columns wide."""
    folder = tmp_path / name / "mine"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "densest_scan.py", folder / "student_agent.py")
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    monkeypatch.chdir(tmp_path)
    spec = f"{folder.relative_to(tmp_path)}/student_agent.py:DensestScan"
    result = CliRunner().invoke(cli, ["run", "MAP_01.txt", "out", "--agent", spec, "--agent-isolation", "none"])
    assert result.exit_code == 0, result.output
    svg = tmp_path / "t.svg"
    result = CliRunner().invoke(cli, ["replay", "out/LOG_01.txt", "--turn", "1", "--svg", str(svg)])
    assert result.exit_code == 0, result.output
    text = svg.read_text()
    width = float(re.search(r'<svg [^>]*width="([0-9.]+)"', text)[1])
    lines = re.findall(r'<text x="4" [^>]*font-family="monospace"[^>]*>([^<]*)</text>', text)
    named = [line for line in lines if spec in line]
    assert named, lines
    # A 12 px monospace column is 0.6 em = 7.2 px wide (a wide character takes two): the longest
    # line, from x=4, fits.
    longest = max(sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in html.unescape(line))
                  for line in lines)
    assert 4 + 7.2 * longest <= width, (longest, width)
