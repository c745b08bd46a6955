"""The project's exception types: every expected failure is a TreasureError."""

from __future__ import annotations


class TreasureError(Exception):
    """Base class of every error the program reports to its user."""


class MapFormatError(TreasureError):
    """A map file breaks the format; carries where (path, line, column) and why."""

    def __init__(self, path: str, line: int | None, column: int | None, message: str):
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        super().__init__(self.location() + ": " + message)

    def location(self) -> str:
        parts = [self.path]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)


class UnplayableMapError(TreasureError):
    """A valid map on which no game can start (e.g. no tile for the agent)."""


class OutputBusyError(TreasureError):
    """Another run holds the output folder."""


class AgentLoadError(TreasureError):
    """An agent spec (`--agent`) names nothing that can be built into an agent."""


class AgentError(TreasureError):
    """An agent failed its game: the game cannot go on. `kind` says how, for tables."""

    kind = "agent-error"

    def __init__(self, turn: int, message: str):
        self.turn = turn
        self.message = message
        super().__init__(f"turn {turn}: {message}")


class IllegalActionError(AgentError):
    """An agent asked for an action the rules forbid; this is a bug in the agent."""

    kind = "illegal-action"


class AgentCrashError(AgentError):
    """An agent's own code raised an exception (in `act` or `reset`)."""

    kind = "agent-error"


class ActionOverBudget(TreasureError):
    """`check-agent --max-action-ms`: an action took longer than the budget. The game stops
    there: the check has its answer, and a slow agent on a big map would take minutes more."""

    def __init__(self, turn: int, seconds: float):
        self.turn, self.seconds = turn, seconds
        super().__init__(f"turn {turn}: an action took {1000 * seconds:.1f} ms")


class GameTimeout(BaseException):
    """A game ran past its time limit (`--game-timeout`).

    A BaseException, like KeyboardInterrupt, so that an agent's own
    `except Exception:` cannot swallow it and keep the game running.
    """

    kind = "game-timeout"
