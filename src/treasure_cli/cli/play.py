"""`treasure play`: a person is the agent, at the keyboard (a game and a log like any agent's)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from treasure_cli.errors import TreasureError
from treasure_cli.formats.text import printable

if TYPE_CHECKING:
    from treasure_cli.rules.actions import Action
    from treasure_cli.rules.events import Event
    from treasure_cli.rules.game import Game
    from treasure_cli.rules.observation import Observation
    from treasure_cli.view.render import Renderer

KEYS = """\
your actions (two a turn; the teleport is free, once a game):
  n 2, e 1, s 4, w 3   move N/E/S/W that many tiles (1-2: then a 3x3 scan; 3-4: no scan)
  x                    scan the 5x5 square around you
  v 3                  verify hint 3 (is it true?)
  t 12 7               teleport to row 12, column 7
  ?                    these keys again;  q  give up (no log)
"""


class GaveUp(TreasureError):
    """The person left the game (q, or the end of their input)."""


class Person:
    """An agent whose every action is typed. It sees what any agent sees (`obs`) drawn as the
    replay draws it, without the treasure; an action the rules refuse is explained and asked again."""

    def __init__(self, game: Game, renderer: Renderer, echo: Callable[..., None], read_line: Callable[[], str]) -> None:
        self.game = game
        self.renderer = renderer
        self.echo = echo
        self.read_line = read_line
        self.seen: list[Event] = []  # the public events so far

    def act(self, obs: Observation) -> Action:
        from treasure_cli.formats.game_record import format_event
        from treasure_cli.view.steps import Replay

        self.seen += obs.news
        replay = Replay(obs.island, list(self.seen))  # the public island: no treasure to draw
        last = replay.last_step()
        shown = len(replay.step_events(last))
        for event in obs.news[:max(len(obs.news) - shown, 0)]:  # what happened before the frame's own step
            self.echo(printable("> " + format_event(event)))
        frame = self.renderer.frame(replay.state(last))
        # The frame of a game seen as the agent sees it: no title (its seed is not the agent's to
        # know), and a pirate not placed but unseen.
        frame = frame.replace("?\n", f"your game on {self.game.map_name}\n", 1).replace(
            "pirate: not placed yet", "pirate: not seen yet")
        self.echo(frame)
        while True:
            self.echo(f"turn {obs.turn}, action {3 - obs.actions_left} of 2 (? for the keys): ", nl=False)
            line = self.read_line()
            if not line:
                raise GaveUp("the input ended: the game is left unfinished, no log written")
            words = line.strip().lower().replace(",", " ").split()
            if not words:
                continue
            if words[0] in ("q", "quit"):
                raise GaveUp(f"you gave up on turn {obs.turn}: no log written")
            if words[0] in ("?", "h", "help"):
                self.echo(KEYS)
                continue
            try:
                action = parse_action(words)
                self.game.check(action)
            except (ValueError, TreasureError) as exc:
                message = getattr(exc, "message", str(exc))
                self.echo(printable(f"  not possible: {message}"))
                continue
            return action


def parse_action(words: list[str]) -> Action:
    """An action from what was typed (see KEYS); ValueError saying what is expected."""
    from treasure_cli.rules.actions import LargeScan, Move, Teleport, Verify
    from treasure_cli.rules.grid import Direction

    head, rest = words[0], words[1:]
    glued = re.fullmatch(r"([nesw])([0-9]+)", head)
    if glued:
        head, rest = glued[1], [glued[2], *rest]
    numbers = []
    for word in rest:
        if not word.isdigit():
            raise ValueError(f"{word!r} is not a number; ? shows the keys")
        numbers.append(int(word))
    if head in ("n", "e", "s", "w", "north", "east", "south", "west") and len(numbers) <= 1:
        steps = numbers[0] if numbers else 1
        if not 1 <= steps <= 4:
            raise ValueError("a move goes 1 to 4 tiles")
        return Move(Direction[head[0].upper()], steps)
    if head in ("x", "scan") and not numbers:
        return LargeScan()
    if head in ("v", "verify") and len(numbers) == 1:
        return Verify(numbers[0])
    if head in ("t", "teleport") and len(numbers) == 2:
        return Teleport((numbers[0], numbers[1]))
    raise ValueError(f"{' '.join(words)!r} is no action; ? shows the keys")


@click.command()
@click.argument("map_path", metavar="MAP", type=click.Path(exists=True, dir_okay=False))
@click.argument("output_dir", metavar="OUTPUT", type=click.Path(file_okay=False), required=False)
@click.option("--seed", default=0, show_default=True, type=int,
              help="Base seed: the game is the one `treasure run` plays on this map with this seed.")
@click.option("--truth-rate", default=0.5, show_default=True, type=click.FloatRange(0.0, 1.0),
              help="Chance that a hint (after the first) is true.")
@click.option("--max-turns", type=click.IntRange(min=1), help="Turn limit (default 4·(W+H)).")
@click.option("--color/--no-color", default=None, help="Colours (default: when the output is a terminal).")
def play(map_path: str, output_dir: str | None, seed: int, truth_rate: float, max_turns: int | None,
         color: bool | None) -> None:
    """Play one game yourself on MAP: you are the agent, at the keyboard.

    Each action is a line: a move (n 2, e 1, s 4, w 3), a scan (x), a
    verification (v 3), the teleport (t ROW COL); ? lists them, q gives up.
    You see what an agent sees: the map, the hints, what your scans ruled
    out, the pirate once he shows. With OUTPUT, the game's log is written
    there (LOG_<id>.txt, the agent named "person"), to replay it.

    \b
    Examples:
      treasure play input/MAP_01.txt
      treasure play input/MAP_02.txt mine/ --seed 3
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

    renderer = Renderer(island.public(), color=colour, screen=terminal_screen() if tty else None)
    echo(KEYS)
    person = Person(game, renderer, echo, read_line)
    events = list(play_agent(game, person))
    final = Replay(island, events)  # the truth now: where the treasure was
    echo(Renderer(island, color=colour, screen=terminal_screen() if tty else None).frame(final.state(final.last_step())))
    result = game.result
    assert result is not None
    echo(f"you {'won' if result.outcome.value == 'WIN' else 'lost'} on turn {result.turn}")
    if output_dir is not None:
        echo(f"wrote {write_log(Path(output_dir), path, events)}")
