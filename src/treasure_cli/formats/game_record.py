"""Game logs: events to text and text back to events.

A log is three header lines — the number of event lines that follow, `WIN`
or `LOSE` (or `failed`: the agent failed the game), the number of turns played — then one line
per event. Each event
type has one template below; the same template writes a line and, turned into
a regular expression, parses it back, so `parse_log(format_log(e)) == e`.
See docs/log-format.md for the grammar.
"""

from __future__ import annotations

import base64
import binascii
import contextvars
import dataclasses
import functools
import json
import os
import re
import stat
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from treasure_cli.rules import events as ev
from treasure_cli.errors import TreasureError
from treasure_cli.rules.grid import Direction, format_pos
from treasure_cli.rules.plugin_kinds import hint_text, parse_hint_text
from treasure_cli.formats import hint_plugins  # noqa: F401  (a log may name a kind from an entry point)
from treasure_cli.formats.map_file import opener_without_waiting

# One template per event type. `{name:type}` is a field; the rest is literal.
TEMPLATES: dict[type, str] = {
    ev.GameStarted: "game: map {map_name:text} ({width:int}x{height:int}{map_digest:digest}), seed {seed:int}, "
                    "agent {agent:text}, truth rate {truth_rate:float}, turn limit {max_turns:int}"
                    "{hint_truths_shown:told}",
    ev.TreasureHidden: "setup: the treasure is at {treasure:pos}, the pirate is in the prison at {prison:pos}",
    ev.AgentPlaced: "setup: the agent starts at {pos:pos}",
    ev.ScheduleAnnounced: "setup: the prison is revealed on turn {reveal_turn:int}, "
                          "the pirate is free from turn {free_turn:int}",
    ev.TurnStarted: "turn {turn:int}: the turn starts",
    ev.PrisonRevealed: "turn {turn:int}: the pirate reveals his prison at {pos:pos}",
    ev.PirateFreed: "turn {turn:int}: the pirate is free",
    ev.HintGiven: "turn {turn:int}: the pirate gives hint {number:int} ({truthful:truth}): {hint:hint}",
    ev.HintAdded: "turn {turn:int}: hint {number:int} is added to the hint list, which now holds {count:int}",
    ev.PirateMoved: "turn {turn:int}: the pirate moves from {src:pos} to {dst:pos}",
    ev.HintVerified: "turn {turn:int}: the agent verifies hint {number:int}: it is {truthful:truth}",
    ev.AgentMoved: "turn {turn:int}: the agent moves {direction:dir} {steps:int} from {src:pos} to {dst:pos}",
    ev.AreaScanned: "turn {turn:int}: the agent scans the {size:int}x{size:int} square around {centre:pos}: {found:found}",
    ev.Teleported: "turn {turn:int}: the agent teleports from {src:pos} to {dst:pos}",
    ev.GameEnded: "turn {turn:int}: game over, {outcome:outcome}: {reason:reason}",
    ev.AgentNoted: "turn {turn:int}: the agent notes {text:note}{tiles:tiles}",
    ev.AgentPrinted: "turn {turn:int}: the agent printed {text:note}",  # only with --agent-output
    ev.GameFailed: "turn {turn:int}: game failed, {kind:kind}: {message:note}",
}

HEADER_LINES = 3  # line count, WIN/LOSE, turns; event i (0-based) is on line event_line(i)


def event_line(index: int) -> int:
    """The 1-based line of a log that holds event `index` (0-based)."""
    return index + HEADER_LINES + 1


_REASONS = {
    ev.EndReason.FOUND: "the agent's scan found the treasure",
    ev.EndReason.PIRATE: "the pirate reached the treasure first",
    ev.EndReason.TIMEOUT: "timeout, the turn limit was reached",
}


@dataclasses.dataclass(frozen=True)
class _Type:
    pattern: str
    write: Callable[[Any], str]
    read: Callable[[str], Any]


def _read_pos(text: str) -> tuple[int, int]:
    r, c = re.fullmatch(r"\(([0-9]+), ([0-9]+)\)", text).groups()  # type: ignore[union-attr]  # its _Type's pattern matched
    return (int(r), int(c))


# A name (map path, agent spec) is written bare when that reads back unambiguously,
# else in double quotes with backslash escapes, so any string survives the trip.
_BARE = re.compile(r'[^\s"\\]+')
_QUOTED = r'"(?:[^"\\]|\\.)*"'


def quote_name(value: str) -> str:
    """A name as the log writes it: bare when safe, else quoted and escaped (ASCII, one line).

    Tables and frames show names this way too, so a newline or a byte that is
    not UTF-8 in a file name cannot break a line or an output stream.
    """
    if _BARE.fullmatch(value) and value.isprintable():
        return value
    return json.dumps(value)  # ASCII only: no raw line separator or lone surrogate gets out


def _read_text(text: str) -> str:
    if text.startswith('"'):
        return json.loads(text)  # type: ignore[no-any-return]
    return text


_TOLD = ", the agent is told every hint's truth"


def _write_tiles(tiles: ev.TileSet | None) -> str:
    if tiles is None:
        return ""
    # A zlib stream; stored, not compressed, up to a 181x181 map: compressing costs ~70 us a note
    # whatever the size (more than the rest of the note), and saves little on a small map.
    bits = tiles.bits
    stream = _stored(bits) if len(bits) <= 4096 else zlib.compress(bits, 1)
    # (binascii's own call: base64.b64encode is a Python wrapper around it)
    return (", candidates " if tiles.candidates else ", tiles ") + binascii.b2a_base64(stream, newline=False).decode("ascii")


def _stored(data: bytes) -> bytes:
    """`zlib.compress(data, 0)` byte for byte for the 4096 bytes or fewer it is used for (one
    stored block; zlib cuts much longer data into several), without the compressor's set-up (its
    window and tables), which cost more than the copy: the zlib header for level 0, the final
    stored block (its length and the length's complement), the Adler-32 of the data."""
    n = len(data)
    return b"\x78\x01\x01" + (n | (n ^ 0xFFFF) << 16).to_bytes(4, "little") + data + zlib.adler32(data).to_bytes(4, "big")


# A note's tiles are one bit a tile of the log's map (parse_log sets it from the game's start line);
# no more is inflated: 58 kB of base64 in one line of a log someone sent inflated to 45 MB, and 40
# such lines (a 2.3 MB log) took replay to 1.8 GB.
_TILE_BYTES: contextvars.ContextVar[int] = contextvars.ContextVar("tile_bytes", default=(4096 * 4096 + 7) // 8)


def _read_tiles(text: str) -> ev.TileSet | None:
    if not text:
        return None
    word, packed = text.removeprefix(", ").split(" ")
    limit = _TILE_BYTES.get()
    try:
        inflate = zlib.decompressobj()
        bits = inflate.decompress(base64.b64decode(packed, validate=True), limit + 1)
    except (ValueError, zlib.error):
        raise ValueError("the note's tiles are not readable") from None
    if len(bits) > limit or not inflate.eof:
        raise ValueError(f"the note's tiles are more than the map's {limit} bytes (one bit a tile)"
                         if len(bits) > limit else "the note's tiles are not readable")
    return ev.TileSet(bits, word == "candidates")


_TYPES: dict[str, _Type] = {
    "int": _Type(r"-?[0-9]{1,19}", str, int),  # a seed is 63 bits: no field needs more digits
    "float": _Type(r"-?[0-9]{1,20}(?:\.[0-9]{1,20})?(?:e-?[0-9]{1,3})?", repr, float),
    "text": _Type(_QUOTED + r'|[^\s"\\]+', quote_name, _read_text),
    "digest": _Type(r"(?:, digest [0-9a-f]{16})?", lambda d: f", digest {d}" if d else "",
                     lambda s: s.removeprefix(", digest ")),
    "told": _Type(f"(?:{re.escape(_TOLD)})?", lambda told: _TOLD if told else "", bool),
    "pos": _Type(r"\([0-9]{1,9}, [0-9]{1,9}\)", format_pos, _read_pos),
    "dir": _Type(r"[NESW]", lambda d: d.name, lambda s: Direction[s]),
    "truth": _Type(r"true|false|unknown",
                   lambda b: "unknown" if b is None else ("true" if b else "false"),
                   lambda s: None if s == "unknown" else s == "true"),
    "found": _Type(r"treasure found|empty", lambda b: "treasure found" if b else "empty",
                   lambda s: s == "treasure found"),
    "outcome": _Type(r"WIN|LOSE", lambda o: o.value, ev.Outcome),
    "reason": _Type("|".join(map(re.escape, _REASONS.values())), _REASONS.__getitem__,
                    {v: k for k, v in _REASONS.items()}.__getitem__),
    "hint": _Type(r".+", hint_text, parse_hint_text),
    "note": _Type(_QUOTED, json.encoder.encode_basestring_ascii, json.loads),  # json.dumps of a str, less its dispatch
    "kind": _Type(r"[a-z][a-z-]{0,39}", str, str),
    "tiles": _Type(r"(?:, (?:candidates|tiles) [A-Za-z0-9+/]*={0,2})?", _write_tiles, _read_tiles),
}

_FIELD = re.compile(r"\{(\w+):(\w+)\}")


def _compile(template: str) -> tuple[re.Pattern[str], list[tuple[str, str]]]:
    """Template -> anchored regex with one group per field (a repeated field is matched again)."""
    parts, fields, seen, pos = [], [], set(), 0
    for m in _FIELD.finditer(template):
        parts.append(re.escape(template[pos:m.start()]))
        name, kind = m.groups()
        if name in seen:
            parts.append(f"(?P={name})")
        else:
            parts.append(f"(?P<{name}>{_TYPES[kind].pattern})")
            fields.append((name, kind))
            seen.add(name)
        pos = m.end()
    parts.append(re.escape(template[pos:]))
    return re.compile("".join(parts) + r"\Z"), fields


@functools.cache
def _parsers() -> list[tuple[type, re.Pattern[str], list[tuple[str, str]]]]:
    """Each line type's regex, compiled when a log is first read (~10 ms that writing one,
    every `run`'s whole job, does not need)."""
    return [(cls, *_compile(t)) for cls, t in TEMPLATES.items()]


def _writer(template: str) -> Callable[[ev.Event], str]:
    """Template -> function of an event giving its line, compiled once into one f-string:
    the template's literal text, and for each field its type's writer called on the
    event's attribute (joining the pieces field by field was half the cost of a log)."""
    def literal(text: str) -> str:
        return text.replace("{", "{{").replace("}", "}}")

    body, writers, pos = [], {}, 0
    for i, m in enumerate(_FIELD.finditer(template)):
        name, kind = m.groups()
        writers[f"_write{i}"] = _TYPES[kind].write
        body += [literal(template[pos:m.start()]), f"{{_write{i}(event.{name})}}"]
        pos = m.end()
    body.append(literal(template[pos:]))
    source = f"def write(event):\n    return f{''.join(body)!r}\n"
    exec(compile(source, f"<log line writer: {template}>", "exec"), writers)
    return writers["write"]


_WRITERS = {cls: _writer(t) for cls, t in TEMPLATES.items()}


def format_event(event: ev.Event) -> str:
    return _WRITERS[type(event)](event)


def parse_event(line: str) -> ev.Event:
    """One log line back to its event; ValueError if no template matches."""
    for cls, pattern, fields in _parsers():
        m = pattern.match(line)
        if m:
            try:
                values = {name: _TYPES[kind].read(m.group(name)) for name, kind in fields}
            except (ValueError, KeyError) as exc:
                raise ValueError(f"{exc}") from None
            return cls(**values)  # type: ignore[no-any-return]
    raise ValueError(f"not a known log line: {_shown(line)}")


FAILED_HEADER = "failed"  # line 2 of the log of a game its agent failed (its last line: GameFailed)


def format_log(events: list[ev.Event]) -> str:
    """The whole log text for a finished game (its last event is GameEnded), or for a game its agent
    failed (the events played, then GameFailed)."""
    end = events[-1]
    if not isinstance(end, (ev.GameEnded, ev.GameFailed)):
        raise ValueError("a log is written for a finished or failed game only")
    body = [format_event(e) for e in events]
    result = end.outcome.value if isinstance(end, ev.GameEnded) else FAILED_HEADER
    return "\n".join([str(len(body)), result, str(end.turn), *body]) + "\n"


class LogFormatError(TreasureError):
    def __init__(self, path: str, line: int, message: str):
        self.path, self.line, self.message = path, line, message
        super().__init__(f"{path}:{line}: {message}")


MAX_LINE = 65_536      # characters; the longest real line (a kind-1 hint, a long quoted path) is far shorter
MAX_LOG_BYTES = 1 << 30  # a 4096x4096 game's log is a few MB


def _count(text: str) -> int | None:
    """A header number: ASCII digits only, and short enough to be one."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else None


def _shown(line: str) -> str:
    return repr(line if len(line) <= 80 else line[:80] + "...")


def parse_log(text: str, path: str = "<log>") -> list[ev.Event]:
    """Log text back to events; LogFormatError names the line that is wrong.

    Lines end at \n only (a \r before it is dropped), so a character such as
    U+2028 inside a line cannot shift the count.
    """
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 3:
        raise LogFormatError(path, max(1, len(lines)), "a log starts with three header lines")
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE:
            raise LogFormatError(path, number, f"the line is {len(line)} characters long; no log line is "
                                               f"longer than {MAX_LINE}")
    count = _count(lines[0])
    if count is None:
        raise LogFormatError(path, 1, f"expected the number of log lines, found {_shown(lines[0])}")
    if count != len(lines) - HEADER_LINES:
        raise LogFormatError(path, 1, f"header says {count} log lines but the file has {len(lines) - HEADER_LINES}")
    if lines[1] not in ("WIN", "LOSE", FAILED_HEADER):
        raise LogFormatError(path, 2, f"expected WIN, LOSE or {FAILED_HEADER}, found {_shown(lines[1])}")
    turns = _count(lines[2])
    if turns is None:
        raise LogFormatError(path, 3, f"expected the number of turns, found {_shown(lines[2])}")
    events: list[ev.Event] = []
    token = None
    try:
        for number, line in enumerate(lines[HEADER_LINES:], start=event_line(0)):
            try:
                event = parse_event(line)
            except ValueError as exc:
                raise LogFormatError(path, number, str(exc)) from None
            if events and isinstance(events[-1], (ev.GameEnded, ev.GameFailed)):
                raise LogFormatError(path, number - 1, "the game ends here, but the log goes on")
            if not events and isinstance(event, ev.GameStarted):  # a note's tiles are this map's
                token = _TILE_BYTES.set((event.width * event.height + 7) // 8)
            events.append(event)
    finally:
        if token is not None:
            _TILE_BYTES.reset(token)
    end = events[-1] if events else None
    if not isinstance(end, (ev.GameEnded, ev.GameFailed)):
        raise LogFormatError(path, len(lines), "the last line must be the end of the game")
    result = end.outcome.value if isinstance(end, ev.GameEnded) else FAILED_HEADER
    if result != lines[1] or end.turn != turns:
        raise LogFormatError(path, 2, "header result or turn count disagrees with the last line")
    return events


def read_log(path: str | Path) -> list[ev.Event]:
    """Read a log file: a regular file of bounded size, as UTF-8."""
    name = str(path)
    try:
        with open(path, "rb", opener=opener_without_waiting) as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise LogFormatError(name, 1, "cannot read the log: not a regular file")
            if info.st_size > MAX_LOG_BYTES:
                raise LogFormatError(name, 1, f"cannot read the log: {info.st_size} bytes is more than any log")
            text = fh.read().decode("utf-8")  # the size was checked above
    except OSError as exc:
        raise LogFormatError(name, 1, f"cannot read the log: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise LogFormatError(name, text_line(exc), "cannot read the log: it is not UTF-8 text") from None
    return parse_log(text, name)


def text_line(exc: UnicodeDecodeError) -> int:
    """The 1-based line of the first byte that is not UTF-8."""
    return exc.object.count(b"\n", 0, exc.start) + 1
