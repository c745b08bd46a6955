"""A game in the terminal, frame by frame: `replay` and `run --step`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from treasure_cli.errors import TreasureError
from treasure_cli.formats.text import one_line, printable
from treasure_cli.cli.options import (
    Refusal,
)


def watch_map(map_path: Path, output_dir: str | None, options, no_pause: bool, turn: int | None,
               window: tuple[int, int] | None, color: bool | None, naming: str = "id",
               no_clobber: bool = False) -> None:
    """`run --step`: play one map while watching it; write its log too when OUTPUT is given."""
    from treasure_cli.play.runner import existing_logs, write_log
    from treasure_cli.view.sources import live_game

    if not map_path.is_file():
        raise click.UsageError("--step watches one game: INPUT must be a map file, not a folder")
    if output_dir is not None:
        try:
            replaced = existing_logs([map_path], Path(output_dir), naming)  # refused if its log would replace a map
        except TreasureError as exc:
            raise Refusal(str(exc)) from None
        if replaced and no_clobber:
            raise Refusal(one_line(f"--no-clobber: {output_dir} already holds the log of {map_path}; nothing was "
                                   "played"))
    warnings: list[str] = []
    game = live_game(map_path, options, warnings)
    for warning in warnings:
        click.echo(printable(warning), err=True)
    show_game(game, no_pause, turn, window, color)
    if output_dir is not None:
        target = write_log(Path(output_dir), map_path, game.finish(), naming)  # the rest is played unseen
        click.echo(f"wrote {target}")


def show_game(game, no_pause: bool, turn: int | None, window: tuple[int, int] | None, color: bool | None) -> None:
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
