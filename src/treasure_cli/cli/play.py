"""`treasure play`: a person is the agent, at the keyboard (a game and a log like any agent's)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from treasure_cli.view.person import KEYS, GaveUp, Person
from treasure_cli.formats.text import printable

if TYPE_CHECKING:
    from treasure_cli.rules.game import Game
    from treasure_cli.rules.island import Island


@click.command()
@click.argument("map_path", metavar="MAP", type=click.Path(exists=True, dir_okay=False))
@click.argument("output_dir", metavar="OUTPUT", type=click.Path(file_okay=False), required=False)
@click.option("--seed", default=0, show_default=True, type=int,
              help="Base seed: the game is the one `treasure run` plays on this map with this seed.")
@click.option("--truth-rate", default=0.5, show_default=True, type=click.FloatRange(0.0, 1.0),
              help="Chance that a hint (after the first) is true.")
@click.option("--max-turns", type=click.IntRange(min=1), help="Turn limit (default 4·(W+H)).")
@click.option("--color/--no-color", default=None, help="Colours (default: when the output is a terminal).")
@click.option("--serve", is_flag=True,
              help="Play on a page instead: serve it on 127.0.0.1 (a free port, printed) to open in a browser; "
                   "the server stops when the game ends or on Ctrl-C.")
def play(map_path: str, output_dir: str | None, seed: int, truth_rate: float, max_turns: int | None,
         color: bool | None, serve: bool = False) -> None:
    """Play one game yourself on MAP: you are the agent, at the keyboard.

    Each action is a line: a move (n 2, e 1, s 4, w 3), a scan (x), a
    verification (v 3), the teleport (t ROW COL); ? lists them, q gives up.
    You see what an agent sees: the map, the hints, what your scans ruled
    out, the pirate once he shows. With OUTPUT, the game's log is written
    there (LOG_<id>.txt, the agent named "person"), to replay it. With
    --serve, the same game is played on a page: open the address it prints
    (this machine only), click or use the arrow keys and x.

    \b
    Examples:
      treasure play input/MAP_01.txt
      treasure play input/MAP_02.txt mine/ --seed 3
      treasure play input/MAP_01.txt mine/ --serve
    """
    from treasure_cli.formats.map_file import read_map
    from treasure_cli.play.loop import play_agent
    from treasure_cli.play.runner import RunOptions, game_seed, map_label, write_log
    from treasure_cli.rules.game import Game
    from treasure_cli.view.render import Renderer, terminal_screen, use_color
    from treasure_cli.view.steps import Replay

    path = Path(map_path)
    warnings: list[str] = []
    island = read_map(path, warnings)
    for warning in warnings:
        click.echo(printable(warning), err=True)
    options = RunOptions(agent="person", base_seed=seed, truth_rate=truth_rate, max_turns=max_turns)
    game = Game(island, game_seed(island, options), agent_name="person", map_name=map_label(path),
                truth_rate=truth_rate, max_turns=max_turns)
    tty = sys.stdout.isatty()
    colour = use_color(color, sys.stdout)

    def echo(text: str = "", nl: bool = True) -> None:
        click.echo(text, nl=nl, color=True)

    def read_line() -> str:
        stdin = sys.stdin
        try:
            line = stdin.readline() if stdin is not None else ""
        except (OSError, ValueError):
            return ""
        if stdin is None or not stdin.isatty():
            echo("")  # the typed line's own newline, which a pipe does not echo
        return line

    if serve:
        _play_on_page(game, island, path, output_dir, echo)
        return
    renderer = Renderer(island.public(), color=colour, screen=terminal_screen() if tty else None)
    echo(KEYS)
    person = Person(game, renderer, echo, read_line)
    events = list(play_agent(game, person))
    final = Replay(island, events)  # the truth now: where the treasure was
    echo(Renderer(island, color=colour, screen=terminal_screen() if tty else None).frame(final.state(final.last_step())))
    echo(_outcome(game))
    if output_dir is not None:
        echo(f"wrote {write_log(Path(output_dir), path, events)}")


def _outcome(game: Game) -> str:
    result = game.result
    assert result is not None
    return f"you {'won' if result.outcome.value == 'WIN' else 'lost'} on turn {result.turn}"


def _play_on_page(game: Game, island: Island, path: Path, output_dir: str | None,
                  echo: Callable[..., None]) -> None:
    """`play --serve`: the same game, its actions from the page (view/play_page.py)."""
    from treasure_cli.view.play_page import PagePerson
    from treasure_cli.play.loop import play_agent
    from treasure_cli.play.runner import write_log
    from treasure_cli.view.page import frame_svg
    from treasure_cli.view.render import Renderer
    from treasure_cli.view.steps import Replay

    person = PagePerson(game, Renderer(island.public(), color=False), echo)
    try:
        echo(f"play on the page: {person.url} (Ctrl-C stops)")
        try:
            events = list(play_agent(game, person))
        except KeyboardInterrupt:
            raise GaveUp("stopped: the game is left unfinished, no log written") from None
        final = Replay(island, events)
        message = _outcome(game)
        echo(message)
        if output_dir is not None:
            written = write_log(Path(output_dir), path, events)
            echo(f"wrote {written}")
            message += f"; the log: {written}"
        frame = Renderer(island, color=False).frame(final.state(final.last_step()))
        try:
            person.finish(frame, frame_svg(final, final.last_step()), message)
        except KeyboardInterrupt:
            pass
    finally:
        person.close()
