"""The `treasure` command line: parse options, call the library, print.

Each command's docstring is its help text. Expected failures are
TreasureError and come out as `Error: ...` with a non-zero exit status.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import click

from treasure_cli import __version__
from treasure_cli.agents import agent_names
from treasure_cli.errors import MapFormatError, TreasureError
from treasure_cli.mapfile import read_map

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class _Group(click.Group):
    """Turns the library's TreasureError into `Error: ...` and exit status 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TreasureError as exc:
            raise click.ClickException(str(exc)) from exc


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


def main() -> None:
    """Console entry point."""
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
            click.echo(str(exc))
            continue
        for w in warnings:
            click.echo(w)
        click.echo(
            f"{path}: ok, {island.width}x{island.height}, {len(island.land_regions)} land regions, "
            f"{len(island.prisons)} prisons, {int(island.mountain.sum())} mountain tiles, "
            f"r={island.reveal_turn} f={island.free_turn}"
        )
    if failed:
        click.echo(f"{failed} of {len(paths)} maps invalid", err=True)
        sys.exit(1)


# ---------------------------------------------------------------- run
@cli.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(exists=True))
@click.argument("output_dir", metavar="OUTPUT", type=click.Path(file_okay=False), required=False)
@click.option("--agent", default="logic", show_default=True, help="Agent to play: " + ", ".join(agent_names()) + ".")
@click.option("--seed", default=0, show_default=True, type=int,
              help="Base seed; each map's seed is derived from it and the map's file name.")
@click.option("--truth-rate", default=0.5, show_default=True, type=click.FloatRange(0.0, 1.0),
              help="Chance that a hint (after the first) is true.")
@click.option("--max-turns", type=click.IntRange(min=1), help="Turn limit (default 4·(W+H)).")
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(min=1),
              help="Games played in parallel (logs are the same whatever the number).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON instead of a table.")
@click.option("--step", is_flag=True, help="Watch one game live, one step per Enter (INPUT must be one map).")
def run(input_path: str, output_dir: str | None, agent: str, seed: int, truth_rate: float,
        max_turns: int | None, jobs: int, as_json: bool, step: bool) -> None:
    """Play every map in INPUT and write OUTPUT/LOG_<id>.txt for each.

    INPUT is a folder (every *.txt map, in name order) or one map file. A map
    that cannot be read is reported and skipped; the others still run, and
    the exit status is 1 if any map failed.

    \b
    Examples:
      treasure run input/ output/
      treasure run input/ output/ --seed 7 --jobs 2 --json
      treasure run input/MAP_01.txt output/ --agent random
    """
    from treasure_cli.runner import RunOptions, run_maps

    if step:
        raise click.ClickException("--step is not available yet")
    if output_dir is None:
        raise click.UsageError("missing argument OUTPUT (the folder for the logs)")
    maps = map_files([input_path])
    if not maps:
        raise click.ClickException(f"no map files (*.txt) found in {input_path}")
    if agent not in agent_names():
        raise click.BadParameter(f"unknown agent {agent!r}; choose from {', '.join(agent_names())}",
                                 param_hint="--agent")
    options = RunOptions(agent=agent, base_seed=seed, truth_rate=truth_rate, max_turns=max_turns)
    show_progress = sys.stderr.isatty() and len(maps) > 1
    with click.progressbar(length=len(maps), label="playing", file=sys.stderr,
                           hidden=not show_progress) as bar:
        def progress(result):
            if result.error:
                click.echo(f"Error: {result.error}", err=True)
            for warning in result.warnings:
                click.echo(warning, err=True)
            bar.update(1)

        results = run_maps(maps, Path(output_dir), options, jobs=jobs, on_result=progress)
    if as_json:
        click.echo(json.dumps([dataclasses.asdict(r) for r in results], indent=2))
    else:
        click.echo(summary_table(results))
    if any(r.error for r in results):
        sys.exit(1)


def summary_table(results) -> str:
    """Fixed-width table: map, size, result, turns, seconds; then totals."""
    rows = [("map", "size", "result", "turns", "seconds")]
    for r in results:
        if r.error:
            rows.append((Path(r.map_path).name, "-", "ERROR", "-", "-"))
        else:
            result = r.outcome + (f" ({r.reason})" if r.reason != "found" else "")
            rows.append((Path(r.map_path).name, f"{r.width}x{r.height}", result, str(r.turns), f"{r.seconds:.3f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(w) if i < 3 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
             for row in rows]
    played = [r for r in results if not r.error]
    wins = sum(r.outcome == "WIN" for r in played)
    lines.append(f"{len(played)} played, {wins} won, {len(played) - wins} lost, {len(results) - len(played)} failed")
    return "\n".join(line.rstrip() for line in lines)

# ---------------------------------------------------------------- generate
# (owned by the map generator work: see generate.py)
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

    from treasure_cli.generate import generate_island
    from treasure_cli.mapfile import format_map, write_map

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
