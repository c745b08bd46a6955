"""`treasure bench`: compare agents over many seeded games."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import click

from treasure_cli.agents.registry import SPEC_HELP
from treasure_cli.errors import TreasureError
from treasure_cli.formats.text import counted, printable
from treasure_cli.cli.options import (
    GAME_TIMEOUT, MAPS_HELP, RECURSIVE, agent_spec, map_names, finite, hint_options, isolation_options,
    isolation_settings, map_files, split_csv,
)
from treasure_cli.cli.results import leaderboard, play_tournament, show_bench


@click.command()
@click.option("--agents", default="logic,greedy,random", show_default=True, metavar="A,B,...",
              help=f"Agents to compare, comma-separated; each is {SPEC_HELP}.")
@click.option("--sizes", metavar="N,N,...", help="Square island sizes to generate [default: 16,32,64].")
@click.option("--maps", "maps_path", metavar="MAPS",
              help=f"Play these map files instead of generated islands: {MAPS_HELP}.")
@RECURSIVE
@click.option("--games", default=100, show_default=True, type=click.IntRange(min=1), metavar="N",
              help="Games per size (per map file with --maps).")
@click.option("--seed", type=int, metavar="S",
              help="Base seed; island i of size s and its game seed derive from (S, s, i) [default: 1].")
@click.option("--truth-rate", default=0.5, show_default=True, type=click.FloatRange(0.0, 1.0), callback=finite,
              help="Chance that a hint (after the first) is true.")
@click.option("--reveal-turn", type=click.IntRange(min=1), metavar="R",
              help="Generated islands reveal the prison at turn R [default: random 2-4].")
@click.option("--free-turn", type=click.IntRange(min=1), metavar="F",
              help="Generated islands free the pirate at turn F (small F: harder) [default: r + (W+H)/8].")
@click.option("--style", type=click.Choice(["island", "maze"]), default="island", show_default=True,
              help="Generated islands' style (see `treasure generate --help`).")
@click.option("--max-turns", type=click.IntRange(min=1), help="Turn limit (default 4·(W+H)).")
@GAME_TIMEOUT
@click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N",
              help="Processes playing in parallel [default: number of CPUs]; results do not depend on it.")
@click.option("--json", "as_json", is_flag=True, help="Print every statistic and every game as JSON.")
@click.option("--no-timing", is_flag=True, help="Leave out the timing columns (for diffs and tests).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), metavar="REPORT.html",
              help="Also write a page of charts and the table (needs: pip install 'treasure-cli[plot]').")
@click.option("--from-json", "from_json", type=click.Path(exists=True, dir_okay=False), metavar="BENCH.json",
              help="Play nothing: chart a run saved with --json (give --html).")
@click.option("--keep-logs", "keep_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write the log of each game --keep chooses into DIR as <game id>.txt (a failed game's: its "
                   "turns up to the failure, then what failed, as `run` writes it; one whose agent never "
                   "started: <game id>.failed.txt, why).")
@click.option("--keep", type=click.Choice(["lost", "failed", "all"]), default="lost", show_default=True,
              help="With --keep-logs: the games not won, the failed ones, or all.")
@click.option("--versus", metavar="AGENT",
              help="With --keep-logs: list the games AGENT won and another agent lost, or lost and another won, "
                   "keep both logs of each and print the command that replays them side by side.")
@click.option("--notes", is_flag=True, help="With --keep-logs: the agents' notes (their explain()) in the logs kept.")
@click.option("--agent-output", is_flag=True,
              help="With --keep-logs: what the agents printed (stdout and stderr) in the logs kept, with the turn "
                   "it came in, as `run --agent-output` writes it.")
# `bench --db` before `treasure tournament` existed: still played, with a pointer (hidden from the help).
@click.option("--db", "db_path", type=click.Path(dir_okay=False), hidden=True)
@click.option("--report", is_flag=True, hidden=True)
@click.option("--all-versions", is_flag=True, hidden=True)
@click.option("--scheduler", hidden=True)
@isolation_options
@hint_options
def bench(agents: str, sizes: str | None, maps_path: str | None, recursive: bool, games: int, seed: int | None,
          truth_rate: float, reveal_turn: int | None, free_turn: int | None, style: str, max_turns: int | None,
          game_timeout: float | None, jobs: int | None, as_json: bool, no_timing: bool, html_path: str | None = None,
          from_json: str | None = None, keep_dir: str | None = None, keep: str = "lost", versus: str | None = None,
          notes: bool = False, agent_output: bool = False, db_path: str | None = None,
          report: bool = False, all_versions: bool = False, scheduler: str | None = None,
          agent_isolation: str = "auto", agent_memory: int = 1 << 30, action_timeout: float | None = None,
          hints=None) -> None:
    """Compare agents over many seeded games; print win rate, turns and time.

    Every agent plays exactly the same islands with the same game seeds, so
    the table differs between runs with one seed only in its timing columns.
    Win % comes with its 95 % Wilson interval; turns are over won games.
    Every game has an id (in --json, in the failures listed, and the name of
    a log kept with --keep-logs). The exit status is 1 if any game failed
    or a map could not be played. A class tournament (a results store,
    resumable, a leaderboard) is `treasure tournament`.

    \b
    Examples:
      treasure bench
      treasure bench --agents logic,greedy --sizes 32,128 --games 500 --seed 7
      treasure bench --agents logic,oracle,greedy --sizes 32,64 --style maze --games 200
      treasure bench --maps input/ --games 20 --json > bench.json
      treasure bench --maps 'maps/**/*.txt' --games 5 --keep-logs lost/ --keep lost
      treasure bench --agents logic,greedy --sizes 16 --games 50 --keep-logs vs/ --versus logic --notes
      treasure bench --sizes 16,32,64 --games 200 --html report.html
      treasure bench --from-json bench.json --html report.html
      treasure bench --agents logic,exec:examples/cpp/build/treasure-agent --sizes 16,32 --games 50
      treasure bench --agents logic --sizes 32,64 --hints examples/hints/kinds.py --hint-weights builtin=0
    """
    if db_path is not None or report or all_versions or scheduler is not None:
        click.echo("warning: `bench --db`, `--report` and `--scheduler` are now `treasure tournament` "
                   "(see treasure tournament --help)", err=True)
    asked = "--versus" if versus is not None else "--notes" if notes else "--agent-output" if agent_output else None
    if asked is not None and keep_dir is None:
        raise click.UsageError(f"{asked} goes with --keep-logs DIR (the logs it keeps)")
    if from_json is not None:
        _bench_report_from(from_json, html_path)
        return
    if report or all_versions:
        if not report:
            raise click.UsageError("--all-versions goes with --report")
        if html_path is not None:
            raise click.UsageError("the leaderboard's pages: treasure tournament --db RESULTS.sqlite --report "
                                   "--maps MAPS --html DIR")
        leaderboard(db_path, all_versions, None if truth_rate == 0.5 else truth_rate, max_turns, game_timeout,
                     as_json, None, None, (None, False))
        return

    from treasure_cli.islands.generator import MAX_SIDE, MIN_SIDE
    from treasure_cli.play.bench import BenchOptions, run_bench, total_games

    names = tuple(agent_spec(name, "--agents") for name in split_csv(agents, "--agents"))
    maps: tuple[str, ...] = ()
    if maps_path is not None:
        if sizes is not None or reveal_turn is not None or free_turn is not None or style != "island":
            raise click.UsageError("--maps plays the given maps: do not combine it with "
                                   "--sizes, --reveal-turn, --free-turn or --style")
        maps = tuple(str(p) for p in map_files([maps_path], recursive, only_maps=True))
        if not maps:
            raise click.ClickException(f"no map files (*.txt) found in {maps_path}")
    elif recursive:
        raise click.UsageError("--recursive goes with --maps")
    size_list = split_csv("16,32,64" if sizes is None else sizes, "--sizes", int)
    if any(not MIN_SIDE <= s <= MAX_SIDE for s in size_list):
        raise click.BadParameter(f"sizes must be between {MIN_SIDE} and {MAX_SIDE}", param_hint="--sizes")
    names = tuple(dict.fromkeys(names))
    if versus is not None:
        versus = agent_spec(versus, "--versus")
        if versus not in names or len(names) < 2:
            raise click.BadParameter(f"{versus!r} must be one of --agents, with another agent to play against",
                                     param_hint="--versus")
    level, limits = isolation_settings(agent_isolation, agent_memory, action_timeout, names)
    options = BenchOptions(agents=names, sizes=size_list, maps=maps, games=games,
                           seed=seed, truth_rate=truth_rate, reveal_turn=reveal_turn, free_turn=free_turn,
                           style=style, max_turns=max_turns, game_timeout=game_timeout, isolation=level, limits=limits,
                           keep=keep if keep_dir is not None else None, hints=hints, versus=versus, notes=notes,
                           agent_output=agent_output)
    # A map is named by its path under --maps (`s16/MAP_01.txt`), in bench's games as in a tournament's.
    named = map_names(maps_path, [Path(m) for m in maps]) if maps_path is not None else None
    if db_path is not None or scheduler is not None:
        if keep_dir is not None:
            raise click.UsageError("--keep-logs goes with a plain bench")
        # A bench compares agents one chooses to run, not a class's grades: side by side, as quick as it goes.
        play_tournament(options, db_path, jobs or os.cpu_count() or 1, scheduler, as_json, no_timing, html_path,
                        map_names=named, apart=False)
        return
    options = dataclasses.replace(options, seed=1 if seed is None else seed)  # reproducible for one's own agents
    with click.progressbar(length=total_games(options), label="benchmarking", file=sys.stderr,
                           hidden=not sys.stderr.isatty()) as bar:
        try:
            result = run_bench(options, jobs=jobs or os.cpu_count() or 1, on_progress=bar.update,
                               on_plan=lambda games: setattr(bar, "length", games),  # maps left out
                               keep_dir=None if keep_dir is None else Path(keep_dir), map_names=named)
        except TreasureError as exc:
            raise click.ClickException(str(exc)) from None
    if keep_dir is not None:
        n = sum(r.log is not None for r in result.records)
        click.echo(f"kept {counted(n, 'game')} in {keep_dir}", err=True)
    show_bench(result, as_json, no_timing, html_path, f"{counted(len(result.records), 'game')} in {result.seconds:.1f} s")


def _bench_report_from(json_path: str, html_path: str | None) -> None:
    """`bench --from-json`: the table of a run saved with --json again, or (--html) its report."""
    import types

    from treasure_cli.view.tables import bench_table
    from treasure_cli.view.report import write_report

    # The file may be anyone's (a student's run, sent): whatever in it is not what --json writes
    # (nesting past the parser's depth, a string for a number) is an Error naming it, not a traceback.
    damaged = (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError)
    try:
        data = json.loads(Path(json_path).read_text(encoding="utf-8"))
        data["games"]  # noqa: B018 - the report needs it
        stats = [types.SimpleNamespace(**s) for s in data["stats"]]
        timed = all(hasattr(s, "median_ms_game") for s in stats)
        table = bench_table(stats, timed)
    except damaged as exc:
        raise click.ClickException(printable(f"{json_path}: not a file written by `treasure bench --json` ({exc})")) \
            from None
    if html_path is None:
        click.echo(table)
        return
    try:
        written = write_report(data, html_path)
    except damaged as exc:
        raise click.ClickException(printable(f"{json_path}: not a file written by `treasure bench --json` ({exc})")) \
            from None
    click.echo(f"wrote {written}")
