"""Benchmark: many seeded games per island size and agent, summarised.

The unit of work is one island: it is generated (or read) once and every
agent plays it with the same game seed, so the agents face exactly the same
islands, pirates, starts and hint truths. Island i of size s gets its seed
from (base seed, s, i) alone, so a game is a pure function of (agent, island
seed, game seed) and the records do not depend on the number of processes or
on which other sizes, agents or games are in the run.

Only the game is timed (its setup and play), never the island generation;
the island's cached masks are computed before the clock starts so the first
agent to play does not pay for them.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from treasure_cli.formats.atomic import write_text_atomic
from treasure_cli.islands.generator import generate_island
from treasure_cli.islands.style import map_style
from treasure_cli.play.executor import run_tasks
from treasure_cli.play.games import play_game
from treasure_cli.sandbox import tree
from treasure_cli.sandbox.levels import AgentLimits
from treasure_cli.play.records import LOSE, GameRecord, game_id
from treasure_cli.errors import TreasureError
from treasure_cli.rules import seeds
from treasure_cli.rules.game import unplayable
from treasure_cli.rules.island import Island
from treasure_cli.rules.hint_draw import HintSet
from treasure_cli.sandbox.launch import agent_code

Z95 = 1.959963984540054  # two-sided 95 % quantile of the standard normal


@dataclasses.dataclass(frozen=True)
class BenchOptions:
    agents: tuple[str, ...] = ("logic", "greedy", "random")
    sizes: tuple[int, ...] = (16, 32, 64)
    maps: tuple[str, ...] = ()  # map files to play instead of generated islands
    games: int = 100            # per size, or per map file
    seed: int | None = 1        # None (bench --db only): the results store's secret base seed
    truth_rate: float = 0.5
    reveal_turn: int | None = None
    free_turn: int | None = None
    style: str = "island"       # generated islands: islands.generator.STYLES
    max_turns: int | None = None
    game_timeout: float | None = None
    isolation: str = "auto"              # where an agent that is not built in plays (sandbox/levels.py)
    limits: AgentLimits = AgentLimits()  # what its process may use
    hints: HintSet | None = None         # the pirate's hint kinds (None: the 15 built-in kinds)
    keep: str | None = None              # which games' logs to keep (KEEP), with run_bench's keep_dir
    versus: str | None = None            # keep both logs of each game it won and another lost, or lost and another won
    notes: bool = False                  # kept logs hold the agents' notes (run --notes)
    agent_output: bool = False           # kept logs hold what the agents printed (run --agent-output)


KEEP = ("lost", "failed", "all")  # lost: every game not won (lost or failed)


def kept(record: GameRecord, keep: str | None) -> bool:
    """Whether `bench --keep-logs DIR --keep KEEP` writes this game."""
    return keep == "all" or (keep == "lost" and not record.won) or (keep == "failed" and record.failed)


@dataclasses.dataclass(frozen=True)
class Task:
    """One island and its game seed; every agent plays it."""

    index: int
    width: int
    height: int
    game_seed: int
    island_seed: int | None = None  # generated islands
    map_path: str | None = None     # map files
    map_name: str | None = None     # a map file's name in the records (its path under --maps); None: its file name


@dataclasses.dataclass(frozen=True)
class Stats:
    agent: str
    size: str
    games: int
    wins: int
    win_rate: float
    win_low: float     # 95 % Wilson interval of the win rate
    win_high: float
    lost_to_pirate: int
    timeouts: int      # lost at the turn limit
    failed: int        # the agent failed (raised, illegal action, time limit): never a loss
    mean_turns_win: float | None    # None when no game was won
    median_turns_win: float | None
    median_ms_game: float
    median_ms_turn: float


@dataclasses.dataclass(frozen=True)
class BenchResult:
    options: BenchOptions
    stats: tuple[Stats, ...]
    records: tuple[GameRecord, ...]
    seconds: float  # wall time of the whole run
    skipped: tuple[str, ...] = ()  # why each map that could not be played was left out


# -- statistics --------------------------------------------------------------
def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion; (0, 1) when there are no games.

    Unlike the normal approximation it stays inside [0, 1] and is honest at
    0 % and 100 %, which small benchmarks hit often.
    """
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    z2 = z * z
    centre = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = z / (1 + z2 / games) * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games))
    # At 0 and n wins one end is exactly 0 or 1; say so instead of 0.9999999.
    low = 0.0 if wins == 0 else max(0.0, centre - half)
    high = 1.0 if wins == games else min(1.0, centre + half)
    return low, high


def summarize(records: Sequence[GameRecord], agents: Sequence[str]) -> list[Stats]:
    """One Stats per (size, agent): sizes by area, agents in the given order.

    With more than one size, rows of size "all" pool every game of an agent
    (a folder of map files of many sizes is summed up in one line each).
    """
    groups: dict[tuple[str, str], list[GameRecord]] = {}
    for r in records:
        groups.setdefault((r.size, r.agent), []).append(r)
    sizes = sorted({r.size for r in records}, key=_size_key)
    out = []
    for size in sizes:
        for agent in agents:
            rs = groups.get((size, agent), [])
            if rs:
                out.append(game_stats(agent, size, rs))
    if len(sizes) > 1:
        for agent in agents:
            rs = [r for r in records if r.agent == agent]
            if rs:
                out.append(game_stats(agent, "all", rs))
    return out


def game_stats(agent: str, size: str, rs: Sequence[GameRecord]) -> Stats:
    """The statistics of one agent's games `rs` (bench's table rows, the leaderboard's standings)."""
    n = len(rs)
    won = [r.turns for r in rs if r.won]
    played = [r for r in rs if not r.failed] or rs  # a failed game's time says nothing
    low, high = wilson_interval(len(won), n)
    return Stats(
        agent=agent, size=size, games=n, wins=len(won), win_rate=len(won) / n, win_low=low, win_high=high,
        lost_to_pirate=sum(r.reason == "pirate" for r in rs),
        timeouts=sum(r.outcome == LOSE and r.reason == "timeout" for r in rs),
        failed=sum(r.failed for r in rs),
        mean_turns_win=statistics.fmean(won) if won else None,
        median_turns_win=float(statistics.median(won)) if won else None,
        median_ms_game=1000.0 * statistics.median(r.seconds for r in played),
        median_ms_turn=1000.0 * statistics.median(r.seconds / max(1, r.turns) for r in played),
    )


def _size_key(label: str) -> tuple[int, int, int]:
    w, h = (int(x) for x in label.split("x"))
    return (w * h, h, w)


# -- the work ----------------------------------------------------------------
def playable_map(path: str) -> tuple[str, Island] | str:
    """A map file's text and island if a game can be played on it, else why not (as `run` says it)."""
    from treasure_cli.formats.map_file import parse_map, read_map_text  # map files only: not on generated islands' start-up

    try:
        text = read_map_text(path)
        island = parse_map(text, path)
    except TreasureError as exc:
        return str(exc)
    problem = unplayable(island)
    return f"{path}: {problem}" if problem is not None else (text, island)


class MapInfo(NamedTuple):
    """What the task list needs of a map file; workers read the map itself (or get `data`)."""

    width: int
    height: int
    digest: str
    data: bytes = b""  # what `read_playable`'s `keep` made of the text (a tournament's packed map)
    style: str = ""    # island | maze, as its terrain shows it (islands/style.py)


def read_playable(paths: Sequence[str], keep: Callable[[str], bytes] | None = None
                  ) -> tuple[dict[str, MapInfo], list[str]]:
    """The map files a game can be played on, and why each other one cannot (as `run` says it).

    Only each map's MapInfo is kept, not its island or text (a folder of big
    maps would not fit in memory), with `keep(text)` if asked. Raises when no
    map at all can be played.
    """
    maps: dict[str, MapInfo] = {}
    skipped: list[str] = []
    for path in paths:
        found = playable_map(path)
        if isinstance(found, str):
            skipped.append(found)
            continue
        text, island = found
        maps[path] = MapInfo(island.width, island.height, island.digest, keep(text) if keep else b"",
                             map_style(island))
    if not maps:
        raise TreasureError("no map could be played:\n" + "\n".join(skipped))
    return maps, skipped


def make_tasks(options: BenchOptions, maps: dict[str, MapInfo] | None = None,
               map_names: dict[str, str] | None = None) -> list[Task]:
    """The islands to play, in record order (size by size, then index; or map by map).

    `maps` holds the island of every map file in `options.maps` (read once by the caller),
    `map_names` the name a map path is recorded under (by default its file name).
    """
    return [task for _, task in sorted(iter_tasks(options, maps, map_names), key=lambda pt: pt[0])]


def iter_tasks(options: BenchOptions, maps: dict[str, MapInfo] | None = None,
               map_names: dict[str, str] | None = None) -> Iterator[tuple[int, Task]]:
    """(position in record order, task), made as they are needed, largest islands first
    so no big one is left running alone at the end."""
    games, seed = options.games, options.seed
    assert seed is not None  # (bench --db sets the store's before making tasks)
    if options.maps:
        assert maps is not None
        groups = [(maps[p].width * maps[p].height, rank, p) for rank, p in enumerate(options.maps)]
        for _, rank, path in sorted(groups, key=lambda g: -g[0]):
            island = maps[path]
            name = (map_names or {}).get(path)
            for i in range(games):
                yield rank * games + i, Task(i, island.width, island.height,
                                             seeds.bench_map_game_seed(seed, island.digest, i), map_path=path,
                                             map_name=name)
        return
    sizes = sorted(set(options.sizes))
    for rank in reversed(range(len(sizes))):
        size = sizes[rank]
        for i in range(games):
            yield rank * games + i, Task(i, size, size, seeds.bench_game_seed(seed, size, i),
                                         island_seed=seeds.bench_island_seed(seed, size, i))


def _play_chunk(chunk: tuple[tuple[int, Task], ...], options: BenchOptions
                ) -> list[tuple[int, list[tuple[GameRecord, str | None]]]]:
    return [(position, play_task(task, options)) for position, task in chunk]


# A worker gets several small islands per submit: one task per 32x32 island
# cost more in pickling and pool round trips than the game itself, and each
# chunk costs the parent ~0.7 ms (submit, pickling, the pool's two threads).
# 64 islands of 32x32 are ~0.2 s of play, still a smooth progress bar.
CHUNK_TILES = 64 * 32 * 32


def chunked(tasks: Iterator[tuple[int, Task]], most: int, count: int | None = None,
            parts: int = 1) -> Iterator[tuple[tuple[int, Task], ...]]:
    """Consecutive tasks grouped up to `most` tasks and about CHUNK_TILES tiles (a big island goes alone).

    With `count` (the number of tasks), a chunk also holds at most 1/`parts` of
    the tasks not yet handed out, so chunks shrink towards the end (guided
    scheduling): few round trips while there is much to do, and the workers
    run out of work together, not one finishing a big chunk alone.
    """
    chunk: list[tuple[int, Task]] = []
    tiles = 0
    limit = most
    given = 0  # tasks handed out in earlier chunks
    for item in tasks:
        area = item[1].width * item[1].height
        if chunk and (len(chunk) >= limit or tiles + area > CHUNK_TILES):
            yield tuple(chunk)
            given += len(chunk)
            chunk, tiles = [], 0
        if not chunk and count is not None:
            limit = max(1, min(most, (count - given) // parts))
        chunk.append(item)
        tiles += area
    if chunk:
        yield tuple(chunk)


@lru_cache(maxsize=8)
def _read(path: str) -> Island:
    # A worker plays many games on one map file: read and warm it once.
    from treasure_cli.formats.map_file import read_map

    return read_map(path).precompute()


def task_island(task: Task, options: BenchOptions) -> Island:
    if task.map_path is not None:
        return _read(task.map_path)
    assert task.island_seed is not None
    return generate_island(
        task.width, task.height, reveal_turn=options.reveal_turn, free_turn=options.free_turn,
        style=options.style, rng=np.random.default_rng(task.island_seed),
    ).precompute()


def play_task(task: Task, options: BenchOptions) -> list[tuple[GameRecord, str | None]]:
    """Every agent plays the task's island with the task's game seed: each game's record, and
    its log text when `options.keep` asks for it (None otherwise). A failed game's log is `run`'s:
    its turns up to the failure, then the line that says what failed (None if it never began)."""
    from treasure_cli.formats.game_record import format_log
    from treasure_cli.formats.hint_plugins import hints_key
    from treasure_cli.play.records import settings_key

    island = task_island(task, options)
    name = (task.map_name or Path(task.map_path).name) if task.map_path is not None else None
    label = name or f"bench-{island.width}x{island.height}-{task.index}"
    # The kinds decide the game, so they are part of its id (as in a tournament's store)
    settings = settings_key(options.truth_rate, options.max_turns, options.game_timeout, hints_key(options.hints))
    played = []
    for agent in options.agents:
        gid = game_id(agent, _code_digest(agent), settings, island.digest, task.index, task.game_seed)
        played.append(play_game(island, agent, task.game_seed, map_name=label, truth_rate=options.truth_rate,
                                max_turns=options.max_turns, game_timeout=options.game_timeout,
                                keep_events=options.keep is not None, isolation=options.isolation,
                                limits=options.limits, hints=options.hints, notes=options.notes,
                                failed_events=True, output=options.agent_output, index=task.index,
                                island_seed=task.island_seed, game_id=gid))
    # Every agent played this island here, so the head-to-head pairs are known without the others.
    paired = versus_agents([r for r, _ in played], options.versus)
    return [(record, format_log(events) if events is not None and (kept(record, options.keep)
                                                                    or record.agent in paired) else None)
            for record, events in played]


def versus_agents(records: Sequence[GameRecord], versus: str | None) -> set[str]:
    """The agents of one island's games that are in a head-to-head pair with `versus` (it won and
    they lost, or the other way round), `versus` among them when there is any; failed games pair with none."""
    if versus is None:
        return set()
    mine = next((r for r in records if r.agent == versus and not r.failed), None)
    if mine is None:
        return set()
    others = {r.agent for r in records if r.agent != versus and not r.failed and r.won != mine.won}
    return others | {versus} if others else set()


@dataclasses.dataclass(frozen=True)
class Versus:
    """One game (an island and its game seed) that one of `mine` (the `--versus` agent's) and
    `other` won and the other lost."""

    mine: GameRecord
    other: GameRecord
    map_file: str | None = None  # a generated island written out for the replay (`with_maps`)


def versus_pairs(records: Sequence[GameRecord], versus: str) -> list[Versus]:
    """Every game where `versus` won and another agent lost, or lost and another won, in record
    order (the records of one island are next to each other, in `--agents` order)."""
    by_game: dict[tuple[str, int, int], list[GameRecord]] = {}
    for r in records:
        by_game.setdefault((r.map, r.index, r.seed), []).append(r)
    out = []
    for group in by_game.values():
        mine = next((r for r in group if r.agent == versus and not r.failed), None)
        if mine is not None:
            out += [Versus(mine, other) for other in group
                    if other.agent != versus and not other.failed and other.won != mine.won]
    return out


def with_maps(pairs: Sequence[Versus], options: BenchOptions, folder: Path) -> list[Versus]:
    """The pairs played on generated islands, with each island written into `folder` so that
    their logs replay (a log names the island `bench-WxH-i`, which is no file). The file is named
    after the island's content too, so a later run with another seed never replaces it."""
    from treasure_cli.formats.map_file import format_map

    written: dict[int, str] = {}
    out = []
    for pair in pairs:
        seed = pair.mine.island_seed
        if seed is None:
            out.append(pair)
            continue
        if seed not in written:
            w, h = (int(x) for x in pair.mine.size.split("x"))
            island = task_island(Task(pair.mine.index, w, h, pair.mine.seed, island_seed=seed), options)
            target = folder / f"{pair.mine.map}-{island.digest[:16]}.txt"
            write_text_atomic(target, format_map(island))
            written[seed] = str(target)
        out.append(dataclasses.replace(pair, map_file=written[seed]))
    return out


@lru_cache(maxsize=64)
def _code_digest(agent: str) -> str:
    """The digest of an agent's code, read once per process (a game id names it)."""
    return agent_code(agent).digest


def keep_game(record: GameRecord, text: str | None, folder: Path) -> GameRecord:
    """Write a kept game into `folder`: `<game id>.txt`, its log (a failed game's up to its
    failure, as `run` writes it); a failed game that never began (its agent did not start) has no
    turns to log, so `<game id>.failed.txt` says why. The record says where."""
    if text is None:
        parts = [record.error or "failed"]
        if record.traceback:
            parts.append(record.traceback)
        if record.output:
            parts.append("the agent printed:\n" + record.output)
        text = "\n\n".join(parts) + "\n"
        target = folder / f"{record.game_id}.failed.txt"
    else:
        target = folder / f"{record.game_id}.txt"
    write_text_atomic(target, text)
    return dataclasses.replace(record, log=str(target))


def run_bench(options: BenchOptions, jobs: int = 1,
              on_progress: Callable[[int], None] | None = None,
              on_plan: Callable[[int], None] | None = None, keep_dir: Path | None = None,
              map_names: dict[str, str] | None = None) -> BenchResult:
    """Play every task; `on_plan(games)` is called once with the number of games to play
    (the maps that cannot be played left out), `on_progress(games)` as games finish.
    With `keep_dir` the games `options.keep` chooses are written there as they finish.
    `map_names` gives a map path the name its games are recorded under (`cli.options.map_names`:
    its path under --maps, as a tournament names it); by default a map is named by its file name."""
    start = time.perf_counter()
    tree.protect(*options.maps, keep_dir)  # out of every agent's copy, even one whose folder holds them
    skipped: list[str] = []
    if keep_dir is not None:
        from treasure_cli.formats.atomic import ensure_folder

        ensure_folder(keep_dir)
    if options.maps:
        # Maps that cannot be played are left out and reported, as `run` does;
        # the sizes let the pool start the largest maps first.
        islands, skipped = read_playable(options.maps)
        options = dataclasses.replace(options, maps=tuple(p for p in options.maps if p in islands))
        tasks = iter_tasks(options, islands, map_names)
    else:
        tasks = iter_tasks(options)
    count = _task_count(options)
    if on_plan is not None:
        on_plan(total_games(options))
    by_task: dict[int, list[GameRecord]] = {}
    if jobs > 1:
        # Chunks of at most 1/(4 * jobs) of the tasks left: each worker gets at least 4.
        parts = 4 * jobs
        chunks = chunked(tasks, max(1, count // parts), count, parts)
        at_least = min(jobs, count)  # chunks to come (a lower bound): caps the workers
    else:
        chunks, at_least = ((task,) for task in tasks), count
    for _, done in run_tasks(_play_chunk, ((c, options) for c in chunks), jobs, count=at_least):
        for position, played in done:
            # A log given beyond --keep's choice is one of a --versus pair.
            by_task[position] = [keep_game(r, text, keep_dir)
                                 if keep_dir is not None and (kept(r, options.keep) or text is not None)
                                 else r for r, text in played]
        if on_progress is not None:
            on_progress(sum(len(played) for _, played in done))  # once a chunk: a bar redraw each
    records = tuple(r for i in range(count) for r in by_task[i])
    return BenchResult(options, tuple(summarize(records, options.agents)), records,
                       time.perf_counter() - start, tuple(skipped))


def _task_count(options: BenchOptions) -> int:
    """Islands to play: one per game index and size (or map file)."""
    return (len(options.maps) if options.maps else len(set(options.sizes))) * options.games


def total_games(options: BenchOptions) -> int:
    return _task_count(options) * len(options.agents)
