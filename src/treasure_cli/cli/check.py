"""`treasure check`: validate map files."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from treasure_cli.errors import MapFormatError
from treasure_cli.formats.text import counted, printable
from treasure_cli.cli.options import (
    map_files,
)


# ---------------------------------------------------------------- check
@click.command()
@click.argument("inputs", nargs=-1, required=True, type=click.Path())
@click.option("--recursive", is_flag=True, help="With a folder: the maps of its subfolders too.")
def check(inputs: tuple[str, ...], recursive: bool = False) -> None:
    """Validate map files (or every *.txt in the given folders; with --recursive, in their subfolders too).

    Prints one `file:line:col: message` line per broken map and one `ok` line
    per valid one; warnings do not fail. Exit status 0 only if all are valid.

    \b
    Example:
      treasure check input/
      treasure check MAP_01.txt other/MAP_07.txt
      treasure check --recursive hidden/
    """
    from treasure_cli.formats.game_record import quote_name
    from treasure_cli.formats.map_file import read_map
    from treasure_cli.rules.game import unplayable

    # Each input on its own: a missing one is one more invalid entry, the rest are still checked.
    entries: list[Path | str] = []
    for item in inputs:
        try:
            entries.extend(map_files([item], recursive, only_maps=True))
        except click.ClickException as exc:
            entries.append(exc.message)
    if not entries:
        deeper = not recursive and any(Path(i).is_dir() and any(Path(i).rglob("*.txt")) for i in inputs)
        raise click.ClickException("no map files (*.txt) found in " + ", ".join(inputs)
                                   + (" (their subfolders hold some: give --recursive)" if deeper else ""))
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
        from treasure_cli.islands.style import map_style  # (numpy: not on the CLI's start-up)

        click.echo(printable(
            f"{quote_name(str(path))}: ok, {island.width}x{island.height} {map_style(island)}, "
            f"{len(island.land_regions)} land regions, "
            f"{len(island.prisons)} prisons, {int(island.mountain.sum())} mountain tiles, "
            f"r={island.reveal_turn} f={island.free_turn}, digest {island.digest}"
        ))
    if failed:
        click.echo(f"{failed} of {counted(len(entries), 'map')} invalid", err=True)
        sys.exit(1)
