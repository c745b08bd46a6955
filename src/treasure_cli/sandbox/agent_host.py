"""The Python agent host: plays a Python agent over the agent protocol, in the agent's own process.

The referee starts `python -I -m treasure_cli.sandbox.agent_host SPEC` (inside the
sandbox where there is one) for any Python agent that is not built in: a
file (`path/to/file.py:Class`), a module (`package.module:Class`) or a
plugin. The host rebuilds, from the protocol's messages alone, the same
`Observation` objects the agent gets in process (rules.observation.Observer),
so an agent runs unchanged either way. docs/agent-protocol.md is the protocol.

Whatever the agent prints goes to standard error, which the referee keeps
per game: standard output carries the protocol only.
"""

from __future__ import annotations

import faulthandler
import os
import select
import sys
import time
from collections.abc import Iterator
from types import CodeType
from typing import Any, BinaryIO

from treasure_cli.agents.tracebacks import agent_traceback
from treasure_cli.formats import wire
from treasure_cli.rules.notes import note_event
from treasure_cli.rules.island import Island
from treasure_cli.rules.observation import Observer


SEALED_RULE = ("a Python agent's game may make no pipe or socket: no subprocess, multiprocessing pool,"
          " asyncio or socket (docs/writing-an-agent.md)")


def _explained(message: str) -> str:
    """An agent's failure, with the rule behind it when it is the sealed game's EPERM: a
    student reading "Operation not permitted" under `multiprocessing.Pool` learns why."""
    from treasure_cli.sandbox import seccomp

    return f"{message} ({SEALED_RULE})" if seccomp.sealed() and "PermissionError: [Errno 1]" in message else message


class _Host:
    def __init__(self, spec: str, out: BinaryIO):
        self.spec_text = spec
        self.out = out
        self.spec: Any = None
        self.load_error: str | None = None
        self.agent: Any = None
        self.observer: Observer | None = None
        self.notes = False  # the referee records the agent's notes: ask for them after each action
        self.islands: dict[str, Island] = {}  # by the island's id: games on one map in a row
        self.lines: _Lines | None = None  # the referee's messages (main() sets it)

    def send(self, message: dict[str, Any]) -> None:
        self.out.write(wire.dump_line(message))
        self.out.flush()
        if self.lines is not None:
            self.lines.soon = message.get("type") == "action"  # the next question is a turn away

    def fail(self, what: str, exc: BaseException, turn: int | None = None) -> None:
        """Tell the referee the agent gave up, in the words the referee uses for an agent in its
        own process (`turn`: 0 for a failure before the game's first action)."""
        from treasure_cli.errors import TreasureError

        if isinstance(exc, TreasureError):  # the registry's own message (a class without act, ...)
            message, text = str(exc), ""
        else:
            where, text = agent_traceback(exc)
            message = f"{what} raised {type(exc).__name__}: {exc}" + (f" ({where})" if where else "")
        self.send({"type": "error", "message": _explained(message), "traceback": text,
                   **({"turn": turn} if turn is not None else {})})
        self.agent = None

    def load(self, code: CodeType | None = None, compile_error: str | None = None) -> None:
        """The agent: from `code`, its file compiled already by a warm host (sandbox/warm_host.py), if given."""
        from treasure_cli.agents.registry import load_code, resolve
        from treasure_cli.errors import TreasureError

        if compile_error is not None:
            self.load_error = compile_error
            return
        self.spec_text = beside_its_file(self.spec_text)
        try:
            self.spec = load_code(self.spec_text, code) if code is not None else resolve(self.spec_text)
        except TreasureError as exc:
            self.load_error = str(exc)
        except Exception as exc:  # an agent's module raising at import is reported by `resolve` already
            self.load_error = f"loading the agent raised {type(exc).__name__}: {exc}"

    def handle(self, message: dict[str, Any]) -> bool:
        """Answer one message; False once the session is over."""
        kind = message.get("type")
        if kind == "hello":
            if self.load_error is not None:
                self.send({"type": "error", "message": _explained(self.load_error), "traceback": ""})
            else:
                # It rebuilds each hint from its sentence: the referee need not send the tiles.
                self.send({"type": "hello", "protocol": wire.PROTOCOL, "agent": self.spec_text, "tiles": False})
        elif kind == "start":
            self.start(message)
        elif kind == "act":
            self.act(message)
        elif kind == "end":
            self.agent = self.observer = None
            self.send({"type": "ready"})
        elif kind == "bye":
            return False
        return True

    def start(self, message: dict[str, Any]) -> None:
        data = message["island"]
        island = self.islands.get(data["id"])
        if island is None:
            island = wire.decode_island(data)
            self.islands = {data["id"]: island}  # one island kept: a tournament plays a map's games in a row
        options = message["options"]
        self.observer = Observer(island, options["truth_rate"], options["max_turns"])
        self.notes = bool(options.get("notes"))
        if self.lines is not None:
            poll = options.get("poll", 0.0)
            self.lines.poll = min(float(poll), MAX_POLL) if isinstance(poll, (int, float)) and poll > 0 else 0.0
        try:
            self.agent = self.spec.build()
        except Exception as exc:
            self.fail("building the agent", exc, turn=0)
            return
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            try:
                reset(message["seed"])
            except Exception as exc:
                self.fail("the agent", exc, turn=0)

    def act(self, message: dict[str, Any]) -> None:
        if self.agent is None or self.observer is None:
            return  # it failed at start and said so: the referee has ended the game
        news = tuple(wire.decode_event(e) for e in message["news"])
        obs = self.observer.observe(message["turn"], message["actions_left"], news)
        try:
            action = self.agent.act(obs)
            explain = getattr(self.agent, "explain", None) if self.notes else None
            note = explain() if explain is not None else None
            noted = note_event(obs.turn, note, obs.island.width, obs.island.height) if note else None
        except Exception as exc:
            self.fail("the agent", exc)
            return
        reply = wire.encode_action(action)
        if noted is not None:
            reply["note"] = {"text": noted.text}
            if noted.tiles is not None:
                shape = (obs.island.height, obs.island.width)
                reply["note"].update(tiles=wire.tile_runs(noted.tiles.mask(shape[1], shape[0])),
                                     candidates=noted.tiles.candidates)
        self.send(reply)


def beside_its_file(spec: str) -> str:
    """A file agent's process works as `python agent.py` would at home: its file's folder first on
    the import path (helpers, packages) and its working folder (data files opened by name). The
    spec, its file's path made absolute (a launcher's `src/agent.py:Agent` from the group's top
    folder names no file once in src/)."""
    from treasure_cli.agents.registry import import_folders, is_file_spec

    if not is_file_spec(spec):
        return spec
    where, _, attr = spec.strip().rpartition(":")
    if not os.path.isabs(where):
        where = os.path.join(os.getcwd(), where)  # (not abspath: a GROUP_TOP mark stays)
    folders = import_folders(where)  # its own, then its group's top (GROUP_TOP)
    try:
        os.chdir(folders[0])
    except OSError:
        return spec
    for folder in reversed(folders):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    return f"{where}:{attr}"


MAX_POLL = 0.002  # seconds: the most of the referee's `poll` option the host takes


class _Lines:
    """The referee's messages, a line at a time, until its end of the pipe closes.

    When the referee gives the agent a core of its own it says so (`poll` in the game's
    options): its next question usually comes within tens of microseconds of an action (its
    turn's work), so after an action (`soon`) the host polls its input that long rather than
    sleep and be woken, which costs ~50 µs on a virtual machine (sandbox/process.py,
    `Cores`). After anything else (hello, ready) the next message may be a game away: it sleeps.
    """

    def __init__(self, fd: int):
        self.fd = fd
        self.soon = False
        self.poll = 0.0
        self._pending = bytearray()
        os.set_blocking(fd, False)

    def __iter__(self) -> Iterator[bytes]:
        pending = self._pending
        while True:
            end = pending.find(b"\n")
            if end >= 0:
                line = bytes(pending[:end + 1])
                del pending[:end + 1]
                yield line
                continue
            chunk = self._read()
            if not chunk:
                if pending:
                    yield bytes(pending)
                return
            pending += chunk

    def _read(self) -> bytes:
        until = time.monotonic() + self.poll if self.soon else 0.0
        while True:
            try:
                return os.read(self.fd, 1 << 16)
            except BlockingIOError:
                if time.monotonic() >= until:
                    select.select([self.fd], [], [])  # nothing soon: sleep until it comes


def main(argv: list[str] | None = None, code: CodeType | None = None, compile_error: str | None = None,
         island: tuple[str, Island] | None = None) -> int:
    """Play over standard input and output until `bye` or the end of input (`code`,
    `compile_error`: a warm host's compiled file agent, see `_Host.load`; `island`: the
    public island it read already, with its id)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m treasure_cli.sandbox.agent_host SPEC", file=sys.stderr)
        return 2
    # A fatal signal in the agent's code (a crash in a C extension, os.abort()) prints the Python
    # frames it was in on standard error, which the referee keeps with the game's record.
    faulthandler.enable()
    # The protocol keeps standard output for itself; print() and any write to fd 1 go to stderr.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = os.fdopen(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
    host = _Host(args[0], out)
    host.load(code, compile_error)
    if island is not None:
        host.islands = dict([island])
    # Windows cannot poll a pipe: there the host reads as any program would, sleeping.
    lines = host.lines = _Lines(sys.stdin.fileno()) if os.name == "posix" else None
    for line in lines if lines is not None else sys.stdin.buffer:
        try:
            message = wire.load_line(line)
        except ValueError:
            host.send({"type": "error", "message": "the host could not read the referee's message", "traceback": ""})
            return 1
        if not host.handle(message):
            break
    return 0


if __name__ == "__main__":  # a game's own process (a sandbox per game, or `process`), never the referee's
    from treasure_cli.sandbox import seccomp

    try:
        seccomp.refuse_user_namespaces()
        seccomp.seal()  # no pipe or socket: their numbers are the machine's one counter
    except OSError:
        pass  # a kernel without seccomp: `treasure doctor` says so
    sys.exit(main())
