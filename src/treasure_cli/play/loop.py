"""The loop that asks an agent for actions: the game itself knows no agent (`rules.game`)."""

from __future__ import annotations

from collections.abc import Iterator

from treasure_cli.errors import AgentCrashError, IllegalActionError, TreasureError
from treasure_cli.rules import seeds
from treasure_cli.rules.events import AgentPrinted, Event, TileSet
from treasure_cli.rules.game import Game
from treasure_cli.rules.notes import note_event
from treasure_cli.rules.observation import Agent


PRINTED_LINES = 20      # lines kept of what an agent printed over one action (then a line says how many more)
PRINTED_LINE_CHARS = 300  # characters kept of each (then "...")


def play_agent(game: Game, agent: Agent, *, notes: bool = False, output: bool = False) -> Iterator[Event]:
    """Play `game` (not yet started) to its end with `agent`, yielding every event.

    The agent's `reset(seed)`, if it has one, is called first with the seed derived from the
    game's. An exception from the agent's own code ends the game as AgentCrashError (chained to
    it); an illegal action raises the game's IllegalActionError. With `notes`, the agent's
    `explain()`, if it has one, is called after each action and its Note comes as an
    AgentNoted event before the action's events. With `output`, the lines the agent printed
    while it chose (its `printed()`, if it has one: the seat's agents do) come as AgentPrinted
    events first, bounded by `printed_events`.
    """
    printed = getattr(agent, "printed", None) if output else None
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
        if printed is not None:
            yield from printed_events(game.turn, printed())
        if noted is not None:
            yield noted
        try:
            yield from step(action)
        except IllegalActionError as exc:
            raise _as_sent(exc, action, agent) from None


def printed_events(turn: int, text: str) -> list[AgentPrinted]:
    """What an agent printed over one action, a line an event: at most PRINTED_LINES lines of at
    most PRINTED_LINE_CHARS characters each (the log escapes them: rules of the `note` field)."""
    lines = text.splitlines()
    kept = [AgentPrinted(turn, line if len(line) <= PRINTED_LINE_CHARS else line[:PRINTED_LINE_CHARS] + "...")
            for line in lines[:PRINTED_LINES]]
    if len(lines) > PRINTED_LINES:
        kept.append(AgentPrinted(turn, f"[{len(lines) - PRINTED_LINES} more lines not kept]"))
    return kept


def _as_sent(exc: IllegalActionError, action: object, agent: Agent) -> IllegalActionError:
    """The game's refusal, with the action quoted as the agent sent it where it has its own
    words for it (a program: the JSON of its answer, `quoted()`), not as this program's repr."""
    quoted = getattr(agent, "quoted", None)
    sent = quoted() if quoted is not None else None
    if sent is None or repr(action) not in exc.message:
        return exc
    return IllegalActionError(exc.turn, exc.message.replace(repr(action), sent, 1))


def _crash(game: Game, exc: Exception) -> AgentCrashError:
    return AgentCrashError(game.turn, f"the agent raised {type(exc).__name__}: {exc}")
