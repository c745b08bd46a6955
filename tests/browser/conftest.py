"""A real Chromium (Debian's /usr/bin/chromium) driven by Playwright, shared by the browser tests.

Never `playwright install`: the tests use the installed browser, which
`make test` installs when missing. Every request a page makes is counted;
the pages must make none besides loading their own file.
"""

from __future__ import annotations

import io
import shutil
from dataclasses import dataclass, field

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@dataclass
class Watched:
    page: object
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def open(self, path, ready: str | None = "body[data-ready='1']"):
        url = path.resolve().as_uri()
        self.page.goto(url)
        if ready:
            self.page.wait_for_selector(ready, state="attached")
        return [r for r in self.requests if r != url]  # every request besides the file itself

    def status(self) -> dict:
        return self.page.eval_on_selector("#status", "e => ({...e.dataset, text: e.textContent})")

    def settled(self) -> None:
        """Wait two animation frames: a step that changes the page's text can resize the board,
        and the ResizeObserver fits and draws it again before the next paint, after the step's
        own draw. Geometry read sooner (tileCentre) can be the old one."""
        self.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def pixel(self, x: float, y: float) -> tuple[int, int, int]:
        from PIL import Image

        shot = Image.open(io.BytesIO(self.page.screenshot())).convert("RGB")
        return shot.getpixel((int(x), int(y)))


@pytest.fixture
def watched(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 760}, device_scale_factor=1)
    page = context.new_page()
    w = Watched(page)

    # every request is routed: a file of the page's own goes through, anything else is refused
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    page.on("request", lambda req: w.requests.append(req.url))  # and counted
    page.on("console", lambda m: w.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: w.errors.append(str(e)))
    yield w
    context.close()
