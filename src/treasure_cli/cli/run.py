"""`treasure run`: play every map of a folder, write a log per map."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from treasure_cli.agents.registry import SPEC_HELP
from treasure_cli.errors import OutputBusyError, TreasureError
from treasure_cli.formats.text import one_line, printable
from treasure_cli.cli.group import Terminated
from treasure_cli.cli.options import (
    GAME_TIMEOUT, Refusal, agent_spec, finite, hint_options, isolation_options,
    isolation_settings, map_files, view_options,
)
from treasure_cli.cli.watch import watch_map


@click.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(exists=True))
@click.argument("output_dir", metavar="OUTPUT", type=click.Path(file_okay=False), required=False)
@click.option("--agent", default="logic", show_default=True, callback=lambda ctx, param, value: agent_spec(value),
              metavar="SPEC",
              help=f"The agent: {SPEC_HELP}.")
@click.option("--seed", default=0, show_default=True, type=int,
              help="Base seed; each map's game seed is derived from it and the map's content (not its name).")
@click.option("--game-seed", type=click.IntRange(min=0), metavar="N",
              help="Play with exactly this game seed (one map): the seed a bench or tournament game shows.")
@click.option("--truth-rate", default=0.5, show_default=True, type=click.FloatRange(0.0, 1.0), callback=finite,
              help="Chance that a hint (after the first) is true.")
@click.option("--max-turns", type=click.IntRange(min=1), help="Turn limit (default 4·(W+H)).")
@GAME_TIMEOUT
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(min=1),
              help="Games played in parallel (logs are the same whatever the number).")
@click.option("--log-name", "naming", type=click.Choice(["id", "stem"]), default="id", show_default=True,
              help="Log file names: id = LOG_<id>.txt for MAP_<id>.txt (LOG_<stem>.txt otherwise); "
                   "stem = always LOG_<stem>.txt.")
@click.option("--no-clobber", is_flag=True,
              help="Refuse to run (nothing played) if a log this run would write already exists.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON instead of a table.")
@click.option("--step", is_flag=True, help="Watch one game live, one step per Enter (INPUT must be one map).")
@view_options
@click.option("--html", "html_pages", is_flag=True,
              help="Also write OUTPUT/LOG_<id>.html, a page to watch each game in a browser.")
@click.option("--notes", is_flag=True,
              help="Ask the agent to explain each action (its explain()) and write its notes into the logs.")
@click.option("--agent-output", is_flag=True,
              help="Write what the agent printed (stdout and stderr) into the logs, with the turn it came in "
                   "(at most 20 lines of 300 characters an action); replays and pages show it at that step.")
@isolation_options
@hint_options
def run(input_path: str, output_dir: str | None, agent: str, seed: int, game_seed: int | None, truth_rate: float,
        max_turns: int | None, game_timeout: float | None, jobs: int, naming: str, no_clobber: bool,
        as_json: bool, step: bool, no_pause: bool, turn: int | None, window: tuple[int, int] | None,
        color: bool | None, html_pages: bool = False, notes: bool = False, agent_output: bool = False,
        agent_isolation: str = "auto",
        agent_memory: int = 1 << 30, action_timeout: float | None = None, hints=None) -> None:
    """Play every map in INPUT and write OUTPUT/LOG_<id>.txt for each.

    INPUT is a folder (every *.txt map, in name order) or one map file. A map
    that cannot be read, or a game the agent fails (it raises, takes an
    illegal action or runs past --game-timeout), is reported and gets no log;
    the others still run, and the exit status is 1 if any game failed. If two
    maps would write the same log (MAP_1.txt and map_1.txt), nothing is
    played (exit status 2). Logs of an earlier run are replaced, and the
    summary says how many; --no-clobber refuses instead.

    \b
    Examples:
      treasure run input/ output/
      treasure run input/ output/ --seed 7 --jobs 2 --json
      treasure run input/MAP_01.txt output/ --agent random
      treasure run input/ output/ --agent ./my_agent.py:MyAgent --game-timeout 5
      treasure run input/ output/ --agent 'exec:./my-agent --fast'
      treasure run input/MAP_01.txt --step
      treasure run input/ output/ --html
      treasure run input/ output/ --notes --html
      treasure run input/ output/ --agent examples/densest_scan.py:DensestScan --agent-output --html
      treasure run input/ output/ --hints examples/hints/kinds.py --hint-weights builtin=0
      treasure run hidden/MAP_07.txt game/ --agent greedy --game-seed 4076398172520178431
    """
    from treasure_cli.play.runner import RunOptions, existing_logs, run_maps
    from treasure_cli.play.results import as_dict
    from treasure_cli.view.tables import run_table

    level, limits = isolation_settings(agent_isolation, agent_memory, action_timeout, [agent])
    options = RunOptions(agent=agent, base_seed=seed, truth_rate=truth_rate, max_turns=max_turns,
                         game_timeout=game_timeout, isolation=level, limits=limits, notes=notes, hints=hints,
                         game_seed=game_seed, agent_output=agent_output)
    if game_seed is not None and not Path(input_path).is_file():
        raise click.UsageError("--game-seed plays one game: INPUT must be one map file")
    if step:
        if as_json:
            raise click.UsageError("--json does not go with --step")
        watch_map(Path(input_path), output_dir, options, no_pause, turn, window, color, naming, no_clobber)
        return
    if no_pause or turn is not None or window is not None or color is not None:
        raise click.UsageError("--no-pause, --turn, --window and --color/--no-color go with --step")
    if output_dir is None:
        raise click.UsageError("missing argument OUTPUT (the folder for the logs)")
    maps = map_files([input_path])
    if not maps:
        raise click.ClickException(f"no map files (*.txt) found in {input_path}")
    try:
        replaced = existing_logs(maps, Path(output_dir), naming)
    except TreasureError as exc:
        raise Refusal(one_line(str(exc))) from None  # it names the maps: a student's file names
    if replaced and no_clobber:
        shown = ", ".join(p.name for p in replaced[:5]) + (", ..." if len(replaced) > 5 else "")
        raise Refusal(one_line(f"--no-clobber: {len(replaced)} of the logs this run would write already exist in "
                               f"{output_dir} ({shown}); nothing was played"))
    show_progress = sys.stderr.isatty() and len(maps) > 1
    written = 0
    with click.progressbar(length=len(maps), label="playing", file=sys.stderr,
                           hidden=not show_progress) as bar:
        def progress(record):
            nonlocal written
            written += record.log is not None
            if record.error:
                click.echo(printable(f"Error: {record.error}"), err=True)
            for warning in record.warnings:
                click.echo(printable(warning), err=True)
            bar.update(1)

        try:
            records = run_maps(maps, Path(output_dir), options, jobs=jobs, on_result=progress, naming=naming)
        except OutputBusyError as exc:
            raise Refusal(printable(str(exc))) from None
        except (KeyboardInterrupt, Terminated):
            click.echo(f"\nstopped: {written} of {len(maps)} logs written in {output_dir}, each one whole", err=True)
            raise
    if html_pages:
        from treasure_cli.view.page import pages_beside_logs

        pages_beside_logs(records)
    if as_json:
        click.echo(json.dumps([as_dict(r) for r in records], indent=2))
    else:
        click.echo(run_table(records))
        rewritten = {str(path) for path in replaced} & {r.log for r in records if r.log}
        if rewritten:
            n = len(rewritten)
            click.echo(f"{n} log{'s' if n > 1 else ''} of an earlier run replaced in {output_dir}")
    if any(r.failed for r in records):
        sys.exit(1)
