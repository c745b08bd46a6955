"""The `treasure` command line: parse options, call the library, print.

Each command's docstring is its help text. Expected failures are
TreasureError and come out as `Error: ...` with a non-zero exit status.
The library is imported inside each command, so `--version` and `--help`
load neither numpy nor the engine.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

# Before numpy is imported (by any command, and by the workers a pool spawns, which inherit this):
# the game uses no linear algebra, and OpenBLAS starting a thread per core cost 70 ms of every
# command's start and 180 ms of CPU on a 2-core machine. A value the user set is kept.
for _variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

from treasure_cli import __version__  # noqa: E402
from treasure_cli.agents.registry import SPEC_HELP  # noqa: E402
from treasure_cli.errors import MapFormatError, OutputBusyError, TreasureError  # noqa: E402
from treasure_cli.formats.text import counted, printable  # noqa: E402

if TYPE_CHECKING:  # (imported where used: `treasure --version` loads no more than it needs)
    from treasure_cli.sandbox.levels import AgentLimits

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


def map_files(inputs: tuple[str, ...] | list[str], recursive: bool = False) -> list[Path]:
    """Expand files, folders (every *.txt in name order; with `recursive`, in subfolders too) and
    glob patterns (`hidden/**/*.txt`, quoted so the program expands them) into map paths."""
    import glob

    paths: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            found = p.rglob("*.txt") if recursive else p.iterdir()
            paths.extend(sorted(q for q in found if q.suffix == ".txt" and q.is_file()))
        elif p.exists():
            paths.append(p)
        elif glob.has_magic(item):
            matched = sorted(Path(q) for q in glob.glob(item, recursive=True) if Path(q).is_file())
            if not matched:
                raise click.ClickException(f"{item}: no file matches")
            paths.extend(matched)
        else:
            raise click.ClickException(f"{item}: no such file or folder")
    return paths


_MAPS_HELP = "a folder (its *.txt), one map file, or a quoted glob such as 'hidden/**/*.txt'"
_RECURSIVE = click.option("--recursive", is_flag=True, help="With a folder for --maps: its subfolders' maps too.")


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

    # Each input on its own: a missing one is one more invalid entry, the rest are still checked.
    entries: list[Path | str] = []
    for item in inputs:
        try:
            entries.extend(map_files([item]))
        except click.ClickException as exc:
            entries.append(exc.message)
    if not entries:
        raise click.ClickException("no map files (*.txt) found in " + ", ".join(inputs))
    if all(isinstance(e, str) for e in entries):  # no map at all: that is the error
        raise click.ClickException(str(entries[0]))
    failed = 0
    for path in entries:
        if isinstance(path, str):  # why an input gave no map
            failed += 1
            click.echo(printable(path))
            continue
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
        click.echo(f"{failed} of {counted(len(entries), 'map')} invalid", err=True)
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
    from treasure_cli.sandbox.levels import LEVELS

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


def hint_options(command):
    """--hints FILE.py (repeatable) and --hint-weights SPEC, handed to the command as one
    `hints` argument: the pirate's kinds (a HintSet, loaded and checked; None for the 15
    built-in kinds at their own weights). Any command that plays games takes it this way."""

    @functools.wraps(command)
    def with_hints(*args, hint_files: tuple[str, ...] = (), hint_weights: str | None = None, **kwargs):
        hints = None
        if hint_files or hint_weights:
            from treasure_cli.formats.hint_plugins import hint_set

            hints = hint_set(hint_files, hint_weights)
        return command(*args, hints=hints, **kwargs)

    with_hints = click.option(
        "--hint-weights", metavar="NAME=W,...",
        help="Weights of the hint kinds: a kind's name (built-in, from --hints, or an installed "
             "treasure_cli.hints entry point), or `builtin` for the 15 built-in kinds together; "
             "0 leaves a kind out. E.g. builtin=0 (plugin kinds only), near-mountain=2.")(with_hints)
    return click.option(
        "--hints", "hint_files", multiple=True, type=click.Path(exists=True, dir_okay=False), metavar="FILE.py",
        help="Add the hint kinds this Python file defines (trusted code: see docs/hints.md).")(with_hints)


def _load_hint_files(files: tuple[str, ...]) -> None:
    """`replay --hints`: make a log's plugin kinds known to the log reader."""
    if files:
        from treasure_cli.formats.hint_plugins import load_file

        for path in files:
            load_file(path)


def _isolation(asked: str, memory: int, action_timeout: float | None, specs) -> tuple[str, AgentLimits]:
    """The isolation level to use and the limits, said on stderr when an agent is not built in."""
    from treasure_cli.agents.registry import is_builtin, is_exec_spec
    from treasure_cli.sandbox.levels import AgentLimits, effective_level

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
                 "none": "in this process (--agent-isolation none: no protection)"}
        # With none, a program (exec:) still runs in a process of its own: it cannot run in ours.
        programs = [s for s in strangers if level == "none" and is_exec_spec(s)]
        others = [s for s in strangers if s not in programs]
        for group, at in ((others, level), (programs, "process")):
            if group:
                click.echo(printable(f"agents: {', '.join(group)} {where[at]}"), err=True)
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
              help="Base seed; each map's game seed is derived from it and the map's content (not its name).")
@click.option("--game-seed", type=click.IntRange(min=0), metavar="N",
              help="Play with exactly this game seed (one map): the seed a bench or tournament game shows.")
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
@click.option("--notes", is_flag=True,
              help="Ask the agent to explain each action (its explain()) and write its notes into the logs.")
@_isolation_options
@hint_options
def run(input_path: str, output_dir: str | None, agent: str, seed: int, game_seed: int | None, truth_rate: float,
        max_turns: int | None, game_timeout: float | None, jobs: int, naming: str, no_clobber: bool,
        as_json: bool, step: bool, no_pause: bool, turn: int | None, window: tuple[int, int] | None,
        color: bool | None, html_pages: bool = False, notes: bool = False, agent_isolation: str = "auto",
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
      treasure run input/ output/ --hints examples/hints/kinds.py --hint-weights builtin=0
      treasure run hidden/MAP_07.txt game/ --agent greedy --game-seed 4076398172520178431
    """
    from treasure_cli.play.runner import RunOptions, existing_logs, run_maps
    from treasure_cli.play.results import as_dict
    from treasure_cli.view.tables import run_table

    level, limits = _isolation(agent_isolation, agent_memory, action_timeout, [agent])
    options = RunOptions(agent=agent, base_seed=seed, truth_rate=truth_rate, max_turns=max_turns,
                         game_timeout=game_timeout, isolation=level, limits=limits, notes=notes, hints=hints,
                         game_seed=game_seed)
    if game_seed is not None and not Path(input_path).is_file():
        raise click.UsageError("--game-seed plays one game: INPUT must be one map file")
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
# (the generator itself: islands/generator.py)
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
@click.option("--style", type=click.Choice(["island", "maze"]), default="island", show_default=True,
              help="island: coast, lakes, mountain clusters; maze: corridors between walls of mountains.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the map to FILE instead of printing it.")
@click.option("--count", type=click.IntRange(min=1), metavar="K", help="Write K maps into --output-dir.")
@click.option("--output-dir", type=click.Path(file_okay=False), metavar="DIR", help="Folder for MAP_01.txt, MAP_02.txt, ...")
@click.option("--force", is_flag=True, help="Replace map files that already exist (refused otherwise).")
def generate(size, width, height, regions, prisons, mountains, reveal_turn, free_turn, seed, style, output, count,
             output_dir, force=False):
    """Generate random valid map files (same options and seed: same file).

    The island is surrounded by sea, every land region is one connected
    piece, mountains come in small clusters and the treasure can be reached
    by walking from every prison. With --count K and --output-dir DIR it
    writes DIR/MAP_01.txt .. MAP_K.txt; map k uses seed SEED + k - 1, so it
    is the same map as a single `--seed SEED+k-1` run. --style maze makes
    a maze: the walking distances are much longer than the straight ones.
    A map file that already exists is not replaced (nothing is written,
    and the command says which) unless --force is given.

    \b
    Example:
      treasure generate --size 32 --seed 7 -o MAP_x.txt
      treasure generate --size 32 --style maze --seed 3 -o MAZE.txt
      treasure generate --width 40 --height 24 --regions 12 --prisons 3
      treasure generate --size 64 --count 5 --seed 1 --output-dir maps/
    """
    # Imported here so other commands do not pay for them at start-up.
    import numpy as np

    from treasure_cli.islands.generator import generate_island
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
                reveal_turn=reveal_turn, free_turn=free_turn, style=style, rng=np.random.default_rng(map_seed),
            )
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None

    total = count or 1
    digits = max(2, len(str(total)))
    targets = ([Path(output)] if output is not None else [] if output_dir is None else
               [Path(output_dir) / f"MAP_{k:0{digits}d}.txt" for k in range(1, total + 1)])
    existing = [t for t in targets if t.exists()]
    if existing and not force:
        shown = ", ".join(str(t) for t in existing[:5]) + (f" and {len(existing) - 5} more" if len(existing) > 5 else "")
        raise Refusal(printable(f"{len(existing)} map file{'s' if len(existing) > 1 else ''} already exist"
                                f"{'s' if len(existing) == 1 else ''} ({shown}); nothing was written: give "
                                "another --output-dir, or --force to replace them"))
    if output_dir is None:
        island = make(seed)
        if output is None:
            click.echo(format_map(island), nl=False)
        else:
            write_map(island, output)
            click.echo(f"wrote {output}")
        return
    for k, path in enumerate(targets, start=1):
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


_SCHEDULER = click.option(
    "--scheduler", metavar="ADDRESS",
    help="Play the games on this Dask cluster (tcp://host:8786) instead of local processes "
         "(needs: pip install 'treasure-cli[dask]').")


@cli.command()
@click.option("--agents", default="logic,greedy,random", show_default=True, metavar="A,B,...",
              help=f"Agents to compare, comma-separated; each is {SPEC_HELP}.")
@click.option("--sizes", metavar="N,N,...", help="Square island sizes to generate [default: 16,32,64].")
@click.option("--maps", "maps_path", metavar="MAPS",
              help=f"Play these map files instead of generated islands: {_MAPS_HELP}.")
@_RECURSIVE
@click.option("--games", default=100, show_default=True, type=click.IntRange(min=1), metavar="N",
              help="Games per size (per map file with --maps).")
@click.option("--seed", type=int, metavar="S",
              help="Base seed; island i of size s and its game seed derive from (S, s, i) [default: 1].")
@click.option("--truth-rate", default=0.5, show_default=True, type=click.FloatRange(0.0, 1.0), callback=_finite,
              help="Chance that a hint (after the first) is true.")
@click.option("--reveal-turn", type=click.IntRange(min=1), metavar="R",
              help="Generated islands reveal the prison at turn R [default: random 2-4].")
@click.option("--free-turn", type=click.IntRange(min=1), metavar="F",
              help="Generated islands free the pirate at turn F (small F: harder) [default: r + (W+H)/8].")
@click.option("--style", type=click.Choice(["island", "maze"]), default="island", show_default=True,
              help="Generated islands' style (see `treasure generate --help`).")
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
@click.option("--keep-logs", "keep_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write the log of each game --keep chooses into DIR as <game id>.txt (a failed game, which "
                   "has no log: <game id>.failed.txt, why it failed).")
@click.option("--keep", type=click.Choice(["lost", "failed", "all"]), default="lost", show_default=True,
              help="With --keep-logs: the games not won, the failed ones, or all.")
@click.option("--versus", metavar="AGENT",
              help="With --keep-logs: list the games AGENT won and another agent lost, or lost and another won, "
                   "keep both logs of each and print the command that replays them side by side.")
@click.option("--notes", is_flag=True, help="With --keep-logs: the agents' notes (their explain()) in the logs kept.")
# `bench --db` before `treasure tournament` existed: still played, with a pointer (hidden from the help).
@click.option("--db", "db_path", type=click.Path(dir_okay=False), hidden=True)
@click.option("--report", is_flag=True, hidden=True)
@click.option("--all-versions", is_flag=True, hidden=True)
@click.option("--scheduler", hidden=True)
@_isolation_options
@hint_options
def bench(agents: str, sizes: str | None, maps_path: str | None, recursive: bool, games: int, seed: int | None,
          truth_rate: float, reveal_turn: int | None, free_turn: int | None, style: str, max_turns: int | None,
          game_timeout: float | None, jobs: int | None, as_json: bool, no_timing: bool, html_path: str | None = None,
          from_json: str | None = None, keep_dir: str | None = None, keep: str = "lost", versus: str | None = None,
          notes: bool = False, db_path: str | None = None,
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
    if (versus is not None or notes) and keep_dir is None:
        raise click.UsageError(f"{'--versus' if versus is not None else '--notes'} goes with --keep-logs DIR "
                               "(the logs it keeps)")
    if from_json is not None:
        _bench_report_from(from_json, html_path)
        return
    if report or all_versions:
        if not report:
            raise click.UsageError("--all-versions goes with --report")
        if html_path is not None:
            raise click.UsageError("the leaderboard's pages: treasure tournament --db RESULTS.sqlite --report "
                                   "--maps MAPS --html DIR")
        _leaderboard(db_path, all_versions, None if truth_rate == 0.5 else truth_rate, max_turns, game_timeout,
                     as_json, None, None, (None, False))
        return

    from treasure_cli.islands.generator import MAX_SIDE, MIN_SIDE
    from treasure_cli.play.bench import BenchOptions, run_bench, total_games

    names = tuple(_agent_spec(name, "--agents") for name in _csv(agents, "--agents"))
    maps: tuple[str, ...] = ()
    if maps_path is not None:
        if sizes is not None or reveal_turn is not None or free_turn is not None or style != "island":
            raise click.UsageError("--maps plays the given maps: do not combine it with "
                                   "--sizes, --reveal-turn, --free-turn or --style")
        maps = tuple(str(p) for p in map_files([maps_path], recursive))
        if not maps:
            raise click.ClickException(f"no map files (*.txt) found in {maps_path}")
    elif recursive:
        raise click.UsageError("--recursive goes with --maps")
    size_list = _csv("16,32,64" if sizes is None else sizes, "--sizes", int)
    if any(not MIN_SIDE <= s <= MAX_SIDE for s in size_list):
        raise click.BadParameter(f"sizes must be between {MIN_SIDE} and {MAX_SIDE}", param_hint="--sizes")
    names = tuple(dict.fromkeys(names))
    if versus is not None:
        versus = _agent_spec(versus, "--versus")
        if versus not in names or len(names) < 2:
            raise click.BadParameter(f"{versus!r} must be one of --agents, with another agent to play against",
                                     param_hint="--versus")
    level, limits = _isolation(agent_isolation, agent_memory, action_timeout, names)
    options = BenchOptions(agents=names, sizes=size_list, maps=maps, games=games,
                           seed=seed, truth_rate=truth_rate, reveal_turn=reveal_turn, free_turn=free_turn,
                           style=style, max_turns=max_turns, game_timeout=game_timeout, isolation=level, limits=limits,
                           keep=keep if keep_dir is not None else None, hints=hints, versus=versus, notes=notes)
    if db_path is not None or scheduler is not None:
        if keep_dir is not None:
            raise click.UsageError("--keep-logs goes with a plain bench")
        _play_tournament(options, db_path, jobs or os.cpu_count() or 1, scheduler, as_json, no_timing, html_path)
        return
    options = dataclasses.replace(options, seed=1 if seed is None else seed)  # reproducible for one's own agents
    with click.progressbar(length=total_games(options), label="benchmarking", file=sys.stderr,
                           hidden=not sys.stderr.isatty()) as bar:
        try:
            result = run_bench(options, jobs=jobs or os.cpu_count() or 1, on_progress=bar.update,
                               on_plan=lambda games: setattr(bar, "length", games),  # maps left out
                               keep_dir=None if keep_dir is None else Path(keep_dir))
        except TreasureError as exc:
            raise click.ClickException(str(exc)) from None
    if keep_dir is not None:
        n = sum(r.log is not None for r in result.records)
        click.echo(f"kept {counted(n, 'game')} in {keep_dir}", err=True)
    _show_bench(result, as_json, no_timing, html_path, f"{counted(len(result.records), 'game')} in {result.seconds:.1f} s")


def _show_bench(result, as_json: bool, no_timing: bool, html_path: str | None, footer: str) -> None:
    """Print a bench result (table or JSON, and the report page if asked); exit 1 if maps were left
    out or games failed (as `run` does)."""
    from treasure_cli.play.bench import versus_pairs, with_maps
    from treasure_cli.play.results import bench_json, versus_json
    from treasure_cli.view.tables import bench_table, failure_lines, versus_lines

    for problem in result.skipped:
        click.echo(printable(f"Error: {problem} (left out of the bench)"), err=True)
    for line in failure_lines(result.records):
        click.echo(printable(line), err=True)
    versus = result.options.versus
    pairs = versus_pairs(result.records, versus) if versus is not None else []
    if pairs and pairs[0].mine.log is not None:
        pairs = with_maps(pairs, result.options, Path(pairs[0].mine.log).parent)
    data = bench_json(result, not no_timing) if html_path is not None or as_json else None
    if data is not None and versus is not None:
        data["versus"] = versus_json(pairs)
    if html_path is not None:
        from treasure_cli.view.report import write_report

        write_report(data, html_path)  # type: ignore[arg-type]  # made when html_path is given
        click.echo(f"wrote {html_path}", err=True)
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(bench_table(result.stats, not no_timing))
        if not no_timing:
            click.echo(footer)
        if versus is not None:
            click.echo("\n" + "\n".join(printable(line) for line in versus_lines(pairs, versus)))
    if result.skipped or any(r.failed for r in result.records):
        sys.exit(1)


def _bench_report_from(json_path: str, html_path: str | None) -> None:
    """`bench --from-json`: the table of a run saved with --json again, or (--html) its report."""
    import types

    from treasure_cli.view.tables import bench_table
    from treasure_cli.view.report import write_report

    try:
        data = json.loads(Path(json_path).read_text(encoding="utf-8"))
        data["games"]  # noqa: B018 - the report needs it
        stats = [types.SimpleNamespace(**s) for s in data["stats"]]
        timed = all(hasattr(s, "median_ms_game") for s in stats)
        table = bench_table(stats, timed)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise click.ClickException(f"{json_path}: not a file written by `treasure bench --json` ({exc})") from None
    if html_path is None:
        click.echo(table)
        return
    click.echo(f"wrote {write_report(data, html_path)}")


# ---------------------------------------------------------------- tournament
# (the games: grading/tournament.py and grading/store.py; the submissions: grading/submissions.py;
#  the leaderboard's pages: view/leaderboard.py)
@cli.command()
@click.argument("submissions", nargs=-1, type=click.Path())
@click.option("--with", "extra", metavar="A,B,...",
              help=f"More agents to play, comma-separated (the built-ins, e.g. logic,greedy); each is {SPEC_HELP}.")
@click.option("--maps", "maps_path", metavar="MAPS", help=f"The maps to play: {_MAPS_HELP}.")
@_RECURSIVE
@click.option("--games", default=5, show_default=True, type=click.IntRange(min=1), metavar="N",
              help="Games per map file and agent.")
@click.option("--db", "db_path", required=True, type=click.Path(dir_okay=False), metavar="RESULTS.sqlite",
              help="The results store: every finished game is recorded here; a rerun plays only the games "
                   "it does not hold yet.")
@click.option("--seed", type=int, metavar="S",
              help="A known base seed instead of the store's own secret one (not for grading: an agent that "
                   "knows it can recompute each game's hidden draws).")
@click.option("--truth-rate", type=click.FloatRange(0.0, 1.0), callback=_finite,
              help="Chance that a hint (after the first) is true [default: 0.5; with --report: the store's].")
@click.option("--max-turns", type=click.IntRange(min=1), help="Turn limit (default 4·(W+H)).")
@_GAME_TIMEOUT
@click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N",
              help="Processes playing in parallel [default: number of CPUs]; results do not depend on it.")
@_SCHEDULER
@click.option("--json", "as_json", is_flag=True, help="Print every statistic and every game (or the ranking) as JSON.")
@click.option("--no-timing", is_flag=True, help="Leave out the timing columns (for diffs and tests).")
@click.option("--report", is_flag=True,
              help="Play nothing: rank the agents of --db by win % with paired sign tests (a table; "
                   "--json, --html DIR, --csv FILE).")
@click.option("--all-versions", is_flag=True,
              help="With --report: one row per version of an agent's code, not only its latest.")
@click.option("--html", "html_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="With --report: write the leaderboard into DIR (index.html, a page per agent, a replay page "
                   "per lost or failed game; needs --maps to replay the losses).")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), metavar="FILE.csv",
              help="With --report: write the gradebook (one row per student) as CSV.")
@click.option("--versus", metavar="AGENT",
              help="With --report: list the games AGENT (a student's name or an agent) won and another lost, "
                   "or lost and another won, each with the command that shows both side by side.")
@_isolation_options
@hint_options
def tournament(submissions: tuple[str, ...], extra: str | None, maps_path: str | None, recursive: bool, games: int,
               db_path: str, seed: int | None, truth_rate: float | None, max_turns: int | None,
               game_timeout: float | None, jobs: int | None, scheduler: str | None, as_json: bool, no_timing: bool,
               report: bool, all_versions: bool, html_dir: str | None, csv_path: str | None,
               versus: str | None = None, agent_isolation: str = "auto", agent_memory: int = 1 << 30,
               action_timeout: float | None = None, hints=None) -> None:
    """Play a class's submissions on the hidden maps into a results store, then rank them.

    SUBMISSIONS are folders of submissions or submissions themselves: a
    Python file with one agent class (a class with act(obs)), a student's
    folder (its agent.py, or its one Python file with an agent class, or its
    one executable program), or an executable program. Each student is
    named after the file or folder. Agents that are not built in play in a
    sandbox where bubblewrap runs (see --agent-isolation). The games are
    drawn from the store's own secret base seed; the same command again
    after a crash or Ctrl-C plays only the games the store does not hold.
    --report ranks the agents; every game has an id, and `treasure replay
    --db RESULTS.sqlite GAME_ID --maps MAPS` plays it again. A store keeps
    the hint kinds of its first run (--hints, --hint-weights; by default the
    15 built-in kinds) and refuses a run with others; replaying its games
    (--report --html, replay --db) takes the same --hints files. The exit
    status is 1 if any game failed.

    \b
    Examples:
      treasure tournament students/ --with logic,greedy --maps hidden/ --db results.sqlite
      treasure tournament students/ann.py students/bob/ --maps 'hidden/**/*.txt' --games 3 --db results.sqlite
      treasure tournament students/ --maps hidden/ --db results.sqlite --scheduler tcp://10.0.0.5:8786
      treasure tournament --db results.sqlite --report
      treasure tournament --db results.sqlite --report --maps hidden/ --html leaderboard/ --csv grades.csv
      treasure tournament students/ --maps hidden/ --db results.sqlite --hints kinds.py --hint-weights builtin=0
      treasure tournament --db results.sqlite --report --versus ann --maps hidden/
    """
    if report:
        if submissions or extra:
            raise click.UsageError("--report plays nothing: leave out the submissions and --with")
        _leaderboard(db_path, all_versions, truth_rate, max_turns, game_timeout, as_json, html_dir, csv_path,
                     (maps_path, recursive), agent_isolation, agent_memory, action_timeout, versus)
        return
    if all_versions or html_dir is not None or csv_path is not None:
        raise click.UsageError("--all-versions, --html and --csv go with --report")
    if versus is not None:
        raise click.UsageError("--versus goes with --report")
    from treasure_cli.errors import AgentLoadError
    from treasure_cli.play.bench import BenchOptions
    from treasure_cli.grading.submissions import find_submissions

    try:
        found, left_out = find_submissions(list(submissions))
    except AgentLoadError as exc:
        raise click.UsageError(str(exc)) from None
    for why in left_out:
        click.echo(printable(f"left out: {why}"), err=True)
    specs = [s.spec for s in found] + [_agent_spec(a, "--with") for a in (_csv(extra, "--with") if extra else ())]
    if not specs:
        raise click.UsageError("no agent to play: give submissions (files or folders) or --with logic,greedy")
    if len(set(specs)) < len(specs):
        raise click.UsageError("an agent is given twice")
    if maps_path is None:
        raise click.UsageError("give the maps to play with --maps DIR")
    maps = tuple(str(p) for p in map_files([maps_path], recursive))
    if not maps:
        raise click.ClickException(f"no map files (*.txt) found in {maps_path}")
    level, limits = _isolation(agent_isolation, agent_memory, action_timeout, specs)
    options = BenchOptions(agents=tuple(specs), maps=maps, games=games, seed=seed,
                           truth_rate=0.5 if truth_rate is None else truth_rate, max_turns=max_turns,
                           game_timeout=game_timeout, isolation=level, limits=limits, hints=hints)
    _play_tournament(options, db_path, jobs or os.cpu_count() or 1, scheduler, as_json, no_timing, None,
                     {s.spec: s.name for s in found})


def _play_tournament(options, db_path: str | None, jobs: int, scheduler: str | None, as_json: bool,
                     no_timing: bool, html_path: str | None, names: dict[str, str] | None = None) -> None:
    """Play the games the store does not hold yet, then show every game of the command."""
    from treasure_cli.agents.registry import is_builtin
    from treasure_cli.play.bench import BenchResult, summarize
    from treasure_cli.grading.tournament import as_record, run_tournament

    if db_path is None:
        raise click.UsageError("--scheduler plays a tournament into a results store: give --db RESULTS.sqlite")
    if not options.maps:
        raise click.UsageError("--db records games on map files: give --maps DIR")
    if options.seed is not None:
        click.echo(f"warning: --seed {options.seed} is known: a submitted agent that knows it can recompute each "
                   "game's hidden draws; leave it out to grade with the store's secret seed", err=True)
    if scheduler is not None and options.game_timeout is not None and options.isolation == "none" and not all(
            is_builtin(a) for a in options.agents):
        raise click.UsageError("--game-timeout needs agents in processes of their own with --scheduler (Dask "
                               "plays games in worker threads, where nothing can interrupt an agent in the "
                               "same process): drop --agent-isolation none")
    bar_box: list = []
    counts = {"already": 0, "to play": 0, "played": 0}

    def plan(to_play: int, already: int) -> None:
        counts.update({"already": already, "to play": to_play})
        if already:
            click.echo(f"{already} game{'s' if already != 1 else ''} already in {db_path}; "
                       f"{to_play} to play", err=True)
        bar_box.append(click.progressbar(length=to_play, label="playing", file=sys.stderr,
                                         hidden=not sys.stderr.isatty()))
        bar_box[0].__enter__()

    def progress(n: int) -> None:
        counts["played"] += n
        bar_box[0].update(n)

    try:
        result = run_tournament(options, db_path, jobs=jobs, scheduler=scheduler, on_plan=plan,
                                on_progress=progress, names=names)
    except (KeyboardInterrupt, Terminated):
        if bar_box:  # the games played are in the store, each whole: say so, and how to go on
            click.echo(f"\nstopped: {counts['played']} of {counted(counts['to play'], 'game')} played and kept in "
                       f"{db_path} ({counts['already'] + counts['played']} in all); the same command plays the rest",
                       err=True)
        raise
    finally:
        if bar_box:
            bar_box[0].__exit__(None, None, None)
    if options.seed is None and not result.secret_seed:
        click.echo(f"warning: {db_path} holds games of an earlier version, played from the known base seed 1; "
                   "start a new store to grade with a secret seed", err=True)
    records = tuple(as_record(r) for r in result.rows)
    labels = tuple(dict.fromkeys(r.agent for r in records))
    bench_result = BenchResult(result.options, tuple(summarize(records, labels)), records,
                               result.seconds, result.skipped)
    _show_bench(bench_result, as_json, no_timing, html_path,
                f"{counted(result.played, 'game')} played in {result.seconds:.1f} s, {result.already} already in {db_path}")


def _leaderboard(db_path: str | None, all_versions: bool, truth_rate: float | None, max_turns: int | None,
                 game_timeout: float | None, as_json: bool, html_dir: str | None, csv_path: str | None,
                 maps: tuple[str | None, bool] = (None, False), agent_isolation: str = "auto",
                 agent_memory: int = 1 << 30, action_timeout: float | None = None, versus: str | None = None) -> None:
    """`tournament --report`: rank the agents of a results store (table, JSON, pages, CSV), and
    with `versus` its head-to-head games."""
    from treasure_cli.play.records import settings_key
    from treasure_cli.view.tables import leaderboard_table
    from treasure_cli.grading.tournament import leaderboard_json, store_leaderboard

    if db_path is None:
        raise click.UsageError("--report ranks the games of a results store: give --db RESULTS.sqlite")
    given = truth_rate is not None or max_turns is not None or game_timeout is not None
    settings = settings_key(0.5 if truth_rate is None else truth_rate, max_turns, game_timeout) if given else None
    board = store_leaderboard(db_path, settings, all_versions)
    pairs = _stored_versus(board, versus, db_path, maps[0]) if versus is not None else None
    board, notes = _with_similarity_flags(board)
    for note in notes:
        click.echo(printable(f"similarity: {note}"), err=True)
    if csv_path is not None:
        from treasure_cli.grading.tournament import write_gradebook

        click.echo(f"wrote {write_gradebook(board, csv_path)}", err=True)
    if html_dir is not None:
        from treasure_cli.view.leaderboard import write_leaderboard

        maps_path, recursive = maps
        map_paths = [str(p) for p in map_files([maps_path], recursive)] if maps_path is not None else []
        if maps_path is None:
            click.echo("warning: without --maps the lost games have no replay page (give the tournament's maps)",
                       err=True)
        level, limits = (_isolation(agent_isolation, agent_memory, action_timeout, [s.spec for s in board.standings])
                         if map_paths else ("auto", None))  # nothing is played again without the maps
        index = write_leaderboard(board, db_path, Path(html_dir), map_paths, level, limits,
                                  on_replay=lambda done, total: None)
        click.echo(f"wrote {index}", err=True)
    if as_json:
        data = leaderboard_json(board)
        if pairs is not None:
            from treasure_cli.play.results import versus_json

            data["versus"] = versus_json(pairs[0], pairs[1])
        click.echo(json.dumps(data, indent=2))
    else:
        from treasure_cli.view.tables import failure_lines
        from treasure_cli.grading.tournament import as_record

        click.echo(printable(leaderboard_table(board)))
        failures = failure_lines([as_record(r, board.labels.get(r.id or 0)) for r in board.rows
                                  if (r.id or 0) in board.labels])
        if failures:
            click.echo("\nfailed games:\n" + "\n".join(printable(line) for line in failures))
        if pairs is not None and versus is not None:
            from treasure_cli.view.tables import versus_lines

            click.echo("\n" + "\n".join(printable(line) for line in versus_lines(pairs[0], versus, pairs[1])))


def _stored_versus(board, versus: str, db_path: str, maps_path: str | None):
    """`tournament --report --versus`: the head-to-head pairs of a store's games, and how a pair is
    shown (`replay --db` of both ids; the maps named as given, else MAPS to fill in)."""
    import shlex

    from treasure_cli.play.bench import versus_pairs
    from treasure_cli.grading.tournament import as_record

    records = [as_record(r, board.labels.get(r.id or 0)) for r in board.rows if (r.id or 0) in board.labels]
    if versus not in {r.agent for r in records}:
        raise click.BadParameter(f"{versus!r} has no game in {db_path} (give a student's name or an agent as the "
                                 "report names it)", param_hint="--versus")
    maps = maps_path if maps_path is not None else "MAPS"

    def command(pair) -> str:
        ids = (pair.mine.game_id, pair.other.game_id)
        return " ".join(shlex.quote(w) for w in ("treasure", "replay", "--db", db_path, *ids, "--maps", maps,
                                                 "--html", f"{ids[0]}-vs-{ids[1]}.html"))

    return versus_pairs(records, versus), command


def _with_similarity_flags(board):
    """The leaderboard with its similarity flags (grading/similarity.py), one per pair of agents, which
    the table, --json, the CSV and the pages show; and the notes on code that could not be compared."""
    import itertools

    from treasure_cli.grading import similarity
    from treasure_cli.grading.tournament import Flag

    found, notes = similarity.findings(board.rows, board.labels)
    pairs = tuple(Flag(a, b, similarity.KIND_WORDS[f.kind], f.evidence)
                  for f in found for a, b in itertools.combinations(f.agents, 2))
    return dataclasses.replace(board, flags=pairs), notes


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
                   "action; an agent in a process of its own is stopped there even if it never answers).")
@click.option("--seed", default=0, show_default=True, type=int, metavar="S", help="Seed of the games.")
@click.option("--game-timeout", default=30.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              metavar="SECONDS", help="A game still running after SECONDS fails the check.")
@click.option("--beliefs", is_flag=True,
              help="Ask for the agent's notes (its explain()) and fail a game at the first turn its "
                   "declared candidates leave out the treasure's tile.")
@click.option("--keep-logs", "keep_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write each game played to the end into DIR, its map beside its log (with the notes "
                   "under --beliefs), to look at it with treasure replay.")
@_isolation_options
@hint_options
def check_agent_command(spec: str, games: int, sizes: str | None, maps_path: str | None,
                        max_action_ms: float | None, seed: int, game_timeout: float, beliefs: bool = False,
                        keep_dir: str | None = None, agent_isolation: str = "auto", agent_memory: int = 1 << 30,
                        action_timeout: float | None = None, hints=None) -> None:
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
      treasure check-agent my_agent.py:MyAgent --beliefs --keep-logs checked/
      treasure check-agent examples/densest_scan.py:DensestScan --hints examples/hints/kinds.py
    """
    from treasure_cli.islands.generator import MAX_SIDE, MIN_SIDE
    from treasure_cli.grading.conformance import SIZES, check_agent, read_maps

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
    keep = None
    if keep_dir is not None:
        from treasure_cli.formats.atomic import ensure_folder

        keep = Path(keep_dir)
        ensure_folder(keep)
    total = games + len(maps)
    with click.progressbar(length=total, label="checking", file=sys.stderr, hidden=not sys.stderr.isatty(),
                           item_show_func=lambda where: where) as bar:
        def progress(done: int, total: int, where: str) -> None:
            bar.update(done - bar.pos, where)
            if done == 0:
                bar.render_progress()  # no step yet: show the first game's name all the same

        checks = check_agent(spec, games=games, seed=seed, game_timeout=game_timeout, isolation=level,
                             limits=limits, sizes=size_list, maps=maps, max_action_ms=max_action_ms,
                             beliefs=beliefs, hints=hints, on_game=progress, keep=keep)
        bar.update(total - bar.pos, "")
    for check in checks:
        # printable: a detail quotes the agent (its exception, what it printed), which must not
        # reach the terminal as control characters (a carriage return could overwrite the FAIL)
        click.echo(printable(f"{'ok  ' if check.ok else 'FAIL'}  {check.name}: {check.detail}"))
    if not all(check.ok for check in checks):
        sys.exit(1)


# ---------------------------------------------------------------- replay
@cli.command("replay")
@click.argument("log_paths", metavar="LOG|GAME_ID [LOG2]", nargs=-1, required=True)
@click.option("--map", "map_path", type=click.Path(dir_okay=False), metavar="MAP",
              help="The map file [default: the path recorded in the log, tried as it is, "
                   "from the log's folder and from its parent].")
@_view_options
@click.option("--html", "html_path", type=click.Path(dir_okay=False), metavar="PAGE.html",
              help="Write the game as one self-contained web page instead of showing it.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False), metavar="FILE.svg",
              help="Write one frame (--turn N's first step; default the last step) as an SVG picture.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), metavar="RESULTS.sqlite",
              help="Play the game GAME_ID of this results store again, exactly (give --maps).")
@click.option("--maps", "maps_path", metavar="MAPS",
              help=f"With --db: where the game's map is found by its content: {_MAPS_HELP}.")
@_RECURSIVE
@click.option("--log", "log_out", type=click.Path(dir_okay=False), metavar="LOG.txt",
              help="With --db: also write the game's log (the same text as `bench --keep-logs` writes).")
@_isolation_options
@click.option("--hints", "hint_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              metavar="FILE.py", help="The file of hint kinds the game was played with (for a log naming them).")
def replay_command(log_paths: tuple[str, ...], map_path: str | None, no_pause: bool, turn: int | None,
                   window: tuple[int, int] | None, color: bool | None, html_path: str | None = None,
                   svg_path: str | None = None, db_path: str | None = None, maps_path: str | None = None,
                   recursive: bool = False, log_out: str | None = None, agent_isolation: str = "auto",
                   agent_memory: int = 1 << 30, action_timeout: float | None = None, hint_files: tuple[str, ...] = ()) -> None:
    """Step through a game log on the map, one step per Enter.

    Keys (each followed by Enter): nothing = next step, b = back one step,
    a number = go to that turn, n = hide or show the agent's tiles (a game
    logged with --notes), q = quit. The frame shows the island, the
    agent (A), the pirate (X, once the agent knows where he is), the treasure
    ($), the tiles the agent has ruled out (.), this step's scan (#) or hint
    (+), and the step's log lines. Big maps show a window that follows the
    agent.

    With --db, the argument is a game id from a tournament's report: the
    game is played again from the store (its map found by content under
    --maps, its seed, its agent), refused if the agent's code has changed
    since, and shown the same way.

    Two logs of one game (the same map and seed, two agents, as `bench
    --versus` keeps them), or with --db two game ids of one map and seed
    (as `tournament --report --versus` lists them), are compared on one
    page, side by side and stepping together: give --html.

    \b
    Examples:
      treasure replay output/LOG_01.txt
      treasure replay output/LOG_05.txt --window 30x60
      treasure replay LOG_01.txt --map input/MAP_01.txt --no-pause --no-color > frames.txt
      treasure replay output/LOG_02.txt --turn 2
      treasure replay output/LOG_01.txt --html game.html
      treasure replay output/LOG_02.txt --turn 2 --svg turn2.svg
      treasure replay output/LOG_01.txt --hints examples/hints/kinds.py
      treasure replay --db results.sqlite 3f9a0c2d71b4 --maps hidden/ --html game.html
      treasure replay logic/LOG_01.txt greedy/LOG_01.txt --html compare.html
      treasure replay --db results.sqlite 3f9a0c2d71b4 77b2e0c4a1d9 --maps hidden/ --html compare.html
    """
    _load_hint_files(hint_files)
    if len(log_paths) > 2:
        raise click.UsageError("give one log (or game id), or two logs of the same game to compare")
    if len(log_paths) == 2:
        _compare(log_paths, map_path, html_path, svg_path, db_path, maps_path, recursive, log_out,
                 (agent_isolation, agent_memory, action_timeout))
        return
    log_path = log_paths[0]
    if db_path is not None:
        game = _stored_game(log_path, db_path, maps_path, recursive, log_out, agent_isolation, agent_memory,
                            action_timeout)
    else:
        if maps_path is not None or log_out is not None:
            raise click.UsageError("--maps and --log go with --db")
        from treasure_cli.view.sources import open_log

        game = open_log(log_path, map_path)
    if html_path is not None or svg_path is not None:
        _export(game, html_path, svg_path, turn)
        return
    _show(game, no_pause, turn, window, color)


def _compare(log_paths: tuple[str, ...], map_path: str | None, html_path: str | None, svg_path: str | None,
             db_path: str | None, maps_path: str | None, recursive: bool, log_out: str | None,
             isolation: tuple[str, int, float | None]) -> None:
    """`replay A B --html PAGE`: two logs (or, with --db, two stored games) of one game on one page.
    The terminal shows one game at a time."""
    from treasure_cli.view.page import write_compare
    from treasure_cli.view.sources import open_log

    if html_path is None or svg_path is not None:
        raise click.UsageError("two games are compared on a page: give --html PAGE.html (the terminal and "
                               "--svg show one game; replay each on its own)")
    if log_out is not None:
        raise click.UsageError("--log writes the log of one stored game")
    if db_path is not None:
        games = [_stored_game(game, db_path, maps_path, recursive, None, *isolation) for game in log_paths]
    else:
        if maps_path is not None:
            raise click.UsageError("--maps goes with --db")
        games = [open_log(path, map_path) for path in log_paths]
    click.echo(f"wrote {write_compare(games[0], games[1], html_path)}")


def _stored_game(game_id: str, db_path: str, maps_path: str | None, recursive: bool, log_out: str | None,
                 agent_isolation: str, agent_memory: int, action_timeout: float | None):
    """`replay --db`: a stored game played again, as a Replay (its log written if asked)."""
    import shlex

    from treasure_cli.formats.atomic import write_text_atomic
    from treasure_cli.formats.game_record import format_log
    from treasure_cli.grading.tournament import find_game, maps_by_digest, rebuild_game, same_result
    from treasure_cli.view.steps import Replay

    if maps_path is None:
        raise click.UsageError("--db plays the game again on its map: give the tournament's maps with --maps")
    row = find_game(db_path, game_id)
    level, limits = _isolation(agent_isolation, agent_memory, action_timeout, [row.agent])
    maps = maps_by_digest(map_files([maps_path], recursive))
    island, record, events = rebuild_game(row, maps, level, limits)
    if events is None:
        raise click.ClickException(printable(f"game {row.game_id} failed again: {record.error}"))
    if not same_result(row, record):
        click.echo(f"warning: game {row.game_id} is stored as {row.outcome} on turn {row.turns}, and ended as "
                   f"{record.outcome} on turn {record.turns} when played again: the agent does not play the same "
                   "game from the same seed", err=True)
    if log_out is not None:
        write_text_atomic(Path(log_out), format_log(events))
        # The log names its map by file name, as the tournament's kept logs do: say where it is.
        again = shlex.join(["treasure", "replay", log_out, "--map", maps[row.map_digest]])
        click.echo(printable(f"wrote {log_out} (replay it with: {again})"), err=True)
    return Replay(island, events)


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
