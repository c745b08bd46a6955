"""The agent protocol's JSON values (docs/agent-protocol.md): public islands, events and actions.

Both sides use this module: the referee encodes what an agent may see and
decodes its answer; the Python agent host (sandbox/agent_host.py) decodes the
island and the events back into the very objects an agent in process gets.
Everything an agent sends is untrusted: `decode_action` accepts only the
exact shapes the protocol allows and says what is wrong with anything else.
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing
from typing import Any

import numpy as np

from treasure_cli.errors import TreasureError
# The framing (a message a line) and the protocol's version: both sides use them through here.
from treasure_cli.formats.json_lines import PROTOCOL, dump_line, load_line  # noqa: F401
from treasure_cli.rules import events as ev
from treasure_cli.rules.actions import Action, LargeScan, Move, Teleport, Verify
from treasure_cli.rules.grid import Direction
from treasure_cli.rules.hints import BUILTIN_NAMES, Hint, HintKind, parse_hint
# A hint's tiles as runs [start, length, ...]: defined with TileSetHint, which holds them (also for agents here)
from treasure_cli.rules.plugin_kinds import TileSetHint, runs_mask, tile_runs  # noqa: F401
from treasure_cli.rules.island import Island


class ProtocolError(TreasureError):
    """An agent said something the protocol does not allow."""


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


# The events an agent may see (rules.events.public_view never shows GameStarted, TreasureHidden,
# a note or what an agent printed).
EVENT_NAMES: dict[type, str] = {cls: _snake(cls.__name__) for cls in typing.get_args(ev.Event)
                                if cls not in (ev.GameStarted, ev.TreasureHidden, ev.AgentNoted, ev.AgentPrinted)}
# Each event type's fields with their annotation (a string: the events module postpones them).
_FIELDS = {cls: tuple((f.name, str(f.type)) for f in dataclasses.fields(cls)) for cls in EVENT_NAMES}


# ---------------------------------------------------------------- islands
def encode_island(island: Island) -> dict[str, Any]:
    """The public island as the `start` message carries it; memoised per island (games on one
    map in a row send the same text)."""
    if island.treasure is not None:
        raise ValueError("only the public island (no treasure) is sent to an agent")
    return island.memo("wire-island", _island_dict)


def _island_dict(island: Island) -> dict[str, Any]:
    w = island.width

    def bits(mask: np.ndarray) -> list[str]:
        text = np.where(mask, ord("1"), ord("0")).astype(np.uint8).tobytes().decode("ascii")
        return [text[i:i + w] for i in range(0, len(text), w)]

    return {"id": island.digest, "width": island.width, "height": island.height,
            "reveal_turn": island.reveal_turn, "free_turn": island.free_turn,
            "regions": island.regions.tolist(), "mountain": bits(island.mountain), "prison": bits(island.prison)}


def decode_island(data: dict[str, Any]) -> Island:
    """The public Island of a `start` message (the agent host's side)."""
    h, w = int(data["height"]), int(data["width"])

    def mask(rows: list[str]) -> np.ndarray:
        flat = np.frombuffer("".join(rows).encode("ascii"), dtype=np.uint8)
        return (flat == ord("1")).reshape(h, w)

    regions = np.array(data["regions"], dtype=np.int32).reshape(h, w)
    return Island(regions, mask(data["mountain"]), mask(data["prison"]), int(data["reveal_turn"]),
                  int(data["free_turn"]))


# ---------------------------------------------------------------- events
def encode_hint(hint: Hint, island: Island, tiles: bool = True) -> dict[str, Any]:
    """A hint as the protocol sends it; `tiles=False` for an agent that reads the sentence itself
    (the Python host): the tile set is most of a hint's cost, on both sides of the pipe. A kind
    that is not built in always comes with its tiles: they are all an agent can know of it."""
    name = hint.name
    out: dict[str, object] = {"kind": name, "text": hint.sentence()}
    if tiles or name not in BUILTIN_NAMES:
        out["tiles"] = tile_runs(hint.mask(island))
    return out


def _hint_back(data: dict[str, Any]) -> Hint:
    name = str(data.get("kind", ""))
    if name not in BUILTIN_NAMES:  # a plugin kind: its statement and tiles, whether installed here or not
        return TileSetHint(name, str(data["text"]), tuple(data["tiles"]))
    return parse_hint(data["text"], HintKind[name.upper()])  # the kind picks the one form to try


# How each field type crosses the wire, out and back (an event's fields are annotated by name).
_OUT: dict[str, str] = {"Pos": "[{v}[0], {v}[1]]", "Direction": "{v}.name", "Outcome": "{v}.value",
                        "EndReason": "{v}.value", "Hint": "encode_hint({v}, island, tiles)"}
_BACK: dict[str, str] = {"Pos": "({v}[0], {v}[1])", "Direction": "Direction[{v}]", "Outcome": "Outcome({v})",
                         "EndReason": "EndReason({v})", "Hint": "hint_back({v})"}
_PLAIN = ("int", "bool", "float", "str", "bool | None")


def _compile(cls: type) -> tuple[Any, Any]:
    """The encoder and the decoder of one event type, as plain functions of its fields (written
    out once here: a generic loop over the fields cost most of a small message's time)."""
    out, back = [f'"event": {EVENT_NAMES[cls]!r}'], []
    for name, kind in _FIELDS[cls]:
        if kind not in _PLAIN and kind not in _BACK:
            raise TypeError(f"no wire form for an event field of type {kind}")
        get, item = f"e.{name}", f"d[{name!r}]"
        out.append(f"{name!r}: " + (get if kind in _PLAIN else _OUT[kind].format(v=get)))
        # Optional fields (a HintGiven's truth) are None on the wire as they are in the event.
        back.append(item if kind in _PLAIN else _BACK[kind].format(v=item))
    source = (f"def encode(e, island, tiles):\n    return {{{', '.join(out)}}}\n"
              f"def decode(d):\n    return cls({', '.join(back)})\n")
    scope = {"cls": cls, "encode_hint": encode_hint, "hint_back": _hint_back, "Direction": Direction,
             "Outcome": ev.Outcome, "EndReason": ev.EndReason}
    exec(compile(source, f"<wire {cls.__name__}>", "exec"), scope)
    return scope["encode"], scope["decode"]


_CODECS = {cls: _compile(cls) for cls in EVENT_NAMES}
_ENCODERS = {cls: codec[0] for cls, codec in _CODECS.items()}
_DECODERS = {EVENT_NAMES[cls]: codec[1] for cls, codec in _CODECS.items()}


def encode_event(event: ev.Event, island: Island, tiles: bool = True) -> dict[str, Any]:
    """A public event as the `news` of an `act` message (`island`: the public island, for hint
    tiles; `tiles=False` leaves them out)."""
    return _ENCODERS[type(event)](event, island, tiles)


def decode_event(data: dict[str, Any]) -> ev.Event:
    """The event of `encode_event` (the agent host's side): equal to the one the game made."""
    return _DECODERS[data["event"]](data)


# ---------------------------------------------------------------- actions
def encode_action(action: object) -> dict[str, Any]:
    """An agent's answer, read as the game reads an action in process (`Game._target`): a move's
    direction a Direction and its steps an int, a hint's number an int, a teleport's target two
    values int() takes (numpy's integers too). Anything else is sent as `invalid` with its repr,
    so the referee refuses it as the game refuses it in process."""
    if isinstance(action, Verify) and isinstance(action.number, int):
        return {"type": "action", "action": "verify", "hint": int(action.number)}
    if isinstance(action, Move) and isinstance(action.direction, Direction) and isinstance(action.steps, int):
        return {"type": "action", "action": "move", "direction": action.direction.name, "steps": int(action.steps)}
    if isinstance(action, LargeScan):
        return {"type": "action", "action": "scan"}
    if isinstance(action, Teleport):
        try:
            target = [int(x) for x in action.target]
        except (TypeError, ValueError, OverflowError):
            target = []
        if len(target) == 2:
            return {"type": "action", "action": "teleport", "to": target}
    return {"type": "action", "action": "invalid", "repr": repr(action)[:200]}


def as_sent(value: Any, limit: int = 80) -> str:
    """A value an agent sent, in JSON's words (`true`, `null`, `"3"`), as a program in any
    language wrote it, not in this program's (`True`, `None`, `'3'`); cut past `limit` characters."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):  # (not from a JSON message)
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _int(message: dict[str, Any], key: str) -> int:
    value = message.get(key)
    if type(value) is not int:
        got = f"got {as_sent(value)}" if key in message else "it is missing"
        raise ProtocolError(f'"{key}" must be an integer, {got}')
    return value


def decode_action(message: dict[str, Any]) -> Action | str:
    """The Action of an `action` message, or for `invalid` the repr of what the agent answered
    instead (the referee hands it to the game, which refuses it); ProtocolError if malformed."""
    kind = message.get("action")
    if kind == "verify":
        return Verify(_int(message, "hint"))
    if kind == "move":
        direction = message.get("direction")
        if direction not in ("N", "E", "S", "W"):
            raise ProtocolError(f"a move's direction must be N, E, S or W, got {as_sent(direction)}")
        return Move(Direction[direction], _int(message, "steps"))
    if kind == "scan":
        return LargeScan()
    if kind == "teleport":
        to = message.get("to")
        if not (isinstance(to, list) and len(to) == 2 and all(type(x) is int for x in to)):
            raise ProtocolError(f"a teleport's \"to\" must be [row, col], got {as_sent(to)}")
        return Teleport((to[0], to[1]))
    if kind == "invalid":
        return str(message.get("repr"))[:200]
    raise ProtocolError(f"unknown action {as_sent(kind)}")
