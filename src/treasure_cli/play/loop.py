"""The loop that asks an agent for actions: the game itself knows no agent (`rules.game`)."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import numpy as np

from treasure_cli.errors import AgentCrashError, TreasureError
from treasure_cli.rules import seeds
from treasure_cli.rules.events import AgentNoted, Event, TileSet
from treasure_cli.rules.game import Game
from treasure_cli.rules.observation import Agent, Note


def play_agent(game: Game, agent: Agent, *, notes: bool = False) -> Iterator[Event]:
    """Play `game` (not yet started) to its end with `agent`, yielding every event.

    The agent's `reset(seed)`, if it has one, is called first with the seed derived from the
    game's. An exception from the agent's own code ends the game as AgentCrashError (chained to
    it); an illegal action raises the game's IllegalActionError. With `notes`, the agent's
    `explain()`, if it has one, is called after each action and its Note comes as an
    AgentNoted event before the action's events.
    """
    explain = getattr(agent, "explain", None) if notes else None
    last: list[TileSet | None] = [None]  # the latest note's tiles (a TileSet)
    reset = getattr(agent, "reset", None)
    if reset is not None:
        try:
            reset(seeds.agent_seed(game.seed))
        except TreasureError:
            raise
        except Exception as exc:
            raise _crash(game, exc) from exc
    yield from game.start()
    act, observe, step = agent.act, game.observe, game.step
    height, width = game.island.shape
    while game.result is None:
        obs = observe()  # outside the try: only the agent's own code is its failure
        try:
            action = act(obs)
            note = explain() if explain is not None else None
            noted = note_event(game.turn, note, width, height, last) if note else None
        except TreasureError:
            raise
        except Exception as exc:
            raise _crash(game, exc) from exc
        if noted is not None:
            yield noted
        yield from step(action)


NOTE_CHARS = 2000        # a note's text is cut there
NOTE_TILE_CHARS = 60000  # a note's tiles as the log writes them; more, and they are not kept


def note_event(turn: int, note: object, width: int, height: int, last: list[TileSet | None] | None = None) -> AgentNoted:
    """An agent's Note as the event a log keeps: its text on one line, its tiles as a mask.
    TypeError or ValueError (the agent's fault) for anything else.

    `last` holds the previous note's tiles ([TileSet or None], updated here):
    tiles equal to them are left out, since a note without tiles keeps the latest ones
    shown. Most actions change no candidate, and writing the same tiles again was most of
    what notes cost.
    """
    if type(note) is not Note and not isinstance(note, Note):
        raise TypeError(f"explain() must return a Note or None, not {type(note).__name__}")
    text = note.text
    if type(text) is not str or "\n" in text:
        text = " ".join(str(text).split())
    if len(text) > NOTE_CHARS:
        text = text[:NOTE_CHARS]
    tiles, candidates = note.tiles, bool(note.candidates)
    if tiles is None:
        return AgentNoted(turn, text)
    if last is not None and tiles is last[0] and tiles.candidates is candidates:
        return AgentNoted(turn, text)  # the very TileSet the last tiles written were: checked then
    if isinstance(tiles, TileSet):  # packed by the agent: kept as it is while it shows the same ones
        if type(tiles.bits) is not bytes or len(tiles.bits) != (width * height + 7) // 8:
            raise ValueError(f"a note's TileSet must hold the {width}x{height} map's tiles")
        shown = tiles if tiles.candidates == candidates else TileSet(tiles.bits, candidates)
        return _noted(turn, text, shown, last)
    if isinstance(tiles, np.ndarray) and tiles.dtype == bool:
        if tiles.shape != (height, width):
            raise ValueError(f"a note's mask must be {height}x{width} (rows x columns), not {tiles.shape}")
        mask = tiles
    else:
        mask = np.zeros((height, width), dtype=bool)
        for r, c in tiles:
            if not (0 <= r < height and 0 <= c < width):
                raise ValueError(f"a note's tile ({r}, {c}) is outside the {width}x{height} map")
            mask[r, c] = True
    return _noted(turn, text, TileSet.of(mask, candidates), last)


def _noted(turn: int, text: str, shown: TileSet, last: list[TileSet | None] | None) -> AgentNoted:
    prev = last[0] if last is not None else None
    if prev is not None and (prev is shown or (  # TileSet's == without its Python-level __eq__
            type(prev) is type(shown) and prev.bits == shown.bits and prev.candidates == shown.candidates)):
        return AgentNoted(turn, text)
    # zlib as the log writes them, tried only when the raw bits would not fit already
    if len(shown.bits) * 4 // 3 > NOTE_TILE_CHARS and len(zlib.compress(shown.bits, 1)) * 4 // 3 > NOTE_TILE_CHARS:
        return AgentNoted(turn, (text + " [tiles not kept: too many to write]").strip())
    if last is not None:
        last[0] = shown
    return AgentNoted(turn, text, shown)


def _crash(game: Game, exc: Exception) -> AgentCrashError:
    return AgentCrashError(game.turn, f"the agent raised {type(exc).__name__}: {exc}")
