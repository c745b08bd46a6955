"""`treasure play MAP --serve`: the person plays on a page, served from this machine only.

A small HTTP server on 127.0.0.1 (a free port the system picks) serves one
self-contained page. The page shows the board as `replay --svg` draws it
(view/page.py's frame_svg) above the frame the terminal `play` shows, and
sends each action the person chooses (a button, a key, or the same line the
terminal takes) as a POST; the server checks it against the game and the
game steps. The game is the terminal's: `PagePerson` is the agent that
`play_agent` asks for each action, and it waits (the server answering in
threads of its own) until the page sends one the rules allow. Nothing else is served: one page, its
state, its actions; a request naming another host is refused (a page of
another site cannot reach the game through a name that resolves here), and
so is one a page of another origin sends (it cannot play the person's game).
"""

from __future__ import annotations

import html
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from treasure_cli.view.person import GaveUp, Person, parse_action
from treasure_cli.errors import TreasureError

if TYPE_CHECKING:
    from treasure_cli.rules.actions import Action
    from treasure_cli.rules.game import Game
    from treasure_cli.rules.observation import Observation
    from treasure_cli.view.render import Renderer

MAX_BODY = 200        # bytes of an action's line
END_WAIT = 30.0       # seconds the server waits, after the game, for the page to fetch its end
QUIT_WAIT = 5.0       # seconds the game waits, once the person gave up, for the page's answer to be sent
STEP_WAIT = 60.0      # seconds an action's answer waits for the game to step


class PagePerson(Person):
    """An agent whose every action comes from the page.

    The server answers in threads of its own (a browser may hold a connection open without a
    request: it must not hold the game); the game stays in the caller's thread. An action's POST
    waits for the game to step and answers with the state that follows.
    """

    def __init__(self, game: Game, renderer: Renderer, echo: Callable[..., None]) -> None:
        super().__init__(game, renderer, echo, lambda: "")
        self.state: dict[str, Any] = {}
        self.version = 0                  # one more at each new state
        self.chosen: Action | None = None
        self.gave_up: str | None = None
        self.gave_up_sent = False         # the page's answer to its giving up is written
        self.ended_seen = False
        self.changed = threading.Condition()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}/"
        self.serving = threading.Thread(target=self.server.serve_forever, name="play-page", daemon=True)
        self.serving.start()

    def _show(self, state: dict[str, Any]) -> None:
        with self.changed:
            self.state = state
            self.version += 1
            self.chosen = None
            self.changed.notify_all()

    def act(self, obs: Observation) -> Action:
        from treasure_cli.view.page import frame_svg
        from treasure_cli.view.steps import Replay

        frame = self.seen_frame(obs)
        replay = Replay(obs.island, list(self.seen))  # the public island: no treasure to draw
        # As in the terminal frame: no title (the game's seed is not the agent's to know)
        board = frame_svg(replay, replay.last_step()).replace(
            ">?</text>", f">your game on {html.escape(self.game.map_name)}</text>", 1)
        self._show({"frame": frame, "board": board, "turn": obs.turn,
                    "action": 3 - obs.actions_left, "over": False, "message": ""})
        with self.changed:
            while self.chosen is None and self.gave_up is None:
                self.changed.wait(0.5)  # a timeout: Ctrl-C is seen while waiting
            if self.gave_up is not None:
                # The program ends with the game: first let the server write the page its answer
                # (else, on a busy machine, the page lost it and never showed the game over).
                deadline = time.monotonic() + QUIT_WAIT
                while not self.gave_up_sent and time.monotonic() < deadline:
                    self.changed.wait(0.1)
                raise GaveUp(self.gave_up)
            chosen = self.chosen
            assert chosen is not None
            return chosen

    def choose(self, line: str) -> dict[str, Any]:
        """An action line from the page (in a server thread): once the rules allow it and the game
        has stepped, the state that follows; else why not."""
        words = line.strip().lower().replace(",", " ").split()
        with self.changed:
            if self.state.get("over") or self.gave_up is not None or self.chosen is not None:
                return {"error": "not now: the game is over or an action is on its way"}
            if not words:
                return {"error": "no action"}
            if words[0] in ("q", "quit"):
                self.gave_up = f"you gave up on turn {self.state.get('turn')}: no log written"
                self.changed.notify_all()
                return {"error": self.gave_up, "over": True}
            try:
                action = parse_action(words)
                self.game.check(action)  # the game waits in act() meanwhile
            except (ValueError, TreasureError) as exc:
                return {"error": f"not possible: {getattr(exc, 'message', str(exc))}"}
            seen = self.version
            self.chosen = action
            self.changed.notify_all()
            while self.version == seen:
                if not self.changed.wait(STEP_WAIT):
                    return {"error": "the game did not answer"}
            return self.current()

    def current(self) -> dict[str, Any]:
        """The state the page shows (under the lock)."""
        if self.state.get("over"):
            self.ended_seen = True
            self.changed.notify_all()
        return dict(self.state)

    def sent(self, answer: dict[str, Any]) -> None:
        """The server wrote the page `answer` to an action line: once it says the person gave up,
        the game may end (and the program with it)."""
        if answer.get("over"):
            with self.changed:
                self.gave_up_sent = True
                self.changed.notify_all()

    def finish(self, frame: str, board: str, message: str) -> None:
        """Show the end (the map with its treasure), until the page has it or END_WAIT passes."""
        self._show({"frame": frame, "board": board, "over": True, "message": message})
        deadline = time.monotonic() + END_WAIT
        with self.changed:
            while not self.ended_seen and time.monotonic() < deadline:
                self.changed.wait(0.5)

    def close(self) -> None:
        self.server.shutdown()
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
            here = f"127.0.0.1:{person.server.server_port}"
            origin = self.headers.get("Origin")  # a browser names the page that sends a POST
            if self.headers.get("Host") != here or origin not in (None, f"http://{here}"):
                self._send(403, b"not this host", "text/plain")
                return False
            return True

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if not self._ours():
                return
            if self.path == "/":
                self._send(200, PAGE.encode(), "text/html; charset=utf-8")
            elif self.path == "/state":
                with person.changed:
                    state = person.current()
                self._json(state)
            else:
                self._send(404, b"not found", "text/plain")

        def do_POST(self) -> None:  # noqa: N802
            if not self._ours():
                return
            given = self.headers.get("Content-Length") or "0"
            length = int(given) if given.isdigit() else 0
            if self.path != "/act" or not 0 < length <= MAX_BODY:
                self._send(400, b"bad request", "text/plain")
                return
            line = self.rfile.read(length).decode("utf-8", "replace")
            answer = person.choose(line)
            self._json(answer)
            person.sent(answer)

    return Handler


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>treasure play</title>
<style>
body { font-family: sans-serif; margin: 1em; background: #fdfcf7; }
pre { font-size: 13px; line-height: 1.1; background: #fff; border: 1px solid #ccc; padding: .5em; }
#controls button { margin: 2px; min-width: 3em; }
#error { color: #a00; min-height: 1.2em; }
input[type=number] { width: 4em; }
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
<div id="board"></div>
<pre id="frame"></pre>
<script>
"use strict";
let over = false, busy = false;
function show(state) {
  document.getElementById("frame").textContent = state.frame;
  document.getElementById("board").innerHTML = state.board;  // the replay page's SVG drawing, made here
  const status = document.getElementById("status");
  over = !!state.over;
  status.dataset.over = over ? "1" : "0";
  status.textContent = over ? state.message : `turn ${state.turn}, action ${state.action} of 2`;
  for (const b of document.querySelectorAll("#controls button, #controls input, #controls select"))
    b.disabled = over;
}
async function refresh() {
  // The page can load before the game asks for its first action (the server is up first):
  // until there is a state to show, or while the server does not answer, ask again.
  try {
    const r = await fetch("/state");
    const state = await r.json();
    if (state.frame !== undefined) { show(state); return; }
  } catch (e) { /* not answering yet */ }
  setTimeout(refresh, 200);
}
async function act(line) {
  if (over || busy) return;
  const error = document.getElementById("error");
  busy = true;
  let answer;
  try {
    const r = await fetch("/act", {method: "POST", body: line});
    answer = await r.json();
  } finally { busy = false; }
  error.textContent = answer.error || "";
  if (answer.error && answer.over) {  // gave up
    over = true;
    const status = document.getElementById("status");
    status.textContent = answer.error;
    status.dataset.over = "1";
    return;
  }
  if (!answer.error) show(answer);
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
