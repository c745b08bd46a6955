"""The `treasure` command line: parse options, call the library, print.

Each command's docstring is its help text. Expected failures are
TreasureError and come out as `Error: ...` with a non-zero exit status.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from treasure_cli import __version__
from treasure_cli.errors import MapFormatError, TreasureError
from treasure_cli.mapfile import read_map

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
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


# ---------------------------------------------------------------- generate
# (owned by the map generator work: see generate.py)
