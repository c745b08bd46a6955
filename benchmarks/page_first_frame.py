"""How fast the replay page opens and steps, in headless Chromium; and the screenshot for the docs.

    .venv/bin/treasure generate --size 1024 --seed 1 -o big.txt
    .venv/bin/treasure run big.txt bigout/
    .venv/bin/python benchmarks/page_first_frame.py bigout/LOG_big.txt --map big.txt

Prints the page's size, the time from navigation to the first frame drawn
(the page has parsed its data, decoded the map and painted step 0), and
the time per step forward and back. With --shot PNG it also saves a
screenshot of turn --turn of the game (docs/img/replay-page.png is made from
tests/golden/LOG_03.txt this way). Not a test: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from treasure_cli.view.page import write_page
from treasure_cli.view.sources import open_log

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("--map")
    ap.add_argument("--shot", help="save a screenshot here")
    ap.add_argument("--turn", type=int, default=0, help="the turn shown in the screenshot")
    ap.add_argument("--size", default="1280x800", help="window size [1280x800]")
    ap.add_argument("--runs", type=int, default=3, help="page loads to time")
    a = ap.parse_args()
    t = time.perf_counter()
    replay = open_log(a.log, a.map)
    page_path = Path(tempfile.mkdtemp()) / "page.html"
    write_page(replay, page_path)
    print(f"page: {page_path.stat().st_size / 1024:.0f} KB, {replay.last_step() + 1} steps, "
          f"{replay.island.width}x{replay.island.height}, written in {time.perf_counter() - t:.2f} s")
    width, height = (int(x) for x in a.size.split("x"))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        loads = []
        for _ in range(a.runs):
            page = browser.new_page(viewport={"width": width, "height": height})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))  # noqa: B023  (this page's list)
            t = time.perf_counter()
            page.goto(page_path.as_uri())
            page.wait_for_selector("body[data-ready='1']", state="attached")
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")  # the frame is on screen
            loads.append(time.perf_counter() - t)
            if errors:
                sys.exit(f"page errors: {errors}")
        print(f"first frame: {', '.join(f'{x:.2f}' for x in loads)} s (median {statistics.median(loads):.2f} s)")
        per_step = page.evaluate("""() => {
            const tp = window.treasurePage, n = tp.steps, times = [];
            for (let k = 1; k < n; k++) { const t = performance.now(); tp.show(k); times.push(performance.now() - t); }
            for (let k = n - 2; k >= 0; k--) { const t = performance.now(); tp.show(k); times.push(performance.now() - t); }
            times.sort((a, b) => a - b);
            return [times[times.length >> 1], times[Math.floor(times.length * 0.95)], times[times.length - 1]];
        }""")
        print("step forward/back: median {:.1f} ms, 95th percentile {:.1f} ms, max {:.1f} ms".format(*per_step))
        t = time.perf_counter()
        page.keyboard.press("End")
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
        print(f"jump to the last step (End key, drawn): {1000 * (time.perf_counter() - t):.0f} ms")
        if a.shot:
            page.keyboard.press("Home")
            if a.turn:
                page.keyboard.type(str(a.turn))
                page.keyboard.press("Enter")
            page.screenshot(path=a.shot)
            print(f"wrote {a.shot}")
        browser.close()


if __name__ == "__main__":
    main()
