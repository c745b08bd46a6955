"""A game's time limit for an agent in this process holds without SIGALRM (Windows has none):
a timer thread then raises GameTimeout in the game's thread (play/games.py)."""

from __future__ import annotations

import signal
import textwrap
import time

import numpy as np
import pytest

from treasure_cli import load_agent
from treasure_cli.errors import GameTimeout
from treasure_cli.islands.generator import generate_island
from treasure_cli.play.games import play_game, time_limit

AGENTS = textwrap.dedent("""
    import time

    from treasure_cli import LargeScan

    class Spins:
        def act(self, obs):
            while True:  # pure Python, never returns
                pass

    class Naps:
        def act(self, obs):
            while True:
                try:
                    time.sleep(0.01)
                except Exception:  # a careless agent: the limit must still stop it
                    pass

    class Busy:
        def act(self, obs):  # 20 s of pure Python, then an answer
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                pass
            return LargeScan()

    class Quick:
        def act(self, obs):
            return LargeScan()
""")


@pytest.fixture(params=["with SIGALRM", "without SIGALRM"])
def alarm(request, monkeypatch):
    if request.param == "without SIGALRM":
        for name in ("SIGALRM", "setitimer"):
            monkeypatch.delattr(signal, name, raising=False)
    return request.param


@pytest.fixture
def agents(tmp_path):
    path = tmp_path / "agents.py"
    path.write_text(AGENTS)
    return path


@pytest.mark.parametrize("cls", ["Spins", "Naps"])
def test_an_agent_that_never_answers_fails_its_game_at_the_limit(alarm, agents, cls):
    island = generate_island(12, 12, rng=np.random.default_rng(1))
    started = time.monotonic()
    record, events = play_game(island, f"{agents}:{cls}", 1, map_name="m", game_timeout=0.3, isolation="none")
    assert time.monotonic() - started < 20  # stopped (at 0.3 s; the bound only says it did not hang)
    assert record.outcome == "failed" and record.reason == "game-timeout", record
    assert events is None


def test_a_game_within_its_limit_is_not_interrupted_afterwards(alarm, agents):
    island = generate_island(12, 12, rng=np.random.default_rng(2))
    record, _ = play_game(island, f"{agents}:Quick", 2, map_name="m", game_timeout=0.3, isolation="none")
    assert record.outcome in ("WIN", "LOSE")
    time.sleep(0.5)  # past the limit: a timer left armed would raise here


def test_the_limit_raises_game_timeout_in_a_loop_without_sigalrm(monkeypatch, agents):
    monkeypatch.delattr(signal, "SIGALRM", raising=False)  # already gone in the spawn_only session
    # The loop is the agent file's, as in a game: code that pytest has not rewritten. (On Python
    # 3.13.0 the timeout raised inside a loop of this rewritten test module escaped even an
    # `except BaseException` around it; the same loop in a plain module is stopped as it should.)
    busy = load_agent(f"{agents}:Busy").build()
    started = time.monotonic()
    with pytest.raises(GameTimeout), time_limit(0.1):
        busy.act(None)
    assert time.monotonic() - started < 20  # stopped at the limit, not after the loop's 20 s
