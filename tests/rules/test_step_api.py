"""The engine's public step API (start / observe / check / step): the same games as the
loop it replaced, illegal steps that change nothing, and clear refusals out of turn."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Iterator

import numpy as np
import pytest
from helpers import SMALL_ROWS, ScriptedAgent, island_from_grid, play
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treasure_cli.agents.random_agent import RandomAgent
from treasure_cli.errors import AgentCrashError, IllegalActionError, TreasureError
from treasure_cli.islands.generator import generate_island
from treasure_cli.play.loop import play_agent
from treasure_cli.rules import events as ev
from treasure_cli.rules import seeds
from treasure_cli.rules.actions import (
    LARGE_SCAN_SIZE, SMALL_SCAN_SIZE, LargeScan, Move, Teleport, Verify, in_scan, legal_actions, move_target,
    scan_square,
)
from treasure_cli.rules.events import Event, EndReason, GameEnded, Outcome, public_view
from treasure_cli.rules.game import ACTIONS_PER_TURN, Game
from treasure_cli.rules.grid import Direction
from treasure_cli.rules.hint_draw import HintContext, draw_hint
from treasure_cli.rules.observation import Observation, make_observation
from treasure_cli.rules.pirate import next_stop

FIELDS = [f.name for f in dataclasses.fields(Observation)]


def seen(obs: Observation, news: bool = True) -> dict:
    """An observation's fields as comparable values (the scanned mask as bytes)."""
    out = {name: getattr(obs, name) for name in FIELDS if news or name != "news"}
    out["verified"] = dict(obs.verified)
    out["scanned"] = obs.scanned.tobytes()
    return out


class Sloppy:
    """Mostly legal actions, teleports included, and now and then one the game may refuse."""

    def __init__(self, wild: float):
        self.wild = wild
        self.rng = np.random.default_rng(0)
        self.observations: list[Observation] = []

    def reset(self, seed):
        self.rng = np.random.default_rng(seed)

    def act(self, obs):
        self.observations.append(obs)
        rng = self.rng
        if rng.random() < self.wild:
            d = list(Direction)[int(rng.integers(4))]
            h, w = obs.island.shape
            return [Move(d, int(rng.integers(0, 6))), Verify(int(rng.integers(0, len(obs.hints) + 2))),
                    Teleport((int(rng.integers(-1, h + 1)), int(rng.integers(-1, w + 1)))),
                    LargeScan(), "scan"][int(rng.integers(5))]
        options = legal_actions(obs, teleports=rng.random() < 0.1)
        return options[int(rng.integers(len(options)))]


def step_by_step(game: Game, agent) -> tuple[list[ev.Event], str | None]:
    """The game driven by hand through the public API; its events and the refusal that ended it."""
    agent.reset(seeds.agent_seed(game.seed))  # as play_agent and the old loop do
    events = game.start()
    assert len(events) >= 5 and isinstance(events[0], ev.GameStarted)
    while not game.over:
        assert game.actions_left in (1, 2)
        action = agent.act(game.observe())
        try:
            events += game.step(action)
        except IllegalActionError as exc:
            return events, str(exc)
    assert game.actions_left == 0 and events[-1] is game.result
    return events, None


def old_loop(game: OldLoopGame, agent) -> tuple[list[ev.Event], str | None]:
    events: list[ev.Event] = []
    try:
        for e in game.play(agent):
            events.append(e)
    except IllegalActionError as exc:
        return events, str(exc)
    return events, None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(6, 24), island_seed=st.integers(0, 2**32), seed=st.integers(0, 2**63 - 1),
       wild=st.sampled_from([0.0, 0.02, 0.2]), truth_rate=st.sampled_from([0.0, 0.5, 1.0]),
       early=st.booleans())
def test_stepping_plays_the_game_the_old_loop_played(size, island_seed, seed, wild, truth_rate, early):
    extra = {"reveal_turn": 1, "free_turn": 2} if early else {}
    island = generate_island(size, size, rng=np.random.default_rng(island_seed), **extra)
    new, old = Sloppy(wild), Sloppy(wild)
    events, refused = step_by_step(Game(island, seed, truth_rate=truth_rate), new)
    assert (events, refused) == old_loop(OldLoopGame(island, seed, truth_rate=truth_rate), old)
    assert [seen(o) for o in new.observations] == [seen(o) for o in old.observations]
    if refused is None:  # and play_agent is that same loop
        assert list(play_agent(Game(island, seed, truth_rate=truth_rate), Sloppy(wild))) == events


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(6, 20), island_seed=st.integers(0, 2**32), seed=st.integers(0, 2**32))
def test_an_illegal_step_leaves_the_game_as_it_was(size, island_seed, seed):
    island = generate_island(size, size, rng=np.random.default_rng(island_seed))
    plain, probed = Game(island, seed), Game(island, seed)
    a, b = RandomAgent(), RandomAgent()
    a.reset(seed), b.reset(seed)
    assert plain.start() == probed.start()
    refused = 0
    while not plain.over:
        obs = probed.observe()
        assert seen(plain.observe()) == seen(obs)
        h, w = island.shape
        for bad in (Verify(1), Verify(len(obs.hints) + 1), Move(Direction.N, 5), Teleport((h, w)), "scan",
                    *(m for d in Direction for n in range(1, 5)
                      if (m := Move(d, n)) not in legal_actions(obs, teleports=False))):
            with pytest.raises(IllegalActionError) as checked:
                probed.check(bad)
            with pytest.raises(IllegalActionError) as stepped:
                probed.step(bad)
            assert str(checked.value) == str(stepped.value)
            refused += 1
        after = probed.observe()
        assert seen(after, news=False) == seen(obs, news=False) and after.news == ()
        action = a.act(obs)
        assert b.act(obs) == action
        probed.check(action)  # a legal action passes the check and is still to be played
        assert probed.step(action) == plain.step(action)
    assert probed.result == plain.result and refused > 0


def small_game(**kw) -> Game:
    return Game(island_from_grid(SMALL_ROWS, (1, 6), r=2, f=3), 5, **kw)


def test_nothing_but_start_before_the_start():
    game = small_game()
    assert game.actions_left == 0 and not game.over
    for call in (game.observe, lambda: game.step(LargeScan()), lambda: game.check(LargeScan())):
        with pytest.raises(RuntimeError, match="call start"):
            call()
    game.start()
    with pytest.raises(RuntimeError, match="already started"):
        game.start()


def test_no_step_after_the_end():
    game = small_game()
    game.start()
    game.step(Teleport((2, 5)))
    end = game.step(LargeScan())  # covers the treasure at (1, 6)
    assert end[-1] == game.result and game.result.outcome is ev.Outcome.WIN
    assert game.over and game.actions_left == 0
    for call in (lambda: game.step(LargeScan()), lambda: game.check(LargeScan())):
        with pytest.raises(RuntimeError, match="the game is over"):
            call()
    assert game.observe().actions_left == 0  # the final state may still be looked at


def test_a_teleport_is_followed_by_the_same_request():
    game = small_game()
    game.start()
    before = game.observe()
    assert (before.actions_left, before.teleport_used) == (2, False)
    events = game.step(Teleport((3, 1)))
    assert events == [ev.Teleported(1, before.position, (3, 1))]
    after = game.observe()
    assert (after.turn, after.actions_left, after.position, after.teleport_used) == (1, 2, (3, 1), True)
    assert after.news == tuple(events)
    with pytest.raises(IllegalActionError, match="only once"):
        game.step(Teleport((3, 2)))
    game.step(Move(Direction.E, 3))
    assert (game.turn, game.actions_left) == (1, 1)
    turn_two = game.step(Move(Direction.W, 3))
    assert (game.turn, game.actions_left) == (2, 2) and isinstance(turn_two[1], ev.TurnStarted)


def test_without_news_the_game_is_the_same():
    with_news, without = small_game(), small_game(keep_news=False)
    script = [Teleport((3, 1)), Move(Direction.E, 1)] + [Move(Direction.E, 3), Move(Direction.W, 3)] * 3
    assert play(with_news, ScriptedAgent(script)) == play(without, ScriptedAgent(script))
    assert without.observe().news == ()


class Crashing:
    def __init__(self, where: str):
        self.where = where

    def reset(self, seed):
        if self.where == "reset":
            raise KeyError("no seed")

    def act(self, obs):
        if self.where == "act":
            raise ZeroDivisionError("boom")


@pytest.mark.parametrize("where, turn, message", [
    ("reset", 0, "the agent raised KeyError: 'no seed'"),
    ("act", 1, "the agent raised ZeroDivisionError: boom"),
])
def test_play_agent_turns_the_agents_exception_into_its_failure(where, turn, message):
    with pytest.raises(AgentCrashError) as info:
        play(small_game(), Crashing(where))
    assert (info.value.turn, info.value.message) == (turn, message)
    assert type(info.value.__cause__) is (KeyError if where == "reset" else ZeroDivisionError)


# -- the loop it replaced -----------------------------------------------------
# The engine's play loop as it was before the step API (0.2.0), kept here only as an
# oracle: `Game.play()` asked the agent itself, through generators, one per action.
# It takes the new Game's setup (unchanged, checked by test_game_setup.py) and plays
# with the earlier loop, verbatim but for the agent passed to `play` and the
# observation's snapshots, rebuilt at every action.


class OldLoopGame(Game):
    def _old_say(self, event: Event) -> Event:
        seen = public_view(event, self.hint_truths_public)
        if seen is not None:
            self._news.append(seen)
        return event

    def _old_end(self, outcome: Outcome, reason: EndReason) -> Event:
        self.result = GameEnded(self.turn, outcome, reason)
        return self._old_say(self.result)

    def old_observe(self, actions_left: int) -> Observation:
        isl = self.island
        scanned = self.scanned.copy()
        scanned.setflags(write=False)
        news, self._news = tuple(self._news), []
        free = self.turn >= isl.free_turn
        return make_observation(
            island=self.public_island, turn=self.turn, actions_left=actions_left, position=self.position,
            teleport_used=self.teleport_used, hints=tuple(self.hints),
            verified=types.MappingProxyType(dict(self.verified)), scanned=scanned,
            prison=self.prison if self.turn >= isl.reveal_turn else None,
            pirate=self.pirate if free else None, pirate_free=free, truth_rate=self.truth_rate,
            max_turns=self.max_turns, news=news,
        )

    def play(self, agent) -> Iterator[Event]:
        self.agent = agent
        isl = self.island
        say = self._old_say
        reset = getattr(agent, "reset", None)
        if reset is not None:
            self._call(reset, seeds.agent_seed(self.seed))
        yield say(ev.GameStarted(self.map_name, isl.width, isl.height, self.seed, self.agent_name,
                              self.truth_rate, self.max_turns, self.hint_truths_public, isl.digest))
        yield say(ev.TreasureHidden(self.treasure, self.prison))
        yield say(ev.AgentPlaced(self.position))
        yield say(ev.ScheduleAnnounced(isl.reveal_turn, isl.free_turn))
        for turn in range(1, self.max_turns + 1):
            self.turn = turn
            yield say(ev.TurnStarted(turn))
            if turn == isl.reveal_turn:
                yield say(ev.PrisonRevealed(turn, self.prison))
            if turn == isl.free_turn:
                yield say(ev.PirateFreed(turn))
            yield from self._old_give_hint()
            if turn >= isl.free_turn:
                src = self.pirate
                self.pirate_index = next_stop(self.path, self.pirate_index)
                yield say(ev.PirateMoved(turn, src, self.pirate))
                if self.pirate == self.treasure:
                    yield self._old_end(Outcome.LOSE, EndReason.PIRATE)
                    return
            for used in range(ACTIONS_PER_TURN):
                yield from self._old_agent_action(ACTIONS_PER_TURN - used)
                if self._found:
                    yield self._old_end(Outcome.WIN, EndReason.FOUND)
                    return
        yield self._old_end(Outcome.LOSE, EndReason.TIMEOUT)

    def _old_give_hint(self) -> Iterator[Event]:
        turn = self.turn
        draw = seeds.draws(self.seed, seeds.HINTS, turn)
        truthful = turn == 1 or bool(draw.random() < self.truth_rate)
        ctx = HintContext(turn, self.prison, self.position, turn >= self.island.reveal_turn)
        hint = draw_hint(self.island, self.treasure, ctx, truthful, draw)
        self.hints.append(hint)
        self.truths.append(truthful)
        number = len(self.hints)
        if number == 1:
            self.verified[1] = True
        yield self._old_say(ev.HintGiven(turn, number, hint, truthful))
        yield self._old_say(ev.HintAdded(turn, number, number))

    def _call(self, method, *args):
        try:
            return method(*args)
        except TreasureError:
            raise
        except Exception as exc:
            raise AgentCrashError(self.turn, f"the agent raised {type(exc).__name__}: {exc}") from exc

    def _old_agent_action(self, actions_left: int) -> Iterator[Event]:
        action = self._call(self.agent.act, self.old_observe(actions_left))
        if isinstance(action, Teleport):
            yield from self._old_teleport(action)
            action = self._call(self.agent.act, self.old_observe(actions_left))
            if isinstance(action, Teleport):
                raise self._illegal(action, "the teleport can be used only once a game")
        if isinstance(action, Verify):
            k = action.number
            if not isinstance(k, int) or not 1 <= k <= len(self.hints):
                raise self._illegal(action, f"there is no hint {k}")
            if k in self.verified:
                raise self._illegal(action, f"hint {k} is already verified")
            self.verified[k] = self.truths[k - 1]
            yield self._old_say(ev.HintVerified(self.turn, k, self.truths[k - 1]))
        elif isinstance(action, Move):
            well_formed = isinstance(action.direction, Direction) and isinstance(action.steps, int)
            dst = move_target(self._walkable, self.position, action) if well_formed else None
            if dst is None:
                raise self._illegal(action, "a move must go 1 to 4 tiles over walkable tiles inside the map")
            src, self.position = self.position, dst
            yield self._old_say(ev.AgentMoved(self.turn, action.direction, action.steps, src, dst))
            if action.small:
                yield self._old_scan(SMALL_SCAN_SIZE)
        elif isinstance(action, LargeScan):
            yield self._old_scan(LARGE_SCAN_SIZE)
        else:
            raise self._illegal(action, "not an action")

    def _old_teleport(self, action: Teleport) -> Iterator[Event]:
        if self.teleport_used:
            raise self._illegal(action, "the teleport can be used only once a game")
        try:
            r, c = (int(x) for x in action.target)
        except (TypeError, ValueError):
            raise self._illegal(action, "the teleport target must be a (row, col) pair") from None
        if not (self.island.inside((r, c)) and self.island.walkable[r, c]):
            raise self._illegal(action, "the teleport target must be a walkable tile inside the map")
        src, self.position, self.teleport_used = self.position, (r, c), True
        yield self._old_say(ev.Teleported(self.turn, src, self.position))

    def _old_scan(self, size: int) -> Event:
        self.scanned[scan_square(self.position, size)] = True
        self._found = in_scan(self.position, size, self.treasure)
        return self._old_say(ev.AreaScanned(self.turn, self.position, size, self._found))
