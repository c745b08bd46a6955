"""Text safe to show: what comes from a user's file or an agent reaches a terminal without
control characters (standard library only: the command line imports it before numpy)."""

from __future__ import annotations


def printable(text: str) -> str:
    """`text` safe for any output stream: control characters (an agent's carriage return or
    escape sequence), line breaks inside a line and bytes of a file name that are not UTF-8
    come out as backslash escapes; its own line breaks stay."""
    lines = [line.encode("utf-8", "backslashreplace").decode("utf-8") for line in text.split("\n")]
    return "\n".join(line if line.isprintable() else line.encode("unicode_escape").decode("ascii")
                      for line in lines)


def one_line(text: str) -> str:
    """`text` on one line: every character that is not printable, its line breaks included,
    as its backslash escape (`\\n`, `\\x1b`); the rest, non-ASCII letters too, as it is. For
    words of an agent's inside a line of ours: they must not start a line that looks like ours."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` with its noun, singular for exactly one: "1 game", "3 games", "0 maps"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
