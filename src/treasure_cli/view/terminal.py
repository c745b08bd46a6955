"""The terminal driver: frames one after another, one frame, or a key-driven loop."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from treasure_cli.view.render import Renderer
from treasure_cli.view.steps import Replay


PROMPT = "[Enter] next step  [b] back  [number] go to that turn{tiles}  [q] quit: "
END_PROMPT = "game over.  [Enter] or [q] quit  [b] back  [number] go to that turn{tiles}: "
TILES_KEY = "  [n] the agent's tiles"  # in the prompts at a step that has some (a game logged with --notes)


def frames(replay: Replay, renderer: Renderer) -> Iterator[str]:
    """Every frame of the game, in order (--no-pause)."""
    index = 0
    while replay.has_step(index):
        yield renderer.frame(replay.state(index))
        index += 1


def frame_of_turn(replay: Replay, renderer: Renderer, turn: int) -> str:
    """The frame of the first step of `turn` (--turn N; 0 is the setup)."""
    return renderer.frame(replay.state(replay.first_step_of(turn)))


def watch(replay: Replay, renderer: Renderer, *, echo: Callable[..., None], read_line: Callable[[], str],
          redraw: str | None = None, newline_after_input: bool = False) -> int:
    """The interactive loop: one frame, one line of input. Returns the step it stopped on.

    `redraw` is written before each frame to draw it in place on a terminal
    (None prints frames one after another). Input is whole lines, so it works
    the same from a keyboard, a pipe or a test; end of input quits.
    """
    index, message = 0, ""
    while True:
        state = replay.state(index)
        frame = renderer.frame(state)
        at_end = replay.is_last(index)
        echo((redraw or "") + frame)
        if message:
            echo(message)
        echo((END_PROMPT if at_end else PROMPT).format(tiles=TILES_KEY if state.belief is not None else ""), nl=False)
        line = read_line()
        if newline_after_input or not line:
            echo("")  # end the prompt line: nobody's Enter did it
        key, message = line.strip().lower(), ""
        if not line or key in ("q", "quit") or (key == "" and at_end):
            return index
        if key == "":
            index += 1
        elif key == "b":
            if index == 0:
                message = "this is the first step"
            index = max(0, index - 1)
        elif key == "n":
            renderer.beliefs = not renderer.beliefs
            message = "the agent's tiles are " + ("shown" if renderer.beliefs else "hidden")
        elif key.isascii() and key.isdigit():  # ASCII: "²".isdigit() is true too
            target = replay.step_of_turn(int(key)) if len(key) <= 9 else None
            if target is None:
                message = f"there is no turn {key}: the game ended on turn {replay.last_turn()}"
            else:
                index = target
                renderer.reset()
        else:
            message = f"unknown key {line.strip()!r}: press Enter, b, n, a turn number or q"
