"""Steady replies (sandbox/pacing.py): in secret-seeded games the referee's reply time carries no secret."""

from __future__ import annotations

import dataclasses
import shutil
import time

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import format_log
from treasure_cli.islands.generator import generate_island
from treasure_cli.grading import tournament
from treasure_cli.play import games
from treasure_cli.sandbox import pacing, process as agent_process
from treasure_cli.play.games import play_game
from treasure_cli.sandbox.pacing import FLOOR, SPIN as SPIN_, Pace, measure, pace_for
from treasure_cli.sandbox.levels import AgentLimits
from treasure_cli.rules import game as game_module
from treasure_cli.rules import pirate
from treasure_cli.rules.hint_draw import HintSet
from treasure_cli.rules.plugin_kinds import PluginHint

TIMER_AGENT = '''
import sys
import time

from treasure_cli.rules.actions import LargeScan


class Agent:
    def __init__(self):
        self.sent = None
        self.turn = 0

    def act(self, obs):
        now = time.perf_counter()
        if self.sent is not None and obs.turn != self.turn:
            print(f"{now - self.sent:.9f}", file=sys.stderr)
        self.turn = obs.turn
        self.sent = time.perf_counter()
        return LargeScan()
'''


@pytest.fixture(scope="module")
def island():
    return generate_island(16, 16, rng=np.random.default_rng(3))


def test_a_pace_is_measured_on_the_public_island_only(island):
    with pytest.raises(ValueError, match="public island"):
        measure(island, 0.5, None)
    pace = measure(island.public(), 0.5, None)
    assert pace.turn >= FLOOR and pace.start >= FLOOR


def test_islands_that_differ_only_in_their_treasure_share_one_pace(island):
    tiles = np.argwhere(island.walkable & ~island.prison & (island.walk_pieces == island.walk_pieces[island.treasure]))
    other = dataclasses.replace(island, treasure=tuple(int(x) for x in tiles[len(tiles) // 2]))
    assert other.treasure != island.treasure and other.digest != island.digest
    assert pace_for(other, 0.5, 20) is pace_for(island, 0.5, 20)
    assert pace_for(island, 0.5, 21) is not pace_for(island, 0.5, 20)  # the game's options are part of it


def test_every_question_after_a_turn_waits_out_the_pace_as_the_agent_times_it(island, tmp_path, monkeypatch):
    agent = tmp_path / "timer.py"
    agent.write_text(TIMER_AGENT)
    pace = Pace(turn=0.004, start=0.004)  # far above the referee's work on a 16x16 island
    monkeypatch.setattr(games, "pace_for", lambda *args: pace)
    delays: list[float] = []
    for seed in range(2):
        record, _ = play_game(island, f"{agent}:Agent", seed, map_name="m", max_turns=12, keep_events=False,
                              isolation="process", limits=AgentLimits(steady_replies=True))
        assert record.outcome != "failed", record.error
        delays += [float(x) for x in record.output.split()]
    assert len(delays) >= 10
    assert min(delays) >= pace.turn


def test_without_steady_replies_no_pace_is_measured(island, tmp_path, monkeypatch):
    agent = tmp_path / "timer.py"
    agent.write_text(TIMER_AGENT)

    def refuse(*args):
        raise AssertionError("a pace was measured for a game that does not need one")

    monkeypatch.setattr(games, "pace_for", refuse)
    record, _ = play_game(island, f"{agent}:Agent", 0, map_name="m", max_turns=5, keep_events=False,
                          isolation="process")
    assert record.outcome != "failed", record.error


def test_the_tournament_paces_its_games_only_under_its_secret_seed(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "input", tmp_path / "maps")
    monkeypatch.chdir(tmp_path)
    seen: list[bool] = []
    play_entries = tournament.play_entries

    def spy(entries, *ticket):
        seen.extend(e.limits.steady_replies for e in entries)
        return play_entries(entries, *ticket)

    monkeypatch.setattr(tournament, "play_entries", spy)
    args = ["bench", "--agents", "logic", "--maps", "maps", "--games", "1", "--no-timing", "--jobs", "1"]
    assert CliRunner().invoke(cli, [*args, "--db", "secret.sqlite"]).exit_code == 0
    assert seen and all(seen)
    seen.clear()
    assert CliRunner().invoke(cli, [*args, "--db", "known.sqlite", "--seed", "3"]).exit_code == 0
    assert seen and not any(seen)


def test_the_decoys_never_include_a_prison_or_a_tile_no_prison_reaches(island):
    flat = pacing._decoy_tiles(island.public())
    rows, cols = np.divmod(flat, island.width)
    assert island.walkable[rows, cols].all() and not island.prison[rows, cols].any()
    prison_pieces = set(island.walk_pieces[island.prison & island.walkable].tolist())
    assert set(island.walk_pieces[rows, cols].tolist()) <= prison_pieces


SLOW = 0.0004  # seconds each draw of the slow kind takes: above a 16x16 turn's own work (a paced
# turn draws it MAX_PARAM_DRAWS times: hint_draw's `even`)


@dataclasses.dataclass(frozen=True)
class SlowHalf(PluginHint):
    """A plugin kind whose draw is slow: the referee's turn takes at least SLOW with it."""

    top: bool

    name = "slow-half"

    @classmethod
    def draw(cls, island, ctx, rng):
        time.sleep(SLOW)
        return cls(rng.random() < 0.5)

    def tile_set(self, island):
        rows = np.arange(island.height)[:, None] < island.height // 2
        return np.broadcast_to(rows if self.top else ~rows, island.shape).copy()

    def statement(self):
        return f"the treasure is in the {'top' if self.top else 'bottom'} half, slowly"


def test_the_pace_is_measured_with_the_kinds_in_play(island, tmp_path, monkeypatch):
    slow = HintSet((SlowHalf,), (1.0,))
    pace = pace_for(island, 0.5, 4, slow)
    assert pace is not pace_for(island, 0.5, 4) and pace.turn >= pacing.MARGIN * SLOW
    assert pace.turn > pace_for(island, 0.5, 4).turn  # the built-ins' pace would not cover the slow kind
    # and a game with the slow kind is held to that pace: every turn's question waits it out
    agent = tmp_path / "timer.py"
    agent.write_text(TIMER_AGENT)
    asked: list = []
    monkeypatch.setattr(games, "pace_for", lambda *args: asked.append(args) or pace_for(*args))
    record, _ = play_game(island, f"{agent}:Agent", 1, map_name="m", max_turns=4, keep_events=False,
                          isolation="process", limits=AgentLimits(steady_replies=True), hints=slow)
    assert record.outcome != "failed", record.error
    assert asked and asked[0][3] is slow and pace_for(*asked[0]) is pace
    delays = sorted(float(x) for x in record.output.split())
    assert delays and delays[0] >= pace.turn
    # inside the pace: a turn whose work overran it would be held to a multiple of it (sandbox/pacing.hold)
    assert delays[len(delays) // 2] < 2 * pace.turn


class FakeClock:
    """time for sandbox/pacing.hold: each reading moves it by `tick`, and a sleep lasts `overshoot` longer than asked."""

    def __init__(self, now: float, overshoot: float = 0.0, tick: float = 1e-6):
        self.now, self.overshoot, self.tick = now, overshoot, tick

    def perf_counter(self) -> float:
        self.now += self.tick
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.now += seconds + self.overshoot


@pytest.mark.parametrize(("work", "overshoot", "multiple", "late"), [
    (0.2, 0.0, 1, False),  # on time: the question leaves one pace after the answer
    (0.2, 3 * SPIN_, 2, True),  # the sleep woke after the moment: held to the next multiple, counted late
    (1.3, 0.0, 2, True),  # the work overran the pace
    (2.5, 3 * SPIN_, 4, True),  # both: it shows it was late, never by how much
])
def test_a_hold_ends_at_a_whole_multiple_of_the_pace(monkeypatch, work, overshoot, multiple, late):
    delay, since = 0.01, 100.0
    clock = FakeClock(since + work * delay, overshoot)
    monkeypatch.setattr(pacing, "time", clock)
    assert pacing.hold(since, delay) is late
    assert since + multiple * delay <= clock.now < since + multiple * delay + 3 * clock.tick


def test_a_paced_game_walks_the_pirate_before_its_first_question_and_writes_right_after_each_hold(
        island, tmp_path, monkeypatch):
    """By structure, not by time: whatever depends on the treasure runs before a hold, never after."""
    agent = tmp_path / "timer.py"
    agent.write_text(TIMER_AGENT)
    seen: list[str] = []
    steps, hold, write = pirate._steps, agent_process.hold, agent_process.AgentProcess.write

    def walking(*args):
        for tile in steps(*args):
            seen.append("walk")
            yield tile

    monkeypatch.setattr(pirate, "_steps", walking)
    monkeypatch.setattr(agent_process, "hold", lambda since, delay: seen.append("hold") or hold(since, delay))
    monkeypatch.setattr(agent_process.AgentProcess, "write",  # a question; the greeting of a game's process is none
                        lambda self, *a: seen.append("hello" if b'"type":"hello"' in a[0] else "write") or write(self, *a))
    monkeypatch.setattr(games, "pace_for", lambda *args: Pace(turn=0.002, start=0.002))
    for steady in (False, True):
        seen.clear()
        # seed 1: the agent scans at its start, far from the treasure, so the pirate walks (freed on turn 8)
        record, _ = play_game(island, f"{agent}:Agent", 1, map_name="m", max_turns=12, keep_events=False,
                              isolation="process", limits=AgentLimits(steady_replies=steady))
        assert record.outcome != "failed", record.error
        assert "walk" in seen and "write" in seen
        walked_late = len(seen) - 1 - seen[::-1].index("walk") > seen.index("write")
        assert walked_late is not steady  # unpaced, he walks turn by turn; paced, all before the first question
        holds = [k for k, what in enumerate(seen) if what == "hold"]
        assert len(holds) >= 12 if steady else not holds
        assert all(seen[k + 1] == "write" for k in holds)


def test_a_paced_game_draws_its_hints_evenly_and_plays_exactly_the_unpaced_game(island, tmp_path, monkeypatch):
    """Paced games, and only they, draw their hints evenly (a work independent of the treasure:
    tests/rules/test_hint_draw_even.py); a paced game's log is the unpaced game's, byte for byte."""
    agent = tmp_path / "timer.py"
    agent.write_text(TIMER_AGENT)
    evens: list[bool] = []
    draw_hint = game_module.draw_hint
    monkeypatch.setattr(game_module, "draw_hint", lambda *a, even: evens.append(even) or draw_hint(*a, even=even))
    monkeypatch.setattr(games, "pace_for", lambda *args: Pace(turn=0.003, start=0.003))
    played = {}
    for steady in (False, True):
        evens.clear()
        record, events = play_game(island, f"{agent}:Agent", 2, map_name="m", max_turns=10, isolation="process",
                                   limits=AgentLimits(steady_replies=steady))
        assert record.outcome != "failed", record.error
        assert len(evens) >= 5 and set(evens) == {steady}
        played[steady] = format_log(events)
    assert played[True] == played[False]


def test_a_pause_that_falls_on_every_run_of_a_decoy_turn_does_not_set_the_pace(island, monkeypatch):
    """By structure: the decoys' times are made up, a pause lasts for some runs of one game."""
    played: list[int] = []

    def decoy_game(public, decoy, seed, *args):
        played.append(seed)
        paused = seed == 3 and played.count(3) <= pacing.REPEATS + 1  # every round, and one replay more
        return [0.002, 0.001, 0.05 if paused else 0.001, 0.0012]

    monkeypatch.setattr(pacing, "_decoy_game", decoy_game)
    pace = measure(island.public(), 0.5, None)
    assert pace.turn == pytest.approx(pacing.MARGIN * 0.0012) and pace.start == pytest.approx(pacing.MARGIN * 0.002)
    assert played.count(3) == pacing.REPEATS + 2 and played.count(4) == pacing.REPEATS

    def slow_turn(public, decoy, seed, *args):  # a turn slow in every run: real work, it counts
        return [0.002, 0.001, 0.05 if seed == 3 else 0.001, 0.0012]

    monkeypatch.setattr(pacing, "_decoy_game", slow_turn)
    assert measure(island.public(), 0.5, None).turn == pytest.approx(pacing.MARGIN * 0.05)
