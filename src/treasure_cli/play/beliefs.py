"""What an agent said it believed, held against the truth: the notes of a game's log
(`Agent.explain`, `run --notes`) whose candidate tiles leave out the treasure's tile."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from treasure_cli.rules import events as ev
from treasure_cli.rules.island import Island


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


def first_excess(island: Island, events: Iterable[ev.Event]) -> str | None:
    """`check-agent --beliefs --complete`: the first note whose declared candidates keep tiles the
    public facts so far rule out (the referee's exact candidates: agents.knowledge.Knowledge, as the
    replay shows them), said as: the turn, how many, and which fact rules out most of them
    (a verified hint, naming its kind; the scans; the prison's reach; the pirate's moves; the map).
    None when every note's candidates were exact or fewer."""
    from treasure_cli.agents.knowledge import Knowledge
    from treasure_cli.rules.actions import scan_square

    public = island.public()
    know = Knowledge(public)
    scanned = np.zeros(island.shape, dtype=bool)
    pirate_moved = False
    latest: ev.TileSet | None = None  # a note without tiles keeps the latest ones (docs/log-format.md)
    for e in events:
        if isinstance(e, ev.AgentNoted):
            latest = e.tiles if e.tiles is not None else latest
        if isinstance(e, ev.AgentNoted) and latest is not None and latest.candidates:
            know.game_goes_on()  # the agent was asked to act: the pirate is not on the treasure
            kept = latest.mask(island.width, island.height) & ~know.candidates
            count = int(kept.sum())
            if not count:
                continue
            reasons: list[tuple[int, str]] = []
            plain = public.walkable & ~public.prison & public.prison_reach
            reasons.append((int((kept & ~plain).sum()), "the map (sea, mountains, prisons, tiles no prison reaches)"))
            for number, truthful in sorted(know.verified.items()):
                hint = know.hints[number - 1]
                tiles = hint.mask(public)
                kind = getattr(hint.kind, "name", hint.kind)
                reasons.append((int((kept & (~tiles if truthful else tiles)).sum()),
                                f"hint {number} (kind {str(kind).lower()}, {'true' if truthful else 'false'}: "
                                f"{hint.sentence()})"))
            reasons.append((int((kept & scanned).sum()), "the scans so far"))
            if know.prison is not None:
                reasons.append((int((kept & ~public.reach_of(know.prison)).sum()),
                                f"the pirate's prison at {know.prison} (the tiles he can reach)"))
            told = [(n, why) for n, why in reasons if n]
            explained = sum(n for n, _ in told)
            if pirate_moved and (not told or explained < count):
                told.append((count, "the pirate's moves (he walks a shortest path, by the rules' tie-break)"))
            told.sort(key=lambda item: -item[0])
            why = "; ".join(f"{why} rules out {n}" for n, why in told[:3]) or "the facts together rule them out"
            return (f"turn {e.turn}: your agent kept {count} tile{'s' if count != 1 else ''} it could have ruled "
                    f"out: {why}")
        seen = ev.public_view(e)
        if seen is None:
            continue
        if isinstance(seen, ev.AreaScanned) and not seen.found:
            scanned[scan_square(seen.centre, seen.size)] = True
        pirate_moved |= isinstance(seen, ev.PirateMoved)
        know.update(seen)
    return None
