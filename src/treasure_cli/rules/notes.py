"""An agent's Note as the event a log keeps: the one check of what `explain()` returns,
made where the agent plays (in this process, or in its own process's host)."""

from __future__ import annotations

import zlib

import numpy as np

from treasure_cli.rules.events import AgentNoted, TileSet
from treasure_cli.rules.observation import Note

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
