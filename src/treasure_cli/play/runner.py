"""Batch play: one game per map file, logs written atomically, results summarised.

Workers are pure: each plays one map and returns its summary and log text;
the parent writes the files, so a crash never leaves half a log and the
output is the same whatever the number of processes.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from treasure_cli.rules import seeds
from treasure_cli.agents import agent_spec
from treasure_cli.errors import TreasureError
from treasure_cli.formats.atomic import write_text_atomic
from treasure_cli.rules.game import Game
from treasure_cli.formats.game_record import format_log
from treasure_cli.rules.island import Island
from treasure_cli.formats.map_file import read_map


@dataclasses.dataclass(frozen=True)
class RunOptions:
    agent: str = "logic"
    base_seed: int = 0
    truth_rate: float = 0.5
    max_turns: int | None = None


@dataclasses.dataclass(frozen=True)
class MapResult:
    map_path: str
    log_path: str | None
    seed: int
    width: int = 0
    height: int = 0
    outcome: str = ""     # WIN / LOSE, empty when the map failed
    reason: str = ""      # found / pirate / timeout
    turns: int = 0
    seconds: float = 0.0
    error: str | None = None
    warnings: tuple[str, ...] = ()


def log_name(map_path: Path) -> str:
    """LOG_<id>.txt for MAP_<id>.txt, LOG_<stem>.txt for any other name."""
    m = re.fullmatch(r"MAP_?(.+)", map_path.stem, flags=re.IGNORECASE)
    return f"LOG_{m.group(1) if m else map_path.stem}.txt"


def map_label(map_path: Path) -> str:
    """The map path as it is recorded in a log: as given, with forward slashes."""
    return os.path.normpath(str(map_path)).replace(os.sep, "/")


def build_game(island: Island, agent: str, seed: int, *, map_name: str = "map",
               truth_rate: float = 0.5, max_turns: int | None = None) -> Game:
    """The one way a game is set up (run, bench, live view): agent seeded from the game's seed."""
    spec = agent_spec(agent)
    return Game(island, spec.factory(seeds.stream(seed, seeds.AGENT)), seed, agent_name=agent,
                map_name=map_name, truth_rate=truth_rate, max_turns=max_turns,
                hint_truths_public=spec.sees_hint_truths)


def play_map(map_path: Path, options: RunOptions) -> tuple[MapResult, str | None]:
    """Play one map; returns its result and its log text (None if the map is invalid)."""
    seed = seeds.map_seed(options.base_seed, map_path.name)
    warnings: list[str] = []
    try:
        island = read_map(map_path, warnings)
    except TreasureError as exc:
        return MapResult(str(map_path), None, seed, error=str(exc)), None
    start = time.perf_counter()
    game = build_game(island, options.agent, seed, map_name=map_label(map_path),
                      truth_rate=options.truth_rate, max_turns=options.max_turns)
    try:
        events = game.run()
    except TreasureError as exc:  # an agent's illegal action: report it, go on with the batch
        return MapResult(str(map_path), None, seed, island.width, island.height, error=str(exc)), None
    seconds = time.perf_counter() - start
    result = game.result
    assert result is not None
    return MapResult(
        str(map_path), None, seed, island.width, island.height, result.outcome.value,
        result.reason.value, result.turns, seconds, None, tuple(warnings),
    ), format_log(events)


def _play_star(args: tuple[Path, RunOptions]) -> tuple[MapResult, str | None]:
    return play_map(*args)


def run_maps(
    maps: list[Path], out_dir: Path, options: RunOptions, jobs: int = 1,
    on_result: Callable[[MapResult], None] | None = None,
) -> list[MapResult]:
    """Play every map, write OUTPUT/LOG_<id>.txt for each valid one, return results in input order."""
    out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for result, text in _results(maps, options, jobs):
        if text is not None:
            target = out_dir / log_name(Path(result.map_path))
            write_text_atomic(target, text)
            result = dataclasses.replace(result, log_path=str(target))
        if on_result is not None:
            on_result(result)
        results.append(result)
    return results


def _results(maps: list[Path], options: RunOptions, jobs: int) -> Iterator[tuple[MapResult, str | None]]:
    if jobs <= 1 or len(maps) <= 1:
        for path in maps:
            yield play_map(path, options)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(_play_star, [(p, options) for p in maps])
