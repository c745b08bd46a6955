"""A person as the agent: the keys, the actions typed, the frame they see (`treasure play`, in
the terminal and on its page)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

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

    def seen_frame(self, obs: Observation) -> str:
        """What the person sees before choosing: the news before the frame's own step, then the frame."""
        from treasure_cli.formats.game_record import format_event
        from treasure_cli.view.steps import Replay

        self.seen += obs.news
        replay = Replay(obs.island, list(self.seen))  # the public island: no treasure to draw
        last = replay.last_step()
        shown = len(replay.step_events(last))
        news = [printable("> " + format_event(event))  # what happened before the frame's own step
                for event in obs.news[:max(len(obs.news) - shown, 0)]]
        frame = self.renderer.frame(replay.state(last))
        # The frame of a game seen as the agent sees it: no title (its seed is not the agent's to
        # know), and a pirate not placed but unseen.
        frame = frame.replace("?\n", f"your game on {self.game.map_name}\n", 1).replace(
            "pirate: not placed yet", "pirate: not seen yet")
        return "\n".join([*news, frame])

    def act(self, obs: Observation) -> Action:
        self.echo(self.seen_frame(obs))
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
