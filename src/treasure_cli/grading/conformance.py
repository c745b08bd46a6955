"""`treasure check-agent`: does an agent keep the contract? (As Gymnasium's `check_env`
tells an environment's author at once what it gets wrong.)

It plays a handful of seeded games (small generated islands by default; the
sizes asked for, and map files, such as a tournament's hidden maps) and
reports whether the agent can be built, takes only legal actions (never
raising), plays the same game twice from one seed, and how long an action
takes on each size, against a budget if one is given.
"""

from __future__ import annotations

import dataclasses
import shlex
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from treasure_cli.agents.registry import check_spec
from treasure_cli.agents.tracebacks import fatal_error
from treasure_cli.errors import ActionOverBudget, AgentError, GameTimeout, TreasureError
from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.atomic import write_text_atomic
from treasure_cli.formats.game_record import format_log
from treasure_cli.formats.map_file import format_map
from treasure_cli.formats.wire import PROTOCOL
from treasure_cli.formats.text import counted, one_line
from treasure_cli.sandbox.process import ActionTimeout
from treasure_cli.play.beliefs import first_excess, miss_message, misses
from treasure_cli.play.games import time_limit
from treasure_cli.sandbox.seat import Seat, resolve_level, seat
from treasure_cli.play.loop import play_agent
from treasure_cli.sandbox.levels import AgentLimits
from treasure_cli.rules import seeds
from treasure_cli.rules.events import AgentNoted, AgentPrinted
from treasure_cli.rules.game import Game
from treasure_cli.rules.hint_draw import HintSet
from treasure_cli.rules.island import Island

SIZES = (10, 16, 24)


@dataclasses.dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


@dataclasses.dataclass(frozen=True)
class Board:
    """One game to check: an island, its seed, and how to name it."""

    island: Island
    seed: int
    where: str  # "game 3 (32x32, seed N)" or "hidden/MAP_01.txt (64x64, seed N)"

    @property
    def size(self) -> str:
        return f"{self.island.width}x{self.island.height}"


class Timed:
    """Wraps an agent and times every act(); past `budget` seconds, stops the game."""

    def __init__(self, agent, times: list[float], budget: float | None = None):
        self.agent, self.times, self.budget = agent, times, budget
        if hasattr(agent, "reset"):
            self.reset = agent.reset
        if hasattr(agent, "explain"):
            self.explain = agent.explain
        if hasattr(agent, "printed"):  # what it printed at each turn (play_agent's `output`)
            self.printed = agent.printed
        if hasattr(agent, "quoted"):  # a program's action as it sent it, for an illegal one's message
            self.quoted = agent.quoted

    def act(self, obs):
        start = time.perf_counter()
        try:
            action = self.agent.act(obs)
        finally:
            took = time.perf_counter() - start
            self.times.append(took)
        if self.budget is not None and took > self.budget:
            raise ActionOverBudget(obs.turn, took)
        return action


def _play(spec: str, island, seed: int, times: list[float], game_timeout: float, level: str,
          limits: AgentLimits, budget: float | None = None, notes: bool = False, hints: HintSet | None = None,
          printed: list[str] | None = None, map_name: str = "map", output: bool = False):
    # The agent plays as in `run`: in its own process where it would there, timed from outside.
    # `printed` gets what the agent printed, whatever the game's end (kept with the record in `run`).
    taken: Seat | None = None
    try:
        with seat(spec, level, limits, None, game_timeout) as taken:
            taken.begin(island.public(), notes=notes)  # as play_game: its fresh process, before its first action's time
            with time_limit(taken.timeout), taken.printing():  # building the agent counts too
                game = Game(island, seed, agent_name=spec, map_name=map_name, hint_truths_public=taken.hint_truths,
                            hints=hints)
                events = list(play_agent(game, Timed(taken.agent, times, budget), notes=notes, output=output))
            taken.game_over(game)
    finally:
        if printed is not None and taken is not None:
            printed.append(taken.output)
    return events, game.result


PRINTED_LINES = 5  # a failed game's report shows the last lines the agent printed


def _with_printed(problem: str, printed: list[str]) -> str:
    """A failed game's line, and the last lines the agent printed in it: a student's debugging
    print() is often what says why (all of it is in `run --json` and the store)."""
    text = "".join(printed)
    fatal = fatal_error(text)
    if fatal is not None:  # a Python host's fatal-error report: the problem says it in one line
        text = fatal[0]
    lines = text.splitlines()
    if not lines:
        return problem
    shown = lines[-PRINTED_LINES:]
    said = "it printed" if len(shown) == len(lines) else f"the last {len(shown)} of {len(lines)} lines it printed"
    return problem + f"\n      {said}:" + "".join(f"\n        {line[:200]}" for line in shown)


def boards(games: int, seed: int, sizes: Sequence[int] = SIZES,
           maps: Sequence[tuple[str, Island]] = ()) -> list[Board]:
    """The games of a check: `games` generated islands over `sizes` in turn, then one game on
    each map (its seed from the map's content, so a map plays the same game wherever it is)."""
    out = []
    for i in range(games):
        size = sizes[i % len(sizes)]
        island = generate_island(size, size, rng=np.random.default_rng(seeds.check_island_seed(seed, i)))
        game_seed = seeds.check_game_seed(seed, i)
        out.append(Board(island, game_seed, f"game {i + 1} ({size}x{size}, seed {game_seed})"))
    for path, island in maps:
        game_seed = seeds.check_map_game_seed(seed, island.digest)
        # one_line: a map's file name is a user's, and `where` begins lines of the report
        out.append(Board(island, game_seed, f"{one_line(path)} ({island.width}x{island.height}, seed {game_seed})"))
    return out


def read_maps(paths: Sequence[str]) -> list[tuple[str, Island]]:
    """The islands of map files to check an agent on; TreasureError naming every one that
    cannot be played (a map's fault is not the agent's)."""
    from treasure_cli.play.bench import playable_map

    found, problems = [], []
    for path in paths:
        got = playable_map(path)
        if isinstance(got, str):
            problems.append(got)
        else:
            found.append((path, got[1]))
    if problems:
        raise TreasureError("these maps cannot be played:\n" + "\n".join(one_line(p) for p in problems))
    return found


def check_agent(agent: str, games: int = 6, seed: int = 0, game_timeout: float = 30.0,
                isolation: str = "auto", limits: AgentLimits | None = None, *,
                sizes: Sequence[int] = SIZES, maps: Sequence[tuple[str, Island]] = (),
                max_action_ms: float | None = None, beliefs: bool = False, hints: HintSet | None = None,
                on_game: Callable[[int, int, str], None] | None = None, keep: Path | None = None,
                complete: bool = False, agent_output: bool = False) -> list[Check]:
    """Run the checks (the pirate giving `hints`' kinds); each Check says whether it passed and
    what was seen. With `beliefs`, the agent's notes are asked for (`Agent.explain`), and a game
    whose declared candidates leave out the treasure's tile fails the "beliefs" check at the
    first turn they do.

    `maps` (from `read_maps`) are played once each after the generated games. With `keep`, each
    game played to the end is written there, its map (MAP_<k>.txt) beside its log (LOG_<k>.txt,
    with the notes under `beliefs`, and with `agent_output` what the agent printed, at its turn),
    for `treasure replay`.
    With `max_action_ms`, a game stops at its first action slower than that, and the
    time check fails. `on_game(done, total, where)` is called before each game. With `complete`
    (and `beliefs`), a "complete beliefs" check compares each note's candidates with the referee's
    exact ones and fails a game at the first turn the agent kept tiles it could have ruled out.
    """
    limits = limits or AgentLimits()
    budget = None if max_action_ms is None else max_action_ms / 1000
    if budget is not None and (limits.action_timeout is None or limits.action_timeout > budget):
        # An agent in a process of its own is stopped at the budget: one that loops must not
        # hold each game for its whole time limit (in this process, only the game's limit can)
        limits = dataclasses.replace(limits, action_timeout=budget)
    taken: Seat | None = None
    try:
        spec = check_spec(agent)
        level = resolve_level(isolation)
        with seat(spec, level, limits, None, game_timeout) as taken:  # loads it, in its own process if need be
            taken.begin()  # a warm host's game process loads it
    except TreasureError as exc:
        return [Check("loads", False, taken.users_paths(str(exc)) if taken is not None else str(exc))]
    if taken.process is None:
        said = f"{one_line(agent)} builds an agent with act(obs)"
    else:
        said = (f"{one_line(agent)} starts in {'a sandbox' if taken.where == 'sandbox' else 'a process of its own'} "
                f"in {taken.process.start_seconds:.2f} s and speaks protocol {PROTOCOL}")
    checks = [Check("loads", True, said)]
    times: dict[str, list[float]] = {}   # size -> every action's seconds
    over: list[tuple[float, str, int]] = []  # (seconds, where, turn) of each game stopped over the budget, in order
    outcomes: list[str] = []
    problems: list[str] = []
    differs: list[str] = []
    wrong: list[str] = []
    loose: list[str] = []  # --complete: the first note of a game keeping tiles the facts rule out
    noted = 0
    todo = boards(games, seed, sizes, maps)
    for done, board in enumerate(todo):
        if on_game is not None:
            on_game(done, len(todo), board.where)
        where = board.where
        printed: list[str] = []
        try:
            name = f"MAP_{done + 1:02d}.txt"
            first, end = _play(spec, board.island, board.seed, times.setdefault(board.size, []), game_timeout,
                               level, limits, budget, beliefs, hints, printed, name, agent_output and keep is not None)
            printed.clear()  # the second play's failure, if any, is the one reported
            second, _ = _play(spec, board.island, board.seed, [], game_timeout, level, limits, None, beliefs, hints,
                              printed, name)
        except ActionOverBudget as exc:
            over.append((exc.seconds, where, exc.turn))
            continue
        except ActionTimeout as exc:
            if budget is not None and limits.action_timeout == budget:  # stopped at the budget
                over.append((budget, where, exc.turn))
            else:
                problems.append(_with_printed(f"{where}: {exc}", printed))
            continue
        except AgentError as exc:
            problems.append(_with_printed(f"{where}: {exc}", printed))
            continue
        except GameTimeout:
            problems.append(_with_printed(f"{where}: ran past {game_timeout:g} s", printed))
            continue
        outcomes.append(end.outcome.value)
        replay = ""
        if keep is not None:
            write_text_atomic(keep / name, format_map(board.island))
            write_text_atomic(keep / f"LOG_{done + 1:02d}.txt", format_log(first))
            replay = f"; replay it: treasure replay {shlex.quote(str(keep / f'LOG_{done + 1:02d}.txt'))}"
        if beliefs:
            noted += any(isinstance(e, AgentNoted) and e.tiles is not None and e.tiles.candidates for e in first)
            missed = misses(first)
            if missed:
                wrong.append(f"{where}: {miss_message(missed[0])}"
                             + (replay or " (--keep-logs DIR writes the game, to replay it)"))
            excess = first_excess(board.island, first) if complete else None
            if excess is not None:
                loose.append(f"{where}: {excess}" + (replay or " (--keep-logs DIR writes the game, to replay it)"))
        # What it printed is kept for its author, not compared: a clock or an address in a print() is no play
        acted = [e for e in first if not isinstance(e, AgentPrinted)]
        if acted != second:
            step = next((k for k, (a, b) in enumerate(zip(acted, second)) if a != b),
                        min(len(acted), len(second)))
            differs.append(f"{where}: the two plays part at event {step + 1}")
    played = len(outcomes)
    stopped = f"; {len(over)} stopped at an action over the budget" if over else ""
    checks.append(Check("legal actions", not problems,
                        f"{played} of {counted(len(todo), 'game')} played to the end ({outcomes.count('WIN')} won){stopped}"
                        + "".join(f"\n    {p}" for p in problems)))
    checks.append(Check("deterministic", played > 0 and not differs,
                        "the same seed gave the same game, event for event" if played and not differs
                        else "no game to compare" if not played else "; ".join(differs)))
    unseen = f"no game played to the end ({len(todo) - played} of {len(todo)} failed or stopped): nothing to check"
    undeclared = (f"the agent declared no candidates in {counted(played, 'game')} (explain() returning "
                  "Note(text, tiles)): nothing to check")
    if beliefs and not played:
        checks.append(Check("beliefs", False, unseen))
    elif beliefs and not noted:  # games, but nothing in them to check: no "ok"
        checks.append(Check("beliefs", False, undeclared))
        if complete:
            checks.append(Check("complete beliefs", False, undeclared))
    elif beliefs:
        said = f"in {noted} of {counted(played, 'game')} the agent declared its candidates, and they always held the treasure"
        if wrong:
            said = f"in {len(wrong)} of {counted(played, 'game')} its candidates left out the treasure" + "".join(
                f"\n    {w}" for w in wrong)
        checks.append(Check("beliefs", not wrong, said))
        if complete:
            checks.append(Check("complete beliefs", not loose,
                                f"in {noted} of {counted(played, 'game')} the agent declared its candidates, and they "
                                "were never more than the facts allow" if not loose else
                                f"in {len(loose)} of {counted(played, 'game')} its candidates kept tiles it could "
                                "have ruled out" + "".join(f"\n    {w}" for w in loose)))
    timed = _time_check(times, over, max_action_ms) if any(times.values()) else None
    if not played and not over and (timed is None or timed.ok):
        # The actions timed were those of failed games: an "ok" on them would be no verdict
        # (one over the budget still is one).
        checks.append(Check("time per action", False, unseen))
    elif timed is not None:
        checks.append(timed)
    return checks


def _time_check(times: dict[str, list[float]], over: list[tuple[float, str, int]],
                max_action_ms: float | None) -> Check:
    """The slowest action and the median, over all and per size; against the budget if any."""
    every = sorted(1000 * t for ts in times.values() for t in ts)
    summary = f"median {statistics.median(every):.3f} ms, slowest {every[-1]:.3f} ms over {len(every)} actions"
    if max_action_ms is not None:
        if over:
            _, where, turn = over[0]
            summary += (f"; {len(over)} game{'s' if len(over) > 1 else ''} stopped at an action over the budget "
                        f"of {max_action_ms:g} ms, the first in {where}, turn {turn}")
        elif every[-1] > max_action_ms:  # cut off by the game's time limit (an agent in this process)
            summary += f"; over the budget of {max_action_ms:g} ms"
        else:
            summary += f", within the budget of {max_action_ms:g} ms"
    lines = [summary]
    if len(times) > 1:
        for size in sorted(times, key=_area):
            ms = sorted(1000 * t for t in times[size])
            if ms:
                lines.append(f"    {size}: median {statistics.median(ms):.3f} ms, slowest {ms[-1]:.3f} ms "
                             f"over {len(ms)} action{'s' if len(ms) != 1 else ''}")
    within = max_action_ms is None or (not over and every[-1] <= max_action_ms)
    return Check("time per action", within, "\n".join(lines))


def _area(size: str) -> tuple[int, str]:
    w, _, h = size.partition("x")
    return int(w) * int(h), size
