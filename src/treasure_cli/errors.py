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


class IllegalActionError(TreasureError):
    """An agent asked for an action the rules forbid; this is a bug in the agent."""
