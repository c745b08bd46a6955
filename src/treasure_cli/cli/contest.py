"""`treasure contest`: every group's agent on one map, the same games for all, ranked and shown."""

from __future__ import annotations

import dataclasses
import json
import os
import sys

import click

from treasure_cli.agents.registry import SPEC_HELP
from treasure_cli.formats.text import printable
from treasure_cli.cli.options import (
    GAME_TIMEOUT, KEEP_APART, SCHEDULER, agent_spec, finite, hint_options, intake_caps_options, isolation_options,
    isolation_settings, set_intake_caps, split_csv,
)


# (the games and the ranking: grading/contest.py on grading/tournament.py's machinery; the page: view/contest.py)
@click.command()
@click.argument("map_path", metavar="MAP", type=click.Path(exists=True, dir_okay=False))
@click.argument("submissions", nargs=-1, type=click.Path())
@click.option("--with", "extra", metavar="A,B,...",
              help=f"Baselines to play too, comma-separated (the built-ins, e.g. logic,greedy): shown, marked and "
                   f"not ranked among the groups; each is {SPEC_HELP}.")
@click.option("--games", default=5, show_default=True, type=click.IntRange(min=1), metavar="N",
              help="Games per agent: the same N seeds for every agent.")
@click.option("--db", "db_path", default="contest.sqlite", show_default=True, type=click.Path(dir_okay=False),
              metavar="RESULTS.sqlite",
              help="The results store: every finished game is recorded here; a rerun plays only what is missing.")
@click.option("--seed", type=int, metavar="S",
              help="A known base seed instead of the store's own secret one (then anyone can play the same "
                   "games again).")
@click.option("--truth-rate", type=click.FloatRange(0.0, 1.0), callback=finite, default=0.5, show_default=True,
              help="Chance that a hint (after the first) is true.")
@click.option("--max-turns", type=click.IntRange(min=1), help="Turn limit (default 4·(W+H)).")
@GAME_TIMEOUT
@click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N",
              help="Processes playing in parallel [default: number of CPUs]; results do not depend on it.")
@SCHEDULER
@KEEP_APART
@click.option("--html", "html_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write the contest page, DIR/index.html: every agent's game on a grid of boards playing in "
                   "step, for a projector (each game is played again from the store to draw it).")
@click.option("--json", "as_json", is_flag=True, help="Print the ranking and every game as JSON.")
@isolation_options
@hint_options
@intake_caps_options
def contest(map_path: str, submissions: tuple[str, ...], extra: str | None, games: int, db_path: str,
            seed: int | None, truth_rate: float, max_turns: int | None, game_timeout: float | None,
            jobs: int | None, scheduler: str | None, html_dir: str | None, as_json: bool,
            agent_isolation: str = "auto", agent_memory: int = 1 << 30, action_timeout: float | None = None,
            hints=None, max_group_files: int = 2000, max_group_size: int = 50 << 20,
            max_source_size: int = 2 << 20, keep_apart: bool = True) -> None:
    """The contest: every group's agent on one MAP, the same games for all, ranked for the class.

    SUBMISSIONS are as for `treasure tournament` (a folder of submissions,
    or the submissions themselves). Every agent plays the same N games of
    MAP (the same seeds), recorded in a results store as a tournament's are.
    The groups are ranked by wins, then mean turns to a win, then time per
    action; they share a rank only when all three are equal. Built-ins given
    with --with are baselines: listed, marked, never ranked among the
    groups. --html DIR writes the contest page for the projector: a board
    per agent, all playing in step, and a podium. The exit status is 1 if
    any game failed.

    \b
    Examples:
      treasure contest hidden/MAP_07.txt students/ --with logic,greedy --html contest/
      treasure contest hidden/MAP_07.txt students/ --games 3 --db contest.sqlite --json
    """
    from treasure_cli.errors import AgentLoadError
    from treasure_cli.grading.contest import contest_json, run_contest
    from treasure_cli.grading.submissions import find_submissions
    from treasure_cli.view.contest import contest_table

    set_intake_caps(max_group_files, max_group_size, max_source_size)
    try:
        found, left_out = find_submissions(list(submissions))
    except AgentLoadError as exc:
        raise click.UsageError(str(exc)) from None
    for why in left_out:
        click.echo(printable(f"left out: {why}"), err=True)
    specs = [s.spec for s in found] + [agent_spec(a, "--with") for a in (split_csv(extra, "--with") if extra else ())]
    if not specs:
        raise click.UsageError("no agent to play: give submissions (files or folders) or --with logic,greedy")
    if len(set(specs)) < len(specs):
        raise click.UsageError("an agent is given twice")
    level, limits = isolation_settings(agent_isolation, agent_memory, action_timeout, specs)
    bar_box: list = []

    def plan(to_play: int, already: int) -> None:
        if already:
            click.echo(f"{already} game{'s' if already != 1 else ''} already in {db_path}; {to_play} to play",
                       err=True)
        bar_box.append(click.progressbar(length=to_play, label="playing", file=sys.stderr,
                                         hidden=not sys.stderr.isatty()))
        bar_box[0].__enter__()

    try:
        result, _ = run_contest(map_path, specs, db_path, games=games, seed=seed,
                                names={s.spec: s.name for s in found}, jobs=jobs or os.cpu_count() or 1,
                                scheduler=scheduler, on_plan=plan,
                                on_progress=lambda n: bar_box[0].update(n),
                                truth_rate=truth_rate, max_turns=max_turns, game_timeout=game_timeout,
                                isolation=level, limits=limits, hints=hints, apart=keep_apart)
    finally:
        if bar_box:
            bar_box[0].__exit__(None, None, None)
    # Every group has its line: those that never played are listed under the ranking, scoring zero.
    result = dataclasses.replace(result, left_out=tuple((x.name, x.status, x.reason) for x in left_out))
    if html_dir is not None:
        from treasure_cli.view.contest import write_contest_page

        click.echo(f"wrote {write_contest_page(result, html_dir, map_path, level, limits)}", err=True)
    failures = [r for p in result.placings for r in p.games if r.outcome == "failed"]
    for r in failures:
        click.echo(printable(f"{r.error} (game {r.game_id})"), err=True)
    if as_json:
        click.echo(json.dumps(contest_json(result), indent=2))
    else:
        click.echo(printable(contest_table(result)))
    if failures:
        sys.exit(1)
