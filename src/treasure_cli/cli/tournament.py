"""`treasure tournament`: play a class's agents into a results store, and its leaderboard."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from treasure_cli.agents.registry import SPEC_HELP
from treasure_cli.formats.text import one_line
from treasure_cli.cli.options import (
    GAME_TIMEOUT, KEEP_APART, MAPS_HELP, MAPS_RECURSIVE, SCHEDULER, agent_spec, finite, hint_options, intake_caps_options,
    isolation_options, isolation_settings, map_files, map_names, set_intake_caps, split_csv,
)
from treasure_cli.cli.results import leaderboard, play_tournament

if TYPE_CHECKING:
    from treasure_cli.play.bench import MapInfo


# ---------------------------------------------------------------- tournament
# (the games: grading/tournament.py and grading/store.py; the submissions: grading/submissions.py;
#  the leaderboard's pages: view/leaderboard.py)
@click.command()
@click.argument("submissions", nargs=-1, type=click.Path())
@click.option("--with", "extra", metavar="A,B,...",
              help=f"More agents to play, comma-separated (the built-ins, e.g. logic,greedy); each is {SPEC_HELP}.")
@click.option("--maps", "maps_path", metavar="MAPS", help=f"The maps to play: {MAPS_HELP}.")
@MAPS_RECURSIVE
@click.option("--games", default=5, show_default=True, type=click.IntRange(min=1), metavar="N",
              help="Games per map file and agent.")
@click.option("--db", "db_path", required=True, type=click.Path(dir_okay=False), metavar="RESULTS.sqlite",
              help="The results store: every finished game is recorded here; a rerun plays only the games "
                   "it does not hold yet.")
@click.option("--seed", type=int, metavar="S",
              help="A known base seed instead of the store's own secret one (not for grading: an agent that "
                   "knows it can recompute each game's hidden draws).")
@click.option("--truth-rate", type=click.FloatRange(0.0, 1.0), callback=finite,
              help="Chance that a hint (after the first) is true [default: 0.5; with --report: the store's].")
@click.option("--max-turns", type=click.IntRange(min=1), help="Turn limit (default 4·(W+H)).")
@GAME_TIMEOUT
@click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N",
              help="Processes playing in parallel [default: number of CPUs]; results do not depend on it.")
@SCHEDULER
@KEEP_APART
@click.option("--json", "as_json", is_flag=True, help="Print every statistic and every game (or the ranking) as JSON.")
@click.option("--no-timing", is_flag=True, help="Leave out the timing columns (for diffs and tests).")
@click.option("--report", is_flag=True,
              help="Play nothing: rank the agents of --db by wins, then turns to a win, with paired sign tests (a table; "
                   "--json, --html DIR, --csv FILE).")
@click.option("--all-versions", is_flag=True,
              help="With --report: one row per version of an agent's code, not only its latest.")
@click.option("--html", "html_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="With --report: write the leaderboard into DIR/teacher (everything: a page per agent, a replay "
                   "page per game, wins included; needs --maps to replay them) and DIR/public (to publish: "
                   "ranks, verdicts, win rates, and only the games of --public-maps).")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), metavar="FILE.csv",
              help="With --report: write the gradebook (one row per student) as CSV.")
@click.option("--versus", metavar="AGENT",
              help="With --report: list the games AGENT (a student's name or an agent) won and another lost, "
                   "or lost and another won, each with the command that shows both side by side.")
@click.option("--roster", "roster_path", type=click.Path(dir_okay=False), metavar="FILE.csv",
              help="A CSV of folder, student id, display name: groups get their display names; folders the "
                   "roster does not know and its entries with no folder are listed as warnings.")
@click.option("--dry-run", is_flag=True,
              help="Play nothing: list every group found (language, entry, files, size), every group left out "
                   "and why, the number of games to play and an estimate of the time (from the store's history "
                   "of the agents, else a default per map size).")
@click.option("--public-maps", metavar="GLOB",
              help="With --report --html: the maps whose games may be published (a folder or a quoted glob); "
                   "their games' pages go into DIR/public/ too, and the store remembers them. Every other map "
                   "is private: DIR/public/ holds nothing of it.")
@click.option("--include-secret-seed", is_flag=True,
              help="With --json: put the store's secret base seed in the JSON (left out by default: the JSON "
                   "may be published, and an agent that knows the seed can recompute the games).")
@isolation_options
@hint_options
@intake_caps_options
def tournament(submissions: tuple[str, ...], extra: str | None, maps_path: str | None, recursive: bool, games: int,
               db_path: str, seed: int | None, truth_rate: float | None, max_turns: int | None,
               game_timeout: float | None, jobs: int | None, scheduler: str | None, as_json: bool, no_timing: bool,
               report: bool, all_versions: bool, html_dir: str | None, csv_path: str | None,
               versus: str | None = None, agent_isolation: str = "auto", agent_memory: int = 1 << 30,
               action_timeout: float | None = None, hints=None, include_secret_seed: bool = False,
               public_maps: str | None = None, roster_path: str | None = None, dry_run: bool = False,
               max_group_files: int = 2000, max_group_size: int = 50 << 20, max_source_size: int = 2 << 20,
               keep_apart: bool = True) -> None:
    """Play a class's submissions on the hidden maps into a results store, then rank them.

    SUBMISSIONS is a class's folder (one entry per group) or the groups
    themselves: a group's folder, where its agent is found at any depth (an
    agent.toml manifest, else the one Python file with an agent class, else
    the one executable program), a .zip or .tar.gz of one (unpacked safely),
    a Python file with one agent class, or a program. Each group is named
    after its folder, archive or file (see docs/grading.md). Agents that are not built in play in a
    sandbox where bubblewrap runs (see --agent-isolation). The games are
    drawn from the store's own secret base seed; the same command again
    after a crash or Ctrl-C plays only the games the store does not hold.
    A folder of maps is searched with its subfolders (one per size, say),
    and a map is named by its path under it (`s48/MAP_01.txt`).
    --report ranks the agents; every game has an id, and `treasure replay
    --db RESULTS.sqlite GAME_ID --maps MAPS` plays it again. Every
    submission has a row in every output, those left out included, with
    its verdict. The maps are private: --html DIR writes DIR/public/, the
    pages to publish, with the games of --public-maps only. A store keeps
    the hint kinds of its first run (--hints, --hint-weights; by default the
    15 built-in kinds) and refuses a run with others; replaying its games
    (--report --html, replay --db) takes the same --hints files. The exit
    status is 1 if any game failed.

    \b
    Examples:
      treasure tournament students/ --with logic,greedy --maps hidden/ --db results.sqlite
      treasure tournament students/ann.py students/bob/ --maps 'hidden/**/*.txt' --games 3 --db results.sqlite
      treasure tournament students/ --maps hidden/ --db results.sqlite --scheduler tcp://10.0.0.5:8786
      treasure tournament class/ --maps practice/ --db practice.sqlite --side-by-side
      treasure tournament --db results.sqlite --report
      treasure tournament --db results.sqlite --report --maps hidden/ --html leaderboard/ --csv grades.csv
      treasure tournament --db results.sqlite --report --maps hidden/ --html leaderboard/ --public-maps 'hidden/MAP_0[12].txt'
      treasure tournament students/ --maps hidden/ --db results.sqlite --hints kinds.py --hint-weights builtin=0
      treasure tournament --db results.sqlite --report --versus ann --maps hidden/
      treasure tournament class/ --maps hidden/ --db results.sqlite --roster roster.csv --dry-run
    """
    if report:
        if submissions or extra:
            raise click.UsageError("--report plays nothing: leave out the submissions and --with")
        leaderboard(db_path, all_versions, truth_rate, max_turns, game_timeout, as_json, html_dir, csv_path,
                     (maps_path, recursive), agent_isolation, agent_memory, action_timeout, versus,
                     include_secret_seed, public_maps)
        return
    if all_versions or html_dir is not None or csv_path is not None:
        raise click.UsageError("--all-versions, --html and --csv go with --report")
    if versus is not None:
        raise click.UsageError("--versus goes with --report")
    if public_maps is not None:
        raise click.UsageError("--public-maps goes with --report --html")
    from treasure_cli.errors import AgentLoadError
    from treasure_cli.play.bench import BenchOptions
    from treasure_cli.grading.submissions import find_submissions

    set_intake_caps(max_group_files, max_group_size, max_source_size)
    try:
        found, left_out = find_submissions(list(submissions))
    except AgentLoadError as exc:
        raise click.UsageError(str(exc)) from None
    if roster_path is not None:
        from treasure_cli.grading.submissions import Roster

        found, left_out, warnings = Roster.read(roster_path).apply(found, left_out)
        for warning in warnings:
            click.echo(one_line(f"warning: {warning}"), err=True)
    extras = [agent_spec(a, "--with") for a in (split_csv(extra, "--with") if extra else ())]
    # A group (or a roster's name for it) never takes the name of an agent of --with or a built-in: see `apart`.
    from treasure_cli.agents.registry import agent_names
    from treasure_cli.grading.submissions import apart

    found, left_out = apart(found, left_out, set(extras) | set(agent_names()))
    from treasure_cli.grading.submissions import dry_run_lines
    from treasure_cli.grading.verdicts import intake_verdicts, record_intake

    verdicts = intake_verdicts(list(submissions), left_out)
    # the roster's ids, kept for the teacher's gradebook (grades.csv): never in what may be published
    ids = {s.name: s.student_id for s in found if s.student_id}
    ids.update({x.name: x.student_id for x in left_out if x.student_id})
    if not dry_run:
        from treasure_cli.grading.submissions import requirement_notes

        for why in left_out:
            click.echo(one_line(f"left out: {why}"), err=True)
        for note in requirement_notes(found):
            click.echo(one_line(f"warning: {note}"), err=True)
    specs = [s.spec for s in found] + extras
    if not specs and left_out:
        # Every group was left out: each keeps its row (the dry run's lines, the store's verdicts for
        # --report and its CSV), and the command says so rather than asking for submissions.
        if dry_run:
            for line in dry_run_lines(found, left_out, 0, 0, games):
                click.echo(one_line(line))
        else:
            record_intake(db_path, [], verdicts, ids)
        raise click.ClickException(f"every group was left out ({len(left_out)}): nothing to play"
                                   + ("" if dry_run else f"; their verdicts are kept in {db_path} "
                                      "(--report --csv lists them)"))
    if not specs:
        raise click.UsageError("no agent to play: give submissions (files or folders) or --with logic,greedy")
    if len(set(specs)) < len(specs):
        raise click.UsageError("an agent is given twice")
    if maps_path is None:
        raise click.UsageError("give the maps to play with --maps DIR")
    found_maps = map_files([maps_path], recursive, only_maps=True)
    if not found_maps:
        raise click.ClickException(f"no map files (*.txt) found in {maps_path}"
                                   + ("" if recursive else " (not its subfolders: --no-recursive)"))
    maps = tuple(str(p) for p in found_maps)
    if dry_run:
        from treasure_cli.errors import TreasureError
        from treasure_cli.grading.submissions import maps_lines
        from treasure_cli.play.bench import read_playable

        for line in dry_run_lines(found, left_out, len(specs), len(maps), games):
            click.echo(one_line(line))
        try:
            playable, _ = read_playable(list(maps))
        except TreasureError:
            click.echo("estimated time: none (no map could be played)")
            return
        for line in maps_lines(playable, map_names(maps_path, found_maps)):
            click.echo(one_line(line))
        click.echo(one_line(_estimate_line(db_path, specs, {s.spec: s.name for s in found}, agent_isolation,
                                           playable, games, jobs or os.cpu_count() or 1)))
        return
    from treasure_cli.grading.publish import published_warnings

    for warning in published_warnings(db_path, list(maps)):
        click.echo(one_line(warning), err=True)
    level, limits = isolation_settings(agent_isolation, agent_memory, action_timeout, specs)
    options = BenchOptions(agents=tuple(specs), maps=maps, games=games, seed=seed,
                           truth_rate=0.5 if truth_rate is None else truth_rate, max_turns=max_turns,
                           game_timeout=game_timeout, isolation=level, limits=limits, hints=hints)
    record_intake(db_path, [s.name for s in found], verdicts, ids)
    play_tournament(options, db_path, jobs or os.cpu_count() or 1, scheduler, as_json, no_timing, None,
                     {s.spec: s.name for s in found}, verdicts, include_secret_seed,
                     map_names(maps_path, found_maps), keep_apart)


def _estimate_line(db_path: str, specs: list[str], labels: dict[str, str], isolation: str,
                   playable: dict[str, MapInfo], games: int, workers: int) -> str:
    """The dry run's estimate of the time (grading/estimate.py), for the maps a game can be played on."""
    from treasure_cli.errors import TreasureError
    from treasure_cli.grading.estimate import estimate
    from treasure_cli.sandbox.levels import effective_level

    try:
        level = effective_level(isolation)[0]
    except TreasureError:
        level = isolation  # (the run itself would refuse it, and say why)
    tiles = [info.width * info.height for info in playable.values()]
    return estimate(db_path, specs, labels, level, tiles, games, workers).line()
