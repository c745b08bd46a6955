"""The `treasure` command line: parse options, call the library, print.

Each command's docstring is its help text. Expected failures are
TreasureError and come out as `Error: ...` with a non-zero exit status.
The library is imported inside each command, so `--version` and `--help`
load neither numpy nor the engine.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import sys
from pathlib import Path

import click

from treasure_cli import __version__
from treasure_cli.agents.registry import SPEC_HELP
from treasure_cli.errors import MapFormatError, OutputBusyError, TreasureError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


INTERRUPTED, TERMINATED, CLOSED_PIPE = 130, 143, 141  # the exit statuses a shell gives for these


class Terminated(BaseException):
    """SIGTERM arrived: unwind like Ctrl-C, so no temporary file or worker is left behind."""


_MAIN_PID = os.getpid()


def _on_signal(signum, frame):
    """SIGTERM and SIGINT in the main process unwind it; a worker forked a moment
    ago, before it could set its own handlers, just ends without a traceback."""
    if os.getpid() != _MAIN_PID:
        os._exit(128 + signum)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated()


class _Group(click.Group):
    """One place for every way a command ends other than success.

    TreasureError and any OSError (a folder that is a file, a full disk, no
    permission) become `Error: ...` with status 1; Ctrl-C and SIGTERM exit
    130 and 143 after the command has cleaned up; a closed pipe (`| head`)
    is not an error and exits as the shell would, 141, without a message.
    """

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TreasureError as exc:
            raise click.ClickException(printable(str(exc))) from exc
        except BrokenPipeError:
            sys.stdout = open(os.devnull, "w")  # the interpreter's last flush must not fail again
            ctx.exit(CLOSED_PIPE)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(INTERRUPTED)
        except Terminated:
            click.echo("terminated", err=True)
            ctx.exit(TERMINATED)
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(printable(where + (exc.strerror or str(exc)))) from exc


@click.group(cls=_Group, context_settings=CONTEXT)
@click.version_option(__version__, "--version", prog_name="treasure")
def cli() -> None:
    """Play, log and replay the Treasure Island logical-agent game.

    \b
    Example:
      treasure generate --size 32 --seed 7 -o MAP_x.txt
      treasure check MAP_x.txt
      treasure run input/ output/
    """


def printable(text: str) -> str:
    """`text` safe for any output stream: line breaks inside a line and bytes of a
    file name that are not UTF-8 come out as backslash escapes."""
    lines = [line.encode("utf-8", "backslashreplace").decode("utf-8") for line in text.split("\n")]
    return "\n".join(line if line.isprintable() else line.encode("unicode_escape").decode("ascii")
                     for line in lines)


class Refusal(click.ClickException):
    """The command refuses to start: nothing was done (exit status 2, like a usage error)."""

    exit_code = 2


def main() -> None:
    """Console entry point."""
    global _MAIN_PID
    _MAIN_PID = os.getpid()
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    cli(prog_name="treasure")


def map_files(inputs: tuple[str, ...] | list[str]) -> list[Path]:
    """Expand files and folders (every *.txt in name order) into map paths."""
    paths: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            paths.extend(sorted(q for q in p.iterdir() if q.suffix == ".txt" and q.is_file()))
        elif p.exists():
            paths.append(p)
        else:
            raise click.ClickException(f"{item}: no such file or folder")
    return paths


# ---------------------------------------------------------------- check
@cli.command()
@click.argument("inputs", nargs=-1, required=True, type=click.Path())
def check(inputs: tuple[str, ...]) -> None:
    """Validate map files (or every *.txt in the given folders).

    Prints one `file:line:col: message` line per broken map and one `ok` line
    per valid one; warnings do not fail. Exit status 0 only if all are valid.

    \b
    Example:
      treasure check input/
      treasure check MAP_01.txt other/MAP_07.txt
    """
    from treasure_cli.formats.game_record import quote_name
    from treasure_cli.formats.map_file import read_map
    from treasure_cli.rules.game import unplayable

    paths = map_files(inputs)
    if not paths:
        raise click.ClickException("no map files (*.txt) found in " + ", ".join(inputs))
    failed = 0
    for path in paths:
        warnings: list[str] = []
        try:
            island = read_map(path, warnings)
        except MapFormatError as exc:
            failed += 1
            click.echo(printable(str(exc)))
            continue
        for w in warnings:
            click.echo(printable(w))
        problem = unplayable(island)
        if problem is not None:
            failed += 1
            click.echo(printable(f"{quote_name(str(path))}: {problem}"))
            continue
        click.echo(printable(
            f"{quote_name(str(path))}: ok, {island.width}x{island.height}, {len(island.land_regions)} land regions, "
            f"{len(island.prisons)} prisons, {int(island.mountain.sum())} mountain tiles, "
            f"r={island.reveal_turn} f={island.free_turn}, digest {island.digest}"
        ))
    if failed:
        click.echo(f"{failed} of {len(paths)} maps invalid", err=True)
        sys.exit(1)


# ---------------------------------------------------------------- run
def _view_options(f):
    """The options of the step-through view, shared by `replay` and `run --step`."""
    for option in reversed([
        click.option("--no-pause", is_flag=True, help="Print every frame one after another, no keys."),
        click.option("--turn", type=click.IntRange(min=0), metavar="N",
                     help="Print only the frame of turn N's first step (0 = the setup)."),
        click.option("--window", metavar="ROWSxCOLS", callback=_parse_window,
                     help="Show this many tiles of the map [default: what fits the terminal]."),
        click.option("--color/--no-color", default=None,
                     help="Colour the frames [default: only on a terminal, and not when NO_COLOR is set]."),
    ]):
        f = option(f)
    return f


def _parse_window(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    m = re.fullmatch(r"\s*([0-9]{1,5})\s*[xX]\s*([0-9]{1,5})\s*", value)  # ASCII digits: not ² or ٣
    if m is None or not int(m[1]) > 0 < int(m[2]):
        raise click.BadParameter(f"expected ROWSxCOLS such as 30x60, not {value!r}")
    return int(m[1]), int(m[2])


def _finite(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """FloatRange lets nan through (every comparison with nan is false)."""
    if value is not None and value != value:
        raise click.BadParameter("nan is not a number here")
    return value


def _agent_spec(value: str, option: str = "--agent") -> str:
    """Check an agent spec once, so a bad one is a usage error before any game (without
    running any of a stranger's code: that happens in the agent's own process)."""
    from treasure_cli.agents.registry import check_spec
    from treasure_cli.errors import AgentLoadError

    try:
        return check_spec(value)
    except AgentLoadError as exc:
        raise click.BadParameter(str(exc), param_hint=option) from None


_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _byte_size(ctx: click.Context, param: click.Parameter, value: str) -> int:
    text = value.strip().upper().removesuffix("B").removesuffix("I")
    number, unit = (text[:-1], text[-1]) if text[-1:] in "KMG" else (text, "")
    try:
        size = int(float(number) * _SIZE_UNITS[unit])
    except ValueError:
        raise click.BadParameter(f"expected a size such as 512M or 2G, got {value!r}") from None
    if size < 64 << 20:
        raise click.BadParameter(f"{value} is too little for an agent's process: give at least 64M")
    return size


def _isolation_options(command):
    """--agent-isolation, --agent-memory and --action-timeout: how agents that are not built in play."""
    from treasure_cli.play.sandbox import LEVELS

    command = click.option(
        "--action-timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
        help="An agent in a process of its own that takes longer than SECONDS over one action fails "
             "its game.")(command)
    command = click.option(
        "--agent-memory", default="1G", show_default=True, metavar="SIZE", callback=_byte_size,
        help="Memory (address space) an agent's process may use: 512M, 2G, ...")(command)
    return click.option(
        "--agent-isolation", type=click.Choice(LEVELS), default="auto", show_default=True,
        help="Where agents that are not built in play: sandbox (bubblewrap: no network, no files but "
             "their own), process (a process of their own, OS limits), none (this process, trusted "
             "code only); auto = sandbox where bubblewrap runs, else process. See docs/security.md.")(command)


def _isolation(asked: str, memory: int, action_timeout: float | None, specs) -> tuple[str, object]:
    """The isolation level to use and the limits, said on stderr when an agent is not built in."""
    from treasure_cli.agents.registry import is_builtin
    from treasure_cli.play.sandbox import AgentLimits, effective_level

    try:
        level, warning = effective_level(asked)
    except TreasureError as exc:
        raise Refusal(str(exc)) from None
    strangers = [s for s in specs if not is_builtin(s)]
    if strangers:
        if warning:
            click.echo(warning, err=True)
        where = {"sandbox": f"in a sandbox (bubblewrap; no network, {memory >> 20} MiB)",
                 "process": f"in processes of their own (no sandbox; {memory >> 20} MiB)",
                 "none": "in this process (--agent-isolation none: no protection)"}[level]
        click.echo(printable(f"agents: {', '.join(strangers)} {where}"), err=True)
    return level, AgentLimits(memory=memory, action_timeout=action_timeout)


_GAME_TIMEOUT = click.option(
    "--game-timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
    help="A game still running after SECONDS fails (the agent is named); the other games go on.")


@cli.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(exists=True))
@click.argument("output_dir", metavar="OUTPUT", type=click.Path(file_okay=False), required=False)
@click.option("--agent", default="logic", show_default=True, callback=lambda ctx, param, value: _agent_spec(value),
              metavar="SPEC",
              help=f"The agent: {SPEC_HELP}.")
@click.option("--seed", default=0, show_default=True, type=int,
              help="Base seed; each map's seed is derived from it and the map's file name.")
@click.option("--truth-rate", default=0.5, show_default=True, type=click.FloatRange(0.0, 1.0), callback=_finite,
              help="Chance that a hint (after the first) is true.")
@click.option("--max-turns", type=click.IntRange(min=1), help="Turn limit (default 4·(W+H)).")
@_GAME_TIMEOUT
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(min=1),
              help="Games played in parallel (logs are the same whatever the number).")
@click.option("--log-name", "naming", type=click.Choice(["id", "stem"]), default="id", show_default=True,
              help="Log file names: id = LOG_<id>.txt for MAP_<id>.txt (LOG_<stem>.txt otherwise); "
                   "stem = always LOG_<stem>.txt.")
@click.option("--no-clobber", is_flag=True,
              help="Refuse to run (nothing played) if a log this run would write already exists.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON instead of a table.")
@click.option("--step", is_flag=True, help="Watch one game live, one step per Enter (INPUT must be one map).")
@_view_options
@click.option("--html", "html_pages", is_flag=True,
              help="Also write OUTPUT/LOG_<id>.html, a page to watch each game in a browser.")
@_isolation_options
def run(input_path: str, output_dir: str | None, agent: str, seed: int, truth_rate: float,
        max_turns: int | None, game_timeout: float | None, jobs: int, naming: str, no_clobber: bool,
        as_json: bool, step: bool, no_pause: bool, turn: int | None, window: tuple[int, int] | None,
        color: bool | None, html_pages: bool = False, agent_isolation: str = "auto",
        agent_memory: int = 1 << 30, action_timeout: float | None = None) -> None:
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
    """
    from treasure_cli.play.runner import RunOptions, existing_logs, run_maps
    from treasure_cli.play.tables import as_dict, run_table

    level, limits = _isolation(agent_isolation, agent_memory, action_timeout, [agent])
    options = RunOptions(agent=agent, base_seed=seed, truth_rate=truth_rate, max_turns=max_turns,
                         game_timeout=game_timeout, isolation=level, limits=limits)
    if step:
        if as_json:
            raise click.UsageError("--json does not go with --step")
        _watch_map(Path(input_path), output_dir, options, no_pause, turn, window, color, naming, no_clobber)
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
        raise Refusal(str(exc)) from None
    if replaced and no_clobber:
        shown = ", ".join(p.name for p in replaced[:5]) + (", ..." if len(replaced) > 5 else "")
        raise Refusal(f"--no-clobber: {len(replaced)} of the logs this run would write already exist in "
                      f"{output_dir} ({shown}); nothing was played")
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


# ---------------------------------------------------------------- generate
# (the generator itself: formats/generator.py)
@cli.command()
@click.option("--size", type=click.IntRange(min=5), metavar="N", help="Square map of N x N tiles (default 16).")
@click.option("--width", type=click.IntRange(min=5), metavar="W", help="Columns (with --height).")
@click.option("--height", type=click.IntRange(min=5), metavar="H", help="Rows (with --width).")
@click.option("--regions", type=click.IntRange(min=1), metavar="N", help="Land regions [default: scaled with the size].")
@click.option("--prisons", type=click.IntRange(min=1), metavar="N", help="Prison tiles [default: scaled with the size].")
@click.option("--mountains", type=click.IntRange(min=0), metavar="N", help="Mountain tiles [default: about 6% of the land].")
@click.option("--reveal-turn", type=click.IntRange(min=1), metavar="R", help="Turn r of the prison reveal [default: random 2-4].")
@click.option("--free-turn", type=click.IntRange(min=1), metavar="F", help="Turn f of the release [default: r + max(2, round((W+H)/8))].")
@click.option("--seed", type=click.IntRange(min=0), default=0, metavar="S", show_default=True, help="Random seed.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the map to FILE instead of printing it.")
@click.option("--count", type=click.IntRange(min=1), metavar="K", help="Write K maps into --output-dir.")
@click.option("--output-dir", type=click.Path(file_okay=False), metavar="DIR", help="Folder for MAP_01.txt, MAP_02.txt, ...")
def generate(size, width, height, regions, prisons, mountains, reveal_turn, free_turn, seed, output, count, output_dir):
    """Generate random valid map files (same options and seed: same file).

    The island is surrounded by sea, every land region is one connected
    piece, mountains come in small clusters and the treasure can be reached
    by walking from every prison. With --count K and --output-dir DIR it
    writes DIR/MAP_01.txt .. MAP_K.txt; map k uses seed SEED + k - 1, so it
    is the same map as a single `--seed SEED+k-1` run.

    \b
    Example:
      treasure generate --size 32 --seed 7 -o MAP_x.txt
      treasure generate --width 40 --height 24 --regions 12 --prisons 3
      treasure generate --size 64 --count 5 --seed 1 --output-dir maps/
    """
    # Imported here so other commands do not pay for them at start-up.
    import numpy as np

    from treasure_cli.formats.generator import generate_island
    from treasure_cli.formats.map_file import format_map, write_map

    if output == "":
        raise click.BadParameter("the file name is empty", param_hint="-o/--output")
    if size is not None and (width is not None or height is not None):
        raise click.UsageError("give either --size or --width and --height, not both")
    if (width is None) != (height is None):
        raise click.UsageError("--width and --height go together")
    if size is None and width is None:
        size = 16
    w, h = (size, size) if size is not None else (width, height)
    if output is not None and output_dir is not None:
        raise click.UsageError("give either -o/--output or --output-dir, not both")
    if count is not None and output_dir is None:
        raise click.UsageError("--count needs --output-dir")

    def make(map_seed: int):
        try:
            return generate_island(
                w, h, regions=regions, prisons=prisons, mountains=mountains,
                reveal_turn=reveal_turn, free_turn=free_turn, rng=np.random.default_rng(map_seed),
            )
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None

    if output_dir is None:
        island = make(seed)
        if output is None:
            click.echo(format_map(island), nl=False)
        else:
            write_map(island, output)
            click.echo(f"wrote {output}")
        return
    total = count or 1
    digits = max(2, len(str(total)))
    for k in range(1, total + 1):
        path = Path(output_dir) / f"MAP_{k:0{digits}d}.txt"
        write_map(make(seed + k - 1), path)
        click.echo(f"wrote {path}")


# ---------------------------------------------------------------- bench
def _csv(value: str, param: str, convert=str) -> tuple:
    """Split `a,b,c` (spaces allowed) into a tuple, converting each item."""
    items = [x.strip() for x in value.split(",") if x.strip()]
    try:
        out = tuple(convert(x) for x in items)
    except ValueError:
        out = ()
    if not out:
        raise click.BadParameter(f"expected a comma-separated list, got {value!r}", param_hint=param)
    return out


@cli.command()
@click.option("--agents", default="logic,greedy,random", show_default=True, metavar="A,B,...",
              help=f"Agents to compare, comma-separated; each is {SPEC_HELP}.")
@click.option("--sizes", metavar="N,N,...", help="Square island sizes to generate [default: 16,32,64].")
@click.option("--maps", "maps_path", type=click.Path(exists=True), metavar="DIR",
              help="Play these map files (a folder or one file) instead of generated islands.")
@click.option("--games", default=100, show_default=True, type=click.IntRange(min=1), metavar="N",
              help="Games per size (per map file with --maps).")
@click.option("--seed", type=int, metavar="S",
              help="Base seed; island i of size s and its game seed derive from (S, s, i) [default: 1; "
                   "with --db, the results store's own secret seed, which no agent can know].")
@click.option("--truth-rate", default=0.5, show_default=True, type=click.FloatRange(0.0, 1.0), callback=_finite,
              help="Chance that a hint (after the first) is true.")
@click.option("--reveal-turn", type=click.IntRange(min=1), metavar="R",
              help="Generated islands reveal the prison at turn R [default: random 2-4].")
@click.option("--free-turn", type=click.IntRange(min=1), metavar="F",
              help="Generated islands free the pirate at turn F (small F: harder) [default: r + (W+H)/8].")
@click.option("--max-turns", type=click.IntRange(min=1), help="Turn limit (default 4·(W+H)).")
@_GAME_TIMEOUT
@click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N",
              help="Processes playing in parallel [default: number of CPUs]; results do not depend on it.")
@click.option("--json", "as_json", is_flag=True, help="Print every statistic and every game as JSON.")
@click.option("--no-timing", is_flag=True, help="Leave out the timing columns (for diffs and tests).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), metavar="REPORT.html",
              help="Also write a page of charts and the table (needs: pip install 'treasure-cli[plot]').")
@click.option("--from-json", "from_json", type=click.Path(exists=True, dir_okay=False), metavar="BENCH.json",
              help="Play nothing: chart a run saved with --json (give --html).")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), metavar="RESULTS.sqlite",
              help="Record every finished game in this SQLite results store (with --maps); a rerun plays "
                   "only the games it does not hold yet.")
@click.option("--report", is_flag=True,
              help="Play nothing: rank the agents of --db by win % with paired sign tests "
                   "(table, --json or --html).")
@click.option("--all-versions", is_flag=True,
              help="With --report: one row per version of an agent's code, not only its latest.")
@click.option("--scheduler", metavar="ADDRESS",
              help="Play the games on this Dask cluster (tcp://host:8786) instead of local processes "
                   "(with --db; needs: pip install 'treasure-cli[dask]').")
@_isolation_options
def bench(agents: str, sizes: str | None, maps_path: str | None, games: int, seed: int | None, truth_rate: float,
          reveal_turn: int | None, free_turn: int | None, max_turns: int | None, game_timeout: float | None,
          jobs: int | None, as_json: bool, no_timing: bool, html_path: str | None = None,
          from_json: str | None = None, db_path: str | None = None, report: bool = False,
          all_versions: bool = False, scheduler: str | None = None, agent_isolation: str = "auto",
          agent_memory: int = 1 << 30, action_timeout: float | None = None) -> None:
    """Compare agents over many seeded games; print win rate, turns and time.

    Every agent plays exactly the same islands with the same game seeds, so
    the table differs between runs with one seed only in its timing columns.
    Win % comes with its 95 % Wilson interval; turns are over won games.

    \b
    Examples:
      treasure bench
      treasure bench --agents logic,greedy --sizes 32,128 --games 500 --seed 7
      treasure bench --maps input/ --games 20 --json > bench.json
      treasure bench --sizes 16,32,64 --games 200 --html report.html
      treasure bench --from-json bench.json --html report.html
      treasure bench --agents logic,students/ann.py:Agent --maps hidden/ --games 5 --db results.sqlite
      treasure bench --agents logic,exec:examples/cpp/build/treasure-agent --sizes 16,32 --games 50
      treasure bench --maps hidden/ --games 5 --db results.sqlite --scheduler tcp://10.0.0.5:8786
      treasure bench --db results.sqlite --report
      treasure bench --db results.sqlite --report --all-versions --html leaderboard.html
    """
    if from_json is not None:
        _bench_report_from(from_json, html_path)
        return
    if report or all_versions:
        _bench_leaderboard(db_path, report, all_versions, truth_rate, max_turns, game_timeout, as_json, html_path)
        return

    from treasure_cli.formats.generator import MAX_SIDE, MIN_SIDE
    from treasure_cli.play.bench import BenchOptions, run_bench, total_games

    names = tuple(_agent_spec(name, "--agents") for name in _csv(agents, "--agents"))
    maps: tuple[str, ...] = ()
    if maps_path is not None:
        if sizes is not None or reveal_turn is not None or free_turn is not None:
            raise click.UsageError("--maps plays the given maps: do not combine it with "
                                   "--sizes, --reveal-turn or --free-turn")
        maps = tuple(str(p) for p in map_files([maps_path]))
        if not maps:
            raise click.ClickException(f"no map files (*.txt) found in {maps_path}")
    size_list = _csv("16,32,64" if sizes is None else sizes, "--sizes", int)
    if any(not MIN_SIDE <= s <= MAX_SIDE for s in size_list):
        raise click.BadParameter(f"sizes must be between {MIN_SIDE} and {MAX_SIDE}", param_hint="--sizes")
    names = tuple(dict.fromkeys(names))
    level, limits = _isolation(agent_isolation, agent_memory, action_timeout, names)
    options = BenchOptions(agents=names, sizes=size_list, maps=maps, games=games,
                           seed=seed, truth_rate=truth_rate, reveal_turn=reveal_turn, free_turn=free_turn,
                           max_turns=max_turns, game_timeout=game_timeout, isolation=level, limits=limits)
    if db_path is not None or scheduler is not None:
        if seed is not None:
            click.echo(f"warning: --seed {seed} is known: a submitted agent that knows it can recompute each "
                       "game's hidden draws; leave it out to grade with the store's secret seed", err=True)
        _bench_tournament(options, db_path, jobs or os.cpu_count() or 1, scheduler, as_json, no_timing, html_path)
        return
    options = dataclasses.replace(options, seed=1 if seed is None else seed)  # reproducible for one's own agents
    with click.progressbar(length=total_games(options), label="benchmarking", file=sys.stderr,
                           hidden=not sys.stderr.isatty()) as bar:
        try:
            result = run_bench(options, jobs=jobs or os.cpu_count() or 1, on_progress=bar.update,
                               on_plan=lambda games: setattr(bar, "length", games))  # maps left out
        except TreasureError as exc:
            raise click.ClickException(str(exc)) from None
    _show_bench(result, as_json, no_timing, html_path, f"{len(result.records)} games in {result.seconds:.1f} s")


def _show_bench(result, as_json: bool, no_timing: bool, html_path: str | None, footer: str) -> None:
    """Print a bench result (table or JSON, and the report page if asked); exit 1 if maps were left out."""
    from treasure_cli.play.tables import bench_json, bench_table, failure_lines

    for problem in result.skipped:
        click.echo(printable(f"Error: {problem} (left out of the bench)"), err=True)
    for line in failure_lines(result.records):
        click.echo(printable(line), err=True)
    data = bench_json(result, not no_timing) if html_path is not None or as_json else None
    if html_path is not None:
        from treasure_cli.view.report import write_report

        write_report(data, html_path)
        click.echo(f"wrote {html_path}", err=True)
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(bench_table(result.stats, not no_timing))
        if not no_timing:
            click.echo(footer)
    if result.skipped:
        sys.exit(1)


def _bench_tournament(options, db_path: str | None, jobs: int, scheduler: str | None, as_json: bool,
                      no_timing: bool, html_path: str | None) -> None:
    """`bench --db`: play the games the store does not hold yet, then show every game of the command."""
    from treasure_cli.agents.registry import is_builtin
    from treasure_cli.play.bench import BenchResult, summarize
    from treasure_cli.play.tournament import as_record, run_tournament

    if db_path is None:
        raise click.UsageError("--scheduler plays a tournament into a results store: give --db RESULTS.sqlite")
    if not options.maps:
        raise click.UsageError("--db records games on map files: give --maps DIR")
    if scheduler is not None and options.game_timeout is not None and options.isolation == "none" and not all(
            is_builtin(a) for a in options.agents):
        raise click.UsageError("--game-timeout needs agents in processes of their own with --scheduler (Dask "
                               "plays games in worker threads, where nothing can interrupt an agent in the "
                               "same process): drop --agent-isolation none")
    bar_box: list = []

    def plan(to_play: int, already: int) -> None:
        if already:
            click.echo(f"{already} game{'s' if already != 1 else ''} already in {db_path}; "
                       f"{to_play} to play", err=True)
        bar_box.append(click.progressbar(length=to_play, label="playing", file=sys.stderr,
                                         hidden=not sys.stderr.isatty()))
        bar_box[0].__enter__()

    try:
        result = run_tournament(options, db_path, jobs=jobs, scheduler=scheduler, on_plan=plan,
                                on_progress=lambda n: bar_box[0].update(n))
    finally:
        if bar_box:
            bar_box[0].__exit__(None, None, None)
    if options.seed is None and not result.secret_seed:
        click.echo(f"warning: {db_path} holds games of an earlier version, played from the known base seed 1; "
                   "start a new store to grade with a secret seed", err=True)
    records = tuple(as_record(r) for r in result.rows)
    bench_result = BenchResult(result.options, tuple(summarize(records, result.options.agents)), records,
                               result.seconds, result.skipped)
    _show_bench(bench_result, as_json, no_timing, html_path,
                f"{result.played} games played in {result.seconds:.1f} s, {result.already} already in {db_path}")


def _bench_leaderboard(db_path: str | None, report: bool, all_versions: bool, truth_rate: float,
                       max_turns: int | None, game_timeout: float | None, as_json: bool,
                       html_path: str | None) -> None:
    """`bench --db --report`: rank the agents of a results store."""
    from treasure_cli.play.store import settings_key
    from treasure_cli.play.tournament import leaderboard_json, leaderboard_table, report_data, store_leaderboard

    if not report:
        raise click.UsageError("--all-versions goes with --report")
    if db_path is None:
        raise click.UsageError("--report ranks the games of a results store: give --db RESULTS.sqlite")
    board = store_leaderboard(db_path, settings_key(truth_rate, max_turns, game_timeout), all_versions)
    if html_path is not None:
        from treasure_cli.view.report import write_report

        write_report(report_data(board, db_path), html_path)
        click.echo(f"wrote {html_path}", err=True)
    if as_json:
        click.echo(json.dumps(leaderboard_json(board), indent=2))
    else:
        from treasure_cli.play.tables import failure_lines
        from treasure_cli.play.tournament import as_record

        click.echo(printable(leaderboard_table(board)))
        failures = failure_lines([as_record(r, board.labels.get(r.id)) for r in board.rows])
        if failures:
            click.echo("\nfailed games:\n" + "\n".join(printable(line) for line in failures))
        from treasure_cli.play.similarity import similarity_report

        flags = similarity_report(board.rows, board.labels)
        if flags:
            click.echo("\n" + printable(flags))


def _bench_report_from(json_path: str, html_path: str | None) -> None:
    """`bench --from-json`: the report of a run saved with --json."""
    from treasure_cli.view.report import write_report

    if html_path is None:
        raise click.UsageError("--from-json makes a report: give --html REPORT.html")
    try:
        data = json.loads(Path(json_path).read_text(encoding="utf-8"))
        data["stats"], data["games"]  # noqa: B018 - the two parts the report needs
    except (ValueError, KeyError, TypeError) as exc:
        raise click.ClickException(f"{json_path}: not a file written by `treasure bench --json` ({exc})") from None
    click.echo(f"wrote {write_report(data, html_path)}")


# ---------------------------------------------------------------- check-agent
@cli.command("check-agent")
@click.argument("spec", metavar="SPEC")
@click.option("--games", default=6, show_default=True, type=click.IntRange(min=1), metavar="N",
              help="Seeded games on generated islands, over --sizes in turn (each played twice, to compare).")
@click.option("--sizes", metavar="N,N,...",
              help="Square island sizes of those games, e.g. your tournament's: 32,64 [default: 10,16,24].")
@click.option("--maps", "maps_path", type=click.Path(exists=True), metavar="DIR",
              help="Also play one game on each map file here (a folder or one file), e.g. the hidden maps.")
@click.option("--max-action-ms", type=click.FloatRange(min=0, min_open=True), metavar="MS",
              help="Fail if an action takes longer than MS milliseconds (a game stops at its first such "
                   "action).")
@click.option("--seed", default=0, show_default=True, type=int, metavar="S", help="Seed of the games.")
@click.option("--game-timeout", default=30.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              metavar="SECONDS", help="A game still running after SECONDS fails the check.")
@_isolation_options
def check_agent_command(spec: str, games: int, sizes: str | None, maps_path: str | None,
                        max_action_ms: float | None, seed: int, game_timeout: float, agent_isolation: str = "auto",
                        agent_memory: int = 1 << 30, action_timeout: float | None = None) -> None:
    """Check that an agent keeps the contract, before running it on real maps.

    SPEC is what --agent takes: a built-in name, package.module:Class,
    path/to/file.py:Class, exec:PATH [ARGS], or an installed plugin's name.
    The agent plays as it would in `run` (in its own process, sandboxed
    where possible: see --agent-isolation). The check plays
    a few small seeded games, each twice, and reports whether the agent
    loads, takes only legal actions without raising, plays the same game
    from the same seed, and how long an action takes on each size. Before
    a tournament, check it on the sizes of the hidden maps (--sizes, or
    --maps) with a time budget per action (--max-action-ms). Exit status 1
    if a check fails.

    \b
    Examples:
      treasure check-agent examples/densest_scan.py:DensestScan
      treasure check-agent mypackage.agents:Clever --games 20
      treasure check-agent 'exec:examples/cpp/build/treasure-agent'
      treasure check-agent students/ann.py:Agent --sizes 32,64 --max-action-ms 200
      treasure check-agent students/ann.py:Agent --maps hidden/ --max-action-ms 200
    """
    from treasure_cli.formats.generator import MAX_SIDE, MIN_SIDE
    from treasure_cli.play.conformance import SIZES, check_agent, read_maps

    size_list = SIZES if sizes is None else _csv(sizes, "--sizes", int)
    if any(not MIN_SIDE <= s <= MAX_SIDE for s in size_list):
        raise click.BadParameter(f"sizes must be between {MIN_SIDE} and {MAX_SIDE}", param_hint="--sizes")
    maps = []
    if maps_path is not None:
        paths = [str(p) for p in map_files([maps_path])]
        if not paths:
            raise click.ClickException(f"no map files (*.txt) found in {maps_path}")
        try:
            maps = read_maps(paths)
        except TreasureError as exc:
            raise click.ClickException(str(exc)) from None
    level, limits = _isolation(agent_isolation, agent_memory, action_timeout, [spec.strip()])
    total = games + len(maps)
    with click.progressbar(length=total, label="checking", file=sys.stderr, hidden=not sys.stderr.isatty(),
                           item_show_func=lambda where: where) as bar:
        def progress(done: int, total: int, where: str) -> None:
            bar.update(done - bar.pos, where)
            if done == 0:
                bar.render_progress()  # no step yet: show the first game's name all the same

        checks = check_agent(spec, games=games, seed=seed, game_timeout=game_timeout, isolation=level,
                             limits=limits, sizes=size_list, maps=maps, max_action_ms=max_action_ms,
                             on_game=progress)
        bar.update(total - bar.pos, "")
    for check in checks:
        click.echo(f"{'ok  ' if check.ok else 'FAIL'}  {check.name}: {check.detail}")
    if not all(check.ok for check in checks):
        sys.exit(1)


# ---------------------------------------------------------------- replay
@cli.command("replay")
@click.argument("log_path", metavar="LOG", type=click.Path(dir_okay=False))
@click.option("--map", "map_path", type=click.Path(dir_okay=False), metavar="MAP",
              help="The map file [default: the path recorded in the log, tried as it is, "
                   "from the log's folder and from its parent].")
@_view_options
@click.option("--html", "html_path", type=click.Path(dir_okay=False), metavar="PAGE.html",
              help="Write the game as one self-contained web page instead of showing it.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False), metavar="FILE.svg",
              help="Write one frame (--turn N's first step; default the last step) as an SVG picture.")
def replay_command(log_path: str, map_path: str | None, no_pause: bool, turn: int | None,
                   window: tuple[int, int] | None, color: bool | None, html_path: str | None = None,
                   svg_path: str | None = None) -> None:
    """Step through a game log on the map, one step per Enter.

    Keys (each followed by Enter): nothing = next step, b = back one step,
    a number = go to that turn, q = quit. The frame shows the island, the
    agent (A), the pirate (X, once the agent knows where he is), the treasure
    ($), the tiles the agent has ruled out (.), this step's scan (#) or hint
    (+), and the step's log lines. Big maps show a window that follows the
    agent.

    \b
    Examples:
      treasure replay output/LOG_01.txt
      treasure replay output/LOG_05.txt --window 30x60
      treasure replay LOG_01.txt --map input/MAP_01.txt --no-pause --no-color > frames.txt
      treasure replay output/LOG_02.txt --turn 2
      treasure replay output/LOG_01.txt --html game.html
      treasure replay output/LOG_02.txt --turn 2 --svg turn2.svg
    """
    from treasure_cli.view.sources import open_log

    if html_path is not None or svg_path is not None:
        _export(open_log(log_path, map_path), html_path, svg_path, turn)
        return
    _show(open_log(log_path, map_path), no_pause, turn, window, color)


def _export(game, html_path: str | None, svg_path: str | None, turn: int | None) -> None:
    """`replay --html/--svg`: write files from the step model instead of showing frames."""
    from treasure_cli.view.page import write_page, write_svg

    if html_path is not None:
        click.echo(f"wrote {write_page(game, html_path)}")
    if svg_path is not None:
        index = game.last_step() if turn is None else game.first_step_of(turn)
        click.echo(f"wrote {write_svg(game, index, svg_path)}")


def _watch_map(map_path: Path, output_dir: str | None, options, no_pause: bool, turn: int | None,
               window: tuple[int, int] | None, color: bool | None, naming: str = "id",
               no_clobber: bool = False) -> None:
    """`run --step`: play one map while watching it; write its log too when OUTPUT is given."""
    from treasure_cli.play.runner import existing_logs, write_log
    from treasure_cli.view.sources import live_game

    if not map_path.is_file():
        raise click.UsageError("--step watches one game: INPUT must be a map file, not a folder")
    if output_dir is not None and no_clobber and existing_logs([map_path], Path(output_dir), naming):
        raise Refusal(f"--no-clobber: {output_dir} already holds the log of {map_path}; nothing was played")
    warnings: list[str] = []
    game = live_game(map_path, options, warnings)
    for warning in warnings:
        click.echo(printable(warning), err=True)
    _show(game, no_pause, turn, window, color)
    if output_dir is not None:
        target = write_log(Path(output_dir), map_path, game.finish(), naming)  # the rest is played unseen
        click.echo(f"wrote {target}")


def _show(game, no_pause: bool, turn: int | None, window: tuple[int, int] | None, color: bool | None) -> None:
    from treasure_cli.view import terminal as rp
    from treasure_cli.view.render import REDRAW, Renderer, terminal_screen, use_color

    if no_pause and turn is not None:
        raise click.UsageError("give either --no-pause or --turn, not both")
    tty = sys.stdout.isatty()
    renderer = Renderer(game.island, color=use_color(color, sys.stdout), window=window,
                        screen=terminal_screen() if tty else None)

    def echo(text: str = "", nl: bool = True) -> None:
        click.echo(text, nl=nl, color=True)  # the renderer already decided about colour

    if turn is not None:
        echo(rp.frame_of_turn(game, renderer, turn))
    elif no_pause:
        for index, frame in enumerate(rp.frames(game, renderer)):
            echo(("\n" if index else "") + frame)
    else:
        stdin = sys.stdin  # what CliRunner(input=...) feeds too; None when it was closed (<&-)
        def read_line() -> str:
            try:
                return stdin.readline() if stdin is not None else ""
            except (OSError, ValueError):  # a closed or broken standard input: the end of input
                return ""

        rp.watch(game, renderer, echo=echo, read_line=read_line, redraw=REDRAW if tty else None,
                 newline_after_input=stdin is None or not stdin.isatty())
