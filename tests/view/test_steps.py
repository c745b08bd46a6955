"""The step-through view: `treasure replay LOG` and `treasure run MAP --step`.

Most tests use one tiny hand-made game (a 7x6 map and a hand-written event
list), so they do not move when the agents or the hint draw change. Set
TREASURE_UPDATE_GOLDEN=1 to rewrite tests/golden/frame_*.txt on purpose.
"""

from __future__ import annotations

import dataclasses

import os
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from helpers import GOLDEN

from treasure_cli.rules import events as ev
from treasure_cli.cli import cli
from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.grid import Direction
from treasure_cli.rules.hints import InRectangle, NotRegions, NotTiles
from treasure_cli.formats.game_record import format_log
from treasure_cli.formats.map_file import parse_map, write_map
from treasure_cli.view.render import Renderer, follow, strip_ansi
from treasure_cli.view.steps import Replay, starts_step

UPDATE = bool(os.environ.get("TREASURE_UPDATE_GOLDEN"))
ESC = "\x1b["

TINY_MAP = """7 6
2
3
4
3 5
0; 0; 0; 0; 0; 0; 0
0; 1; 1; 2; 2; 2; 0
0; 1; 1M; 2; 2P; 2; 0
0; 1; 1; 3; 3; 3; 0
0; 1P; 3; 3; 3; 3; 0
0; 0; 0; 0; 0; 0; 0
"""

S, E = Direction.S, Direction.E
TINY_EVENTS: list[ev.Event] = [
    ev.GameStarted("tiny.txt", 7, 6, 42, "scripted", 0.5, 52),
    ev.TreasureHidden((3, 5), (4, 1)),
    ev.AgentPlaced((1, 1)),
    ev.ScheduleAnnounced(2, 3),
    ev.TurnStarted(1),
    ev.HintGiven(1, 1, NotRegions(regions=(1,)), True),
    ev.HintAdded(1, 1, 1),
    ev.AgentMoved(1, S, 2, (1, 1), (3, 1)),
    ev.AreaScanned(1, (3, 1), 3, False),
    ev.AgentMoved(1, E, 1, (3, 1), (3, 2)),
    ev.AreaScanned(1, (3, 2), 3, False),
    ev.TurnStarted(2),
    ev.PrisonRevealed(2, (4, 1)),
    ev.HintGiven(2, 2, InRectangle(top=2, left=3, bottom=4, right=5), True),
    ev.HintAdded(2, 2, 2),
    ev.HintVerified(2, 2, True),
    ev.AgentMoved(2, E, 3, (3, 2), (3, 5)),  # a large move: standing on the treasure does not win
    ev.TurnStarted(3),
    ev.PirateFreed(3),
    ev.HintGiven(3, 3, NotTiles(tiles=((3, 5),)), False),
    ev.HintAdded(3, 3, 3),
    ev.PirateMoved(3, (4, 1), (3, 2)),  # his path: north first (RULES §6), then east
    ev.Teleported(3, (3, 5), (1, 4)),
    ev.AgentMoved(3, S, 1, (1, 4), (2, 4)),
    ev.AreaScanned(3, (2, 4), 3, True),
    ev.GameEnded(3, ev.Outcome.WIN, ev.EndReason.FOUND),
]
# The first event of each step, by index into TINY_EVENTS.
TINY_STEPS = [0, 4, 7, 9, 11, 15, 16, 17, 21, 22, 23, 25]


@pytest.fixture
def tiny(tmp_path: Path) -> tuple[Path, Path]:
    """The tiny game as files: (log, map), the map where the log says it is (next to the log)."""
    (tmp_path / "tiny.txt").write_text(TINY_MAP)
    log = tmp_path / "LOG_tiny.txt"
    log.write_text(format_log(TINY_EVENTS))
    return log, tmp_path / "tiny.txt"


def tiny_replay(**kw) -> Replay:
    return Replay(parse_map(TINY_MAP), TINY_EVENTS, **kw)


def invoke(args: list[str], input: str | None = None, env: dict | None = None):
    return CliRunner().invoke(cli, args, input=input, env=env)


def steps_shown(output: str) -> list[int]:
    return [int(n) for n in re.findall(r"^step (\d+)", output, flags=re.M)]


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs (TREASURE_UPDATE_GOLDEN=1 rewrites it)"


# ------------------------------------------------------------------ steps and states
def test_a_step_is_the_setup_a_turn_start_a_pirate_move_an_action_or_the_end():
    starts = [i for i, e in enumerate(TINY_EVENTS) if starts_step(TINY_EVENTS[i - 1] if i else None, e)]
    assert starts == TINY_STEPS
    replay = tiny_replay()
    assert replay.total == len(TINY_STEPS)
    assert [replay.step_of_turn(t) for t in range(4)] == [0, 1, 4, 7]
    assert replay.step_of_turn(4) is None


def test_states_follow_the_game():
    replay = tiny_replay()
    setup, scan, verify, pirate, found = (replay.state(i) for i in (0, 2, 5, 8, 10))
    assert setup.agent == (1, 1) and setup.treasure == (3, 5) and not setup.pirate_known
    assert scan.scan == ((3, 1), 3) and scan.hint is None
    assert verify.hint == 2 and verify.hint_sentence == "the treasure is in the rectangle from (2, 3) to (4, 5)"
    assert verify.prison_revealed and verify.pirate == (4, 1) and not verify.pirate_free
    assert pirate.pirate_free and pirate.pirate == (3, 2)
    assert found.teleport_used and found.agent == (2, 4) and found.outcome is None
    assert replay.state(11).outcome == TINY_EVENTS[-1]
    # Inside the verified rectangle, minus the prison and what the scan at (3, 2) covered.
    assert list(zip(*np.nonzero(verify.candidates))) == [(2, 5), (3, 4), (3, 5), (4, 4), (4, 5)]


def test_going_back_gives_the_same_state_as_a_fresh_fold():
    """Checkpoints every 3 steps and no cache: every state is rebuilt from a checkpoint."""
    replay = tiny_replay(checkpoint_every=3, cache_size=1)
    order = [11, 0, 7, 3, 4, 5, 10, 2, 2, 9, 1, 6]
    seen = [(index, replay.state(index)) for index in order]
    # Compared only now, so a state changed in place by a later fold would show.
    for index, got in seen:
        fresh = tiny_replay().state(index)
        assert np.array_equal(got.candidates, fresh.candidates), index
        assert (got.agent, got.pirate, got.verified, got.truths) == (fresh.agent, fresh.pirate, fresh.verified,
                                                                     fresh.truths)


def test_one_step_back_right_after_a_step_is_folded_afresh():
    """Step k, then at once step k-1, with a one-frame cache and no checkpoint between: k-1 is
    not the state folded up to k (the cursor is only ever moved forward)."""
    for k in range(len(TINY_STEPS) - 1, 0, -1):
        replay = tiny_replay(checkpoint_every=1000, cache_size=1)
        replay.state(k)
        got = replay.state(k - 1)
        fresh = tiny_replay().state(k - 1)
        assert np.array_equal(got.candidates, fresh.candidates), k
        assert got == dataclasses.replace(fresh, candidates=got.candidates), k


def test_a_live_game_is_read_only_as_far_as_asked():
    pulled: list[ev.Event] = []

    def source():
        for e in TINY_EVENTS:
            pulled.append(e)
            yield e

    replay = Replay(parse_map(TINY_MAP), source())
    assert replay.state(2).total is None
    assert len(pulled) == TINY_STEPS[3] + 1  # step 2 is complete once step 3 has started
    assert replay.last_step() == 11 and replay.state(2).total == 12


# ------------------------------------------------------------------ frames
def test_every_frame_of_the_tiny_game_matches_the_golden_text(tiny):
    log, _ = tiny
    result = invoke(["replay", str(log), "--no-pause", "--no-color"])
    assert result.exit_code == 0, result.output
    assert steps_shown(result.output) == list(range(12))
    check_golden("frame_tiny_all.txt", result.output)


def test_a_window_frame_matches_the_golden_text(tiny):
    log, _ = tiny
    result = invoke(["replay", str(log), "--turn", "3", "--window", "3x4"])
    assert result.exit_code == 0, result.output
    assert "rows 2-4, columns 3-6 shown" in result.output
    check_golden("frame_tiny_window.txt", result.output)


def test_colour_adds_escape_codes_and_nothing_else():
    island = parse_map(TINY_MAP)
    replay = Replay(island, TINY_EVENTS)
    for index in range(replay.total):
        plain = Renderer(island, color=False).frame(replay.state(index))
        coloured = Renderer(island, color=True).frame(replay.state(index))
        assert ESC in coloured and ESC not in plain
        assert [line.rstrip() for line in strip_ansi(coloured).splitlines()] == plain.splitlines()


def test_no_escape_codes_unless_colour_is_asked_for(tiny):
    log, _ = tiny
    for args, env in (([], None), (["--no-color"], None), ([], {"NO_COLOR": "1"}),
                      (["--no-color"], {"FORCE_COLOR": "1"})):
        result = invoke(["replay", str(log), "--turn", "2", *args], env=env)
        assert result.exit_code == 0 and ESC not in result.output, (args, env)
    forced = invoke(["replay", str(log), "--turn", "2", "--color"], env={"NO_COLOR": "1"})
    assert ESC in forced.output  # --color wins, even into a pipe


@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 12), st.integers(1, 12),
       st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), min_size=1, max_size=12))
def test_the_window_stays_on_the_map_and_keeps_the_agent_inside(h, w, rows, cols, path):
    view = None
    for r, c in path:
        focus = (r % h, c % w)
        view = follow(view, focus, (h, w), rows, cols)
        assert 0 <= view.top <= view.top + view.rows <= h and 0 <= view.left <= view.left + view.cols <= w
        assert view.top <= focus[0] < view.top + view.rows and view.left <= focus[1] < view.left + view.cols


def test_the_window_moves_only_when_the_agent_nears_its_edge():
    view = follow(None, (50, 50), (100, 100), 20, 20)
    assert (view.top, view.left) == (40, 40)
    assert follow(view, (52, 47), (100, 100), 20, 20) == view
    moved = follow(view, (57, 50), (100, 100), 20, 20)
    assert moved.top == 57 - (20 - 1 - 5) and moved.left == 40


# ------------------------------------------------------------------ keys
def test_enter_steps_b_goes_back_a_number_jumps_q_quits(tiny):
    log, _ = tiny
    result = invoke(["replay", str(log), "--no-color"], input="\n\nb\n3\n\nq\n\n\n")
    assert result.exit_code == 0, result.output
    assert steps_shown(result.output) == [0, 1, 2, 1, 7, 8]


def test_unknown_keys_and_missing_turns_are_explained(tiny):
    log, _ = tiny
    result = invoke(["replay", str(log)], input="b\nx\n9\nq\n")
    assert steps_shown(result.output) == [0, 0, 0, 0]
    assert "this is the first step" in result.output
    assert "unknown key 'x': press Enter, b, n, a turn number or q" in result.output
    assert "there is no turn 9: the game ended on turn 3" in result.output


def test_end_of_input_quits_and_enter_on_the_last_step_too(tiny):
    log, _ = tiny
    assert steps_shown(invoke(["replay", str(log)], input="\n").output) == [0, 1]
    result = invoke(["replay", str(log)], input="3\n" + "\n" * 20)
    assert steps_shown(result.output) == [0, 7, 8, 9, 10, 11] and result.exit_code == 0
    assert "game over." in result.output


# ------------------------------------------------------------------ errors
def test_a_damaged_log_names_the_line(tiny):
    log, _ = tiny
    lines = log.read_text().splitlines()
    lines[10] = lines[10].replace("moves", "flies")
    log.write_text("\n".join(lines) + "\n")
    result = invoke(["replay", str(log)])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {log}:11: not a known log line: 'turn 1: the agent flies S 2")


def test_a_log_that_does_not_fit_the_map_names_the_line(tiny):
    log, _ = tiny
    log.write_text(log.read_text().replace("to (3, 2)", "to (3, 9)"))
    result = invoke(["replay", str(log)])
    assert result.exit_code == 1
    assert result.output == f"Error: {log}:13: dst (3, 9) is outside the 7x6 map\n"


def test_the_map_is_found_from_the_log_or_given(tiny, tmp_path, monkeypatch):
    log, map_path = tiny
    monkeypatch.chdir(tmp_path.parent)  # the recorded "tiny.txt" is only next to the log
    assert invoke(["replay", str(log), "--turn", "0"]).exit_code == 0
    moved = tmp_path / "maps" / "other.txt"
    moved.parent.mkdir()
    map_path.rename(moved)
    result = invoke(["replay", str(log), "--turn", "0"])
    assert result.exit_code == 1
    assert result.output == (f"Error: {log}: cannot find the map tiny.txt recorded in the log (tried tiny.txt, "
                             f"{tmp_path / 'tiny.txt'}, {tmp_path.parent / 'tiny.txt'}); give it with --map\n")
    assert invoke(["replay", str(log), "--turn", "0", "--map", str(moved)]).exit_code == 0
    wrong = invoke(["replay", str(log), "--map", str(tmp_path / "nope.txt")])
    assert wrong.output == f"Error: {tmp_path / 'nope.txt'}: no such map file\n"


def test_a_log_of_another_map_is_refused(tiny, tmp_path):
    log, _ = tiny
    other = tmp_path / "other.txt"
    other.write_text(TINY_MAP.replace("3 5\n", "3 4\n"))
    result = invoke(["replay", str(log), "--map", str(other)])
    assert result.output == (f"Error: {log}:5: the log's treasure (3, 5) is not the map's (3, 4): "
                             "is it the right map?\n")


@pytest.mark.parametrize("args, message", [
    (["--turn", "9"], "Error: there is no turn 9: the game ended on turn 3"),
    (["--turn", "1", "--no-pause"], "give either --no-pause or --turn, not both"),
    (["--window", "3by4"], "expected ROWSxCOLS such as 30x60, not '3by4'"),
])
def test_bad_view_options(tiny, args, message):
    log, _ = tiny
    result = invoke(["replay", str(log), *args])
    assert result.exit_code != 0 and message in result.output


# ------------------------------------------------------------------ run --step
@pytest.fixture
def small_map(tmp_path: Path) -> Path:
    path = tmp_path / "maps" / "MAP_07.txt"
    write_map(generate_island(14, 12, rng=np.random.default_rng(5)), path)
    return path


def test_run_step_plays_live_and_writes_the_same_log_as_run(small_map, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    batch = invoke(["run", "maps/MAP_07.txt", "batch"])
    assert batch.exit_code == 0, batch.output
    live = invoke(["run", "maps/MAP_07.txt", "live", "--step", "--no-color"], input="\n\nb\nq\n")
    assert live.exit_code == 0, live.output
    assert steps_shown(live.output) == [0, 1, 2, 1]
    assert "(game in progress)" in live.output
    assert live.output.endswith("wrote live/LOG_07.txt\n")
    assert (tmp_path / "live" / "LOG_07.txt").read_bytes() == (tmp_path / "batch" / "LOG_07.txt").read_bytes()


def test_run_step_shows_every_frame_and_the_replay_shows_the_same(small_map, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    live = invoke(["run", "maps/MAP_07.txt", "out", "--step", "--no-pause"])
    replayed = invoke(["replay", "out/LOG_07.txt", "--no-pause"])
    assert live.exit_code == replayed.exit_code == 0
    # Only the live frames' step count differs: it is unknown until the game has ended.
    assert normalise(live.output) == normalise(replayed.output)


def normalise(text: str) -> str:
    text = text.replace(" (game in progress)", "")
    text = re.sub(r"^(step \d+) of \d+", r"\1", text, flags=re.M)
    return re.sub(r"^wrote .*\n", "", text, flags=re.M)


@pytest.mark.parametrize("args, message", [
    (["run", "maps", "--step"], "--step watches one game: INPUT must be a map file"),
    (["run", "maps", "out", "--no-pause"], "go with --step"),
    (["run", "maps/MAP_07.txt", "--step", "--json"], "--json does not go with --step"),
])
def test_run_step_usage_errors(small_map, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = invoke(args)
    assert result.exit_code == 2 and message in result.output


@pytest.mark.parametrize("agent", ["logic", "oracle"])
def test_ruled_out_tiles_are_the_ones_the_logged_agent_knew(agent):
    """An oracle was told every hint's truth; the replay dims what it could rule out."""
    from treasure_cli.agents.knowledge import Knowledge
    from treasure_cli.play.games import build_game
    from treasure_cli.play.loop import play_agent

    island = generate_island(20, 20, rng=np.random.default_rng(5))
    events = list(play_agent(*build_game(island, agent, 3)))
    replay = Replay(island, events)
    index = 0
    while replay.has_step(index + 1):
        index += 1
    last = replay.state(index)
    know = Knowledge(island.public())
    for e in events:
        seen = ev.public_view(e, hint_truths=(agent == "oracle"))
        if seen is not None:
            know.update(seen)
    assert np.array_equal(last.candidates, know.candidates)


def test_the_map_is_found_in_the_logs_parent_folder_when_the_log_is_named_alone(tmp_path, monkeypatch):
    """`cd game/logs && treasure replay LOG_01.txt` for a log recorded with input/MAP_01.txt, the
    map in game/input/: the log's parent folder is `..` there, not `.` (nor `.` for `../LOG_01.txt`)."""
    import shutil

    game = tmp_path / "game"
    (game / "input").mkdir(parents=True)
    shutil.copy(GOLDEN.parent.parent / "input" / "MAP_01.txt", game / "input" / "MAP_01.txt")
    (game / "logs" / "sub").mkdir(parents=True)
    shutil.copy(GOLDEN / "LOG_01.txt", game / "logs" / "LOG_01.txt")  # recorded: input/MAP_01.txt
    monkeypatch.chdir(game / "logs")
    assert invoke(["replay", "LOG_01.txt", "--turn", "0"]).exit_code == 0
    monkeypatch.chdir(game / "logs" / "sub")
    assert invoke(["replay", "../LOG_01.txt", "--turn", "0"]).exit_code == 0
    (game / "input" / "MAP_01.txt").unlink()
    result = invoke(["replay", "../LOG_01.txt", "--turn", "0"])
    assert result.exit_code == 1
    assert "(tried input/MAP_01.txt, ../input/MAP_01.txt, ../../input/MAP_01.txt)" in result.output
