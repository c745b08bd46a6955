"""The agent protocol's framing: one JSON message a line (docs/agent-protocol.md), and its version.

Apart from `wire` (the messages' values), which needs the rules and numpy: a warm
host that only forks programs (sandbox/warm_host.py) speaks these lines and starts
without them.
"""

from __future__ import annotations

import json
from typing import Any

PROTOCOL = 1

try:  # orjson, when installed (a dependency), reads and writes a message in a tenth of json's time
    import orjson
except ImportError:  # pragma: no cover - the standard library does the same, slower
    orjson = None  # type: ignore[assignment]

# One message a line, as compact as JSON gets; made once (json.dumps builds an encoder per call).
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)


def dump_line(message: dict[str, Any]) -> bytes:
    """A message as the bytes of its line, newline included."""
    if orjson is not None:
        return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
    return (_ENCODER.encode(message) + "\n").encode("utf-8")


def load_line(line: bytes) -> Any:
    """The JSON value of one line; ValueError if it is not JSON, or nested past what the parser
    follows (orjson stops at 1,024 levels; the standard library's parser ran into the recursion
    limit, and an agent's line of nested brackets raised the referee's own RecursionError)."""
    if orjson is not None:
        return orjson.loads(line)
    try:
        return json.loads(line)
    except RecursionError:
        raise ValueError("nested too deep") from None
