"""`treasure play MAP --serve`: the person plays on a page, served from this machine only.

A small HTTP server on 127.0.0.1 (a free port the system picks) serves one
self-contained page. The page shows the frame the terminal `play` shows and
sends each action the person chooses (a button, a key, or the same line the
terminal takes) as a POST; the server checks it against the game and the
game steps. The game is the terminal's: `PagePerson` is the agent that
`play_agent` asks for each action, and it answers by serving requests until
the page sends one the rules allow. Nothing else is served: one page, its
state, its actions; a request naming another host is refused (a page of
another site cannot reach the game through a name that resolves here).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import TYPE_CHECKING, Any

from treasure_cli.cli.person import GaveUp, Person, parse_action
from treasure_cli.errors import TreasureError

if TYPE_CHECKING:
    from treasure_cli.rules.actions import Action
    from treasure_cli.rules.game import Game
    from treasure_cli.rules.observation import Observation
    from treasure_cli.view.render import Renderer

MAX_BODY = 200        # bytes of an action's line
END_WAIT = 30.0       # seconds the server waits, after the game, for the page to fetch its end


class PagePerson(Person):
    """An agent whose every action comes from the page."""

    def __init__(self, game: Game, renderer: Renderer, echo: Callable[..., None]) -> None:
        super().__init__(game, renderer, echo, lambda: "")
        self.state: dict[str, Any] = {}
        self.chosen: Action | None = None
        self.ended_seen = False
        self.gave_up: str | None = None
        self.server = HTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self.server.server_port}/"

    def act(self, obs: Observation) -> Action:
        self.state = {"frame": self.seen_frame(obs), "turn": obs.turn, "action": 3 - obs.actions_left,
                      "over": False, "message": ""}
        self.chosen = None
        while self.chosen is None:
            self.server.handle_request()
            if self.gave_up is not None:
                raise GaveUp(self.gave_up)
        return self.chosen

    def choose(self, line: str) -> dict[str, Any]:
        """An action line from the page: chosen if the rules allow it, else why not."""
        words = line.strip().lower().replace(",", " ").split()
        if not words:
            return {"error": "no action"}
        if words[0] in ("q", "quit"):
            self.gave_up = f"you gave up on turn {self.state.get('turn')}: no log written"
            return {"error": self.gave_up, "over": True}
        try:
            action = parse_action(words)
            self.game.check(action)
        except (ValueError, TreasureError) as exc:
            return {"error": f"not possible: {getattr(exc, 'message', str(exc))}"}
        self.chosen = action
        return {"ok": True}

    def finish(self, frame: str, message: str) -> None:
        """Show the end (the map with its treasure), until the page has fetched it or END_WAIT passes."""
        self.state = {"frame": frame, "over": True, "message": message}
        self.server.timeout = 1.0
        deadline = time.monotonic() + END_WAIT
        while not self.ended_seen and time.monotonic() < deadline:
            self.server.handle_request()

    def close(self) -> None:
        self.server.server_close()


def _handler(person: PagePerson) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
            pass

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, data: dict[str, Any]) -> None:
            self._send(200, json.dumps(data).encode(), "application/json")

        def _ours(self) -> bool:
            if self.headers.get("Host") != f"127.0.0.1:{person.server.server_port}":
                self._send(403, b"not this host", "text/plain")
                return False
            return True

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if not self._ours():
                return
            if self.path == "/":
                self._send(200, PAGE.encode(), "text/html; charset=utf-8")
            elif self.path == "/state":
                if person.state.get("over"):
                    person.ended_seen = True
                self._json(person.state)
            else:
                self._send(404, b"not found", "text/plain")

        def do_POST(self) -> None:  # noqa: N802
            if not self._ours():
                return
            length = int(self.headers.get("Content-Length") or 0)
            if self.path != "/act" or not 0 < length <= MAX_BODY or person.state.get("over"):
                self._send(400, b"bad request", "text/plain")
                return
            line = self.rfile.read(length).decode("utf-8", "replace")
            self._json(person.choose(line))

    return Handler


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>treasure play</title>
<style>
body { font-family: sans-serif; margin: 1em; background: #fdfcf7; }
pre { font-size: 13px; line-height: 1.1; background: #fff; border: 1px solid #ccc; padding: .5em; }
#controls button { margin: 2px; min-width: 3em; }
#error { color: #a00; min-height: 1.2em; }
#status { font-weight: bold; }
</style></head>
<body>
<div id="status" data-over="0">loading...</div>
<div id="controls">
  <div>move <select id="steps"><option>1</option><option>2</option><option>3</option><option>4</option></select>
    tiles: <button data-move="n">N &uarr;</button><button data-move="e">E &rarr;</button>
    <button data-move="s">S &darr;</button><button data-move="w">W &larr;</button>
    (arrow keys; 1-2 tiles then a 3x3 scan, 3-4 no scan)</div>
  <div><button id="scan">scan 5x5</button> (x)
    &nbsp; verify hint <input id="hint" type="number" min="1" size="3"><button id="verify">verify</button>
    &nbsp; teleport to row <input id="row" type="number" min="0" size="3"> column
    <input id="col" type="number" min="0" size="3"><button id="teleport">teleport</button></div>
  <div>or type what the terminal takes: <input id="line" size="12" placeholder="n 2, x, v 3, t 12 7">
    <button id="send">send</button></div>
</div>
<div id="error"></div>
<pre id="frame"></pre>
<script>
"use strict";
let over = false;
function show(state) {
  document.getElementById("frame").textContent = state.frame;
  const status = document.getElementById("status");
  over = !!state.over;
  status.dataset.over = over ? "1" : "0";
  status.textContent = over ? state.message : `turn ${state.turn}, action ${state.action} of 2`;
  for (const b of document.querySelectorAll("#controls button, #controls input, #controls select"))
    b.disabled = over;
}
async function refresh() {
  const r = await fetch("/state");
  show(await r.json());
}
async function act(line) {
  if (over) return;
  const error = document.getElementById("error");
  const r = await fetch("/act", {method: "POST", body: line});
  const answer = await r.json();
  error.textContent = answer.error || "";
  if (answer.over) {
    over = true;
    const status = document.getElementById("status");
    status.textContent = answer.error;
    status.dataset.over = "1";
    return;
  }
  if (!answer.error) await refresh();
}
const steps = () => document.getElementById("steps").value;
for (const b of document.querySelectorAll("[data-move]"))
  b.addEventListener("click", () => act(`${b.dataset.move} ${steps()}`));
document.getElementById("scan").addEventListener("click", () => act("x"));
document.getElementById("verify").addEventListener("click",
  () => act(`v ${document.getElementById("hint").value}`));
document.getElementById("teleport").addEventListener("click",
  () => act(`t ${document.getElementById("row").value} ${document.getElementById("col").value}`));
document.getElementById("send").addEventListener("click", () => act(document.getElementById("line").value));
const KEYS = {ArrowUp: "n", ArrowRight: "e", ArrowDown: "s", ArrowLeft: "w"};
document.addEventListener("keydown", e => {
  if (e.target.tagName === "INPUT") { if (e.key === "Enter" && e.target.id === "line") act(e.target.value); return; }
  if (KEYS[e.key]) { e.preventDefault(); act(`${KEYS[e.key]} ${steps()}`); }
  else if (e.key === "x") act("x");
});
refresh();
</script>
</body></html>
"""
