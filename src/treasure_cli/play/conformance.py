"""`treasure check-agent`: does an agent keep the contract? (As Gymnasium's `check_env`
tells an environment's author at once what it gets wrong.)

It plays a handful of small seeded games and reports whether the agent can be
built, takes only legal actions (never raising), plays the same game twice
from one seed, and how long an action takes.
"""

from __future__ import annotations

import dataclasses
import statistics
import time

import numpy as np

from treasure_cli.agents.registry import check_spec
from treasure_cli.errors import AgentError, GameTimeout, TreasureError
from treasure_cli.formats.generator import generate_island
from treasure_cli.formats.wire import PROTOCOL
from treasure_cli.play.agent_process import ProcessAgent
from treasure_cli.play.beliefs import miss_message, misses
from treasure_cli.play.games import Seat, resolve_level, time_limit
from treasure_cli.play.loop import play_agent
from treasure_cli.play.sandbox import AgentLimits
from treasure_cli.rules import seeds
from treasure_cli.rules.events import AgentNoted
from treasure_cli.rules.game import Game
from treasure_cli.rules.hint_draw import HintSet

SIZES = (10, 16, 24)


@dataclasses.dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


class Timed:
    """Wraps an agent and times every act()."""

    def __init__(self, agent, times: list[float]):
        self.agent, self.times = agent, times
        if hasattr(agent, "reset"):
            self.reset = agent.reset

        if hasattr(agent, "explain"):
            self.explain = agent.explain

    def act(self, obs):
        start = time.perf_counter()
        try:
            return self.agent.act(obs)
        finally:
            self.times.append(time.perf_counter() - start)


def _play(spec: str, island, seed: int, times: list[float], game_timeout: float, level: str,
          limits: AgentLimits, notes: bool = False, hints: HintSet | None = None):
    # The agent plays as in `run`: in its own process where it would there, timed from outside.
    seat = Seat(spec, level, limits, None, game_timeout)
    if notes and isinstance(seat.agent, ProcessAgent):
        seat.agent.notes = True
    try:
        with time_limit(seat.timeout), seat.printing():  # building the agent counts too
            game = Game(island, seed, agent_name=spec, hint_truths_public=seat.hint_truths, hints=hints)
            events = list(play_agent(game, Timed(seat.agent, times), notes=notes))
        seat.finish(game)
    except BaseException:
        seat.abandon()
        raise
    return events, game.result


def check_agent(agent: str, games: int = 6, seed: int = 0, game_timeout: float = 30.0,
                isolation: str = "auto", limits: AgentLimits | None = None, beliefs: bool = False,
                hints: HintSet | None = None) -> list[Check]:
    """Run the checks (the pirate giving `hints`' kinds); each Check says whether it passed and
    what was seen. With `beliefs`, the agent's notes are asked for (`Agent.explain`), and a game
    whose declared candidates leave out the treasure's tile fails the "beliefs" check at the
    first turn they do."""
    limits = limits or AgentLimits()
    try:
        spec = check_spec(agent)
        level = resolve_level(isolation)
        seat = Seat(spec, level, limits, None, game_timeout)  # loads it, in its own process if need be
        seat.put_back()
    except TreasureError as exc:
        return [Check("loads", False, str(exc))]
    if seat.process is None:
        said = f"{agent} builds an agent with act(obs)"
    else:
        said = (f"{agent} starts in {'a sandbox' if seat.where == 'sandbox' else 'a process of its own'} "
                f"in {seat.process.start_seconds:.2f} s and speaks protocol {PROTOCOL}")
    checks = [Check("loads", True, said)]
    times: list[float] = []
    outcomes: list[str] = []
    problems: list[str] = []
    differs: list[str] = []
    wrong: list[str] = []
    noted = 0
    for i in range(games):
        size = SIZES[i % len(SIZES)]
        island = generate_island(size, size, rng=np.random.default_rng(seeds.derive("check-agent", seed, i)))
        game_seed = seeds.derive("check-agent-game", seed, i)
        where = f"game {i + 1} ({size}x{size}, seed {game_seed})"
        try:
            first, end = _play(spec, island, game_seed, times, game_timeout, level, limits, beliefs, hints)
            second, _ = _play(spec, island, game_seed, [], game_timeout, level, limits, beliefs, hints)
        except AgentError as exc:
            problems.append(f"{where}: {exc}")
            continue
        except GameTimeout:
            problems.append(f"{where}: ran past {game_timeout:g} s")
            continue
        outcomes.append(end.outcome.value)
        if beliefs:
            noted += any(isinstance(e, AgentNoted) and e.tiles is not None and e.tiles.candidates for e in first)
            missed = misses(first)
            if missed:
                wrong.append(f"{where}: {miss_message(missed[0])}")
        if first != second:
            step = next((k for k, (a, b) in enumerate(zip(first, second)) if a != b),
                        min(len(first), len(second)))
            differs.append(f"{where}: the two plays part at event {step + 1}")
    played = len(outcomes)
    checks.append(Check("legal actions", not problems,
                        f"{played} of {games} games played to the end ({outcomes.count('WIN')} won)"
                        + "".join(f"\n    {p}" for p in problems)))
    checks.append(Check("deterministic", played > 0 and not differs,
                        "the same seed gave the same game, event for event" if played and not differs
                        else "no game to compare" if not played else "; ".join(differs)))
    if beliefs:
        said = (f"in {noted} of {played} games the agent declared its candidates, and they always held the treasure"
                if noted else "the agent declared no candidates (explain() returning Note(text, tiles))")
        if wrong:
            said = f"in {len(wrong)} of {played} games its candidates left out the treasure" + "".join(
                f"\n    {w}" for w in wrong)
        checks.append(Check("beliefs", not wrong, said))
    if times:
        ms = sorted(1000 * t for t in times)
        checks.append(Check("time per action", True,
                            f"median {statistics.median(ms):.3f} ms, slowest {ms[-1]:.3f} ms over {len(ms)} actions"))
    return checks
