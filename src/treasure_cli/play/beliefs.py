"""What an agent said it believed, held against the truth: the notes of a game's log
(`Agent.explain`, `run --notes`) whose candidate tiles leave out the treasure's tile."""

from __future__ import annotations

from collections.abc import Iterable

from treasure_cli.rules import events as ev


def misses(events: Iterable[ev.Event]) -> list[ev.AgentNoted]:
    """The notes whose declared candidates do not hold the treasure, in the game's order."""
    size = treasure = None
    found = []
    for e in events:
        if isinstance(e, ev.GameStarted):
            size = (e.width, e.height)
        elif isinstance(e, ev.TreasureHidden):
            treasure = e.treasure
        elif isinstance(e, ev.AgentNoted) and e.tiles is not None and e.tiles.candidates:
            if size is None or treasure is None:
                raise ValueError("a note before the game's setup")
            if not e.tiles.mask(*size)[treasure]:
                found.append(e)
    return found


def miss_message(note: ev.AgentNoted) -> str:
    return f"turn {note.turn}: your agent ruled out the treasure's tile"
