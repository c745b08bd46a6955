"""One game as a self-contained HTML page, and one frame as an SVG picture.

The frames come from the step model (view/steps.py), exactly as the
terminal view gets them; the page only draws. Nothing in the page asks the
network for anything: the CSS and JS are inline and the game is embedded as
JSON data.

The data is compact so that a 1024x1024 game stays loadable:

* the map once: terrain and region numbers as run lengths over the tiles in
  row-major order, a colour index per region (`region_hues`, as in the
  terminal);
* per step, in columns: the turn, the agent's and (once the agent knows
  where he is) the pirate's tile, the scan square, the hint the step is about
  (an index into a table of distinct hint masks, each stored once as runs),
  the candidate tiles ruled out (or back in) at that step as runs, and the
  text of the step (its log lines and the state lines of the terminal view).

Runs are flat `[gap, length, gap, length, ...]` lists: `gap` tiles skipped
after the previous run's end, then `length` tiles in the run.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
from importlib import resources
from pathlib import Path

import numpy as np

from treasure_cli.errors import TreasureError
from treasure_cli.formats.atomic import write_text_atomic
from treasure_cli.islands.style import map_style
from treasure_cli.rules import events as ev
from treasure_cli.rules.actions import scan_square
from treasure_cli.view.render import (AGENT, LAND, MOUNTAIN, OUT, PIRATE, PRISON, SEA, TREASURE,
                                      HINT_MARK, SCAN_MARK, Renderer, Viewport, region_hues, truth_word)
from treasure_cli.view.steps import FrameState, Replay
from treasure_cli.view.tables import width as columns
from treasure_cli.view.policy import with_policy

# The colours of the page and of the SVG frames (one table for both).
HUE_COLOURS = ("#3f9e4d", "#d1b53a", "#2fa3a8", "#93d07f", "#ecdc8c", "#93dcdc")
BACKGROUND = "#1d1f23"
FIXED_COLOURS = {
    SEA: "#234f9a",
    MOUNTAIN: "#6e6e6e",
    PRISON: "#a8369f",
    TREASURE: "#ffd400",
    PIRATE: "#ff79e4",
    AGENT: "#e3201b",
}
SCAN_FILL, SCAN_OPACITY = "#f0f0f0", 0.55
HINT_FILL, HINT_OPACITY = "#ffffff", 0.30
SCAN_COLOUR = f"rgba(240,240,240,{SCAN_OPACITY})"  # the same, for the page's CSS and canvas
HINT_COLOUR = f"rgba(255,255,255,{HINT_OPACITY})"
LEGEND = (
    ("sea", FIXED_COLOURS[SEA]), ("mountain", FIXED_COLOURS[MOUNTAIN]), ("prison", FIXED_COLOURS[PRISON]),
    ("agent", FIXED_COLOURS[AGENT]), ("pirate (and his path)", FIXED_COLOURS[PIRATE]),
    ("treasure", FIXED_COLOURS[TREASURE]), ("land, a colour per region", HUE_COLOURS[0]),
    ("ruled out (dimmed)", None), ("scanned now", SCAN_COLOUR), ("in this step's hint", HINT_COLOUR),
)
TERRAIN_LAND, TERRAIN_SEA, TERRAIN_MOUNTAIN, TERRAIN_PRISON = range(4)


def dim(colour: str, keep: float = 0.28) -> str:
    """A ruled-out tile's colour: its region's hue mixed into the background."""
    a = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(BACKGROUND[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x * keep + y * (1 - keep)):02x}" for x, y in zip(a, b))


DIM_COLOURS = tuple(dim(c) for c in HUE_COLOURS)


# ------------------------------------------------------------------ encoding
def _spans(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and ends (exclusive) of the runs of True tiles of a mask, row-major."""
    flat = np.concatenate(([0], np.asarray(mask, dtype=np.int8).ravel(), [0]))
    edges = np.flatnonzero(np.diff(flat))
    return edges[0::2], edges[1::2]


def runs(mask: np.ndarray) -> list[int]:
    """The True tiles of a mask (row-major) as [gap, length, gap, length, ...]."""
    starts, ends = _spans(mask)
    gaps = starts - np.concatenate(([0], ends[:-1]))
    return np.column_stack((gaps, ends - starts)).ravel().tolist()


def value_runs(values: np.ndarray) -> list[int]:
    """Any integer array (row-major) as [value, count, value, count, ...]."""
    flat = np.asarray(values).ravel()
    cuts = np.flatnonzero(np.diff(flat)) + 1
    starts = np.concatenate(([0], cuts))
    counts = np.diff(np.concatenate((starts, [flat.size])))
    return np.column_stack((flat[starts], counts)).ravel().tolist()


def _flat(pos, width: int) -> int:
    return -1 if pos is None else int(pos[0]) * width + int(pos[1])


def page_data(replay: Replay) -> dict:
    """The map once and every step as deltas (see the module docstring)."""
    island = replay.island
    w = island.width
    last = replay.last_step()
    renderer = Renderer(island, color=False)
    terrain = np.full(island.shape, TERRAIN_LAND, dtype=np.int8)
    terrain[island.sea] = TERRAIN_SEA
    terrain[island.mountain] = TERRAIN_MOUNTAIN
    terrain[island.prison] = TERRAIN_PRISON
    cols: dict[str, list] = {k: [] for k in ("turn", "agent", "pirate", "scan", "hint", "mask",
                                              "out", "back", "lines", "info", "hintText", "belief", "miss",
                                              "excess")}
    masks: list[list[int]] = []
    mask_index: dict[bytes, int] = {}
    sentences: dict[int, str] = {}
    prev = None
    first: FrameState | None = None
    final: FrameState | None = None
    for index in range(last + 1):
        st = replay.state(index)
        first = first or st
        final = st
        for e in replay.step_events(index):
            hint = getattr(e, "hint", None)
            if hint is not None and hasattr(hint, "sentence"):
                sentences[e.number] = hint.sentence()  # type: ignore[union-attr]
        if st.hint_sentence is not None and st.hint is not None:
            sentences.setdefault(st.hint, st.hint_sentence)
        cand = st.candidates
        if prev is None:
            cols["out"].append(runs(cand))  # step 0: the candidates themselves
            cols["back"].append([])
        elif cand is prev:
            cols["out"].append([])
            cols["back"].append([])
        else:
            cols["out"].append(runs(prev & ~cand))
            cols["back"].append(runs(cand & ~prev))
        prev = cand
        cols["turn"].append(st.turn)
        cols["agent"].append(_flat(st.agent, w))
        cols["pirate"].append(_flat(st.pirate, w) if st.pirate_known else -1)
        if st.scan is not None:
            rows, cs = scan_square(*st.scan)
            cols["scan"].append([rows.start, cs.start, min(rows.stop, island.height), min(cs.stop, w)])
        else:
            cols["scan"].append(0)
        def mask_number(mask: np.ndarray) -> int:
            key = np.packbits(mask).tobytes()
            if key not in mask_index:
                mask_index[key] = len(masks)
                masks.append(runs(mask))
            return mask_index[key]

        cols["mask"].append(mask_number(st.hint_mask & island.land) if st.hint_mask is not None else -1)
        cols["belief"].append(mask_number(st.belief) if st.belief is not None else -1)
        cols["excess"].append(mask_number(st.excess_tiles) if st.excess_tiles is not None else -1)
        cols["miss"].append(int(st.miss))
        cols["hint"].append(st.hint or 0)
        cols["lines"].append(list(st.lines))
        cols["info"].append([line for line in renderer.text(st) if not line.startswith("> ")])
        cols["hintText"].append(_hint_text(st, sentences))
    game = first.game if first else None
    outcome = final.outcome if final else None
    return {
        "title": (f"{game.map_name} ({w}x{island.height} {map_style(island)}), seed {game.seed}, agent {game.agent}"
                  if game else f"{w}x{island.height}"),
        "width": w, "height": island.height,
        "terrain": value_runs(terrain), "regions": value_runs(island.regions),
        "hues": {str(region): hue for region, hue in region_hues(island).items()},  # by region number
        "treasure": _flat(final.treasure if final else None, w),
        # the log's game-over line, or the line saying what failed
        "outcome": (final.lines[-1] if final is not None and (outcome is not None or final.lines[-1:]
                    and isinstance(replay.events[-1], ev.GameFailed)) else None),
        "plain": renderer.plain,
        "masks": masks, "steps": cols,
        "colours": {"hues": list(HUE_COLOURS), "dim": list(DIM_COLOURS), "background": BACKGROUND,
                    "sea": FIXED_COLOURS[SEA], "mountain": FIXED_COLOURS[MOUNTAIN],
                    "prison": FIXED_COLOURS[PRISON], "treasure": FIXED_COLOURS[TREASURE],
                    "pirate": FIXED_COLOURS[PIRATE], "agent": FIXED_COLOURS[AGENT],
                    "scan": SCAN_COLOUR, "hint": HINT_COLOUR},
    }


def _hint_text(st: FrameState, sentences: dict[int, str]) -> str:
    """The hint this step is about, else the latest one given: its words and what is known of it."""
    number = st.hint or st.hint_count
    if not number:
        return "no hint given yet"
    said = sentences.get(number, "")
    if number in st.verified:
        status = f"verified: {truth_word(st.verified[number])}"
    else:
        status = f"not verified (truth, seen only by the watcher: {truth_word(st.truths[number - 1])})"
    return f"hint {number}: {said} — {status}"


def _legend_html() -> str:
    items = []
    for label, colour in LEGEND:
        if colour is None:
            swatch = (f'<span class="sw" style="background:linear-gradient(90deg,{DIM_COLOURS[0]} 50%,'
                      f'{DIM_COLOURS[2]} 50%)"></span>')
        else:
            swatch = f'<span class="sw" style="background:{colour}"></span>'
        items.append(f"<li>{swatch}{html.escape(label)}</li>")
    return "".join(items)


def page_html(replay: Replay) -> str:
    """The whole page as one string."""
    return with_policy(_filled(page_data(replay)))


_SLOTS = re.compile(r"\{\{(TITLE|LEGEND|FRAMES)\}\}|/\*\{\{(DATA)\}\}\*/null")


def _fill(template: str, **values: str) -> str:
    """The template's {{NAME}} slots (and its /*{{DATA}}*/null) replaced in one pass: text put in
    one slot (a title naming an agent, which a student chose) is never searched for another."""
    return _SLOTS.sub(lambda m: values[m.group(1) or m.group(2)], template)


def script_json(data: object) -> str:
    """`data` as JSON safe inside a <script> element: no <, > or & in it (escaped in its strings)."""
    text = json.dumps(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _filled(data: dict) -> str:
    template = resources.files("treasure_cli.view").joinpath("page_template.html").read_text(encoding="utf-8")
    return _fill(template, TITLE=html.escape(data["title"]), LEGEND=_legend_html(), DATA=script_json(data))


def write_page(replay: Replay, path: str | Path) -> Path:
    path = Path(path)
    write_text_atomic(path, page_html(replay))
    return path


# ------------------------------------------------------------------ two games side by side
def not_comparable(a: Replay, b: Replay) -> str | None:
    """Why two games cannot be shown side by side (None when they can): they must be played on
    the same map with the same seed and truth rate, so that the pirate, the hints and their truths
    are the same and only the agents differ."""
    ga, gb = a.events[0], b.events[0]
    if not isinstance(ga, ev.GameStarted) or not isinstance(gb, ev.GameStarted):
        return "a log does not start with the game's start"
    if a.island.digest != b.island.digest:
        return f"they are not on the same map ({ga.map_name} and {gb.map_name} differ)"
    if ga.seed != gb.seed:
        return f"they are not the same game: seeds {ga.seed} and {gb.seed}"
    if ga.truth_rate != gb.truth_rate:
        return f"they are not the same game: truth rates {ga.truth_rate:g} and {gb.truth_rate:g}"
    return None


def aligned(turns_a: list[int], turns_b: list[int]) -> list[tuple[int, int]]:
    """Pairs of steps shown together: turn by turn, the steps of each game side by side; the
    game with fewer steps in a turn (or already over) stays on its latest step meanwhile."""
    out: list[tuple[int, int]] = []
    ia = ib = 0
    while ia < len(turns_a) or ib < len(turns_b):
        turn = min(turns_a[ia] if ia < len(turns_a) else 1 << 30, turns_b[ib] if ib < len(turns_b) else 1 << 30)
        while (ia < len(turns_a) and turns_a[ia] == turn) or (ib < len(turns_b) and turns_b[ib] == turn):
            take_a = ia < len(turns_a) and turns_a[ia] == turn
            take_b = ib < len(turns_b) and turns_b[ib] == turn
            out.append((ia if take_a else ia - 1, ib if take_b else ib - 1))
            ia += take_a
            ib += take_b
    return out


def compare_html(a: Replay, b: Replay) -> str:
    """Two games of one map and seed as one page: each game's own replay page, side by side,
    stepping together (see `aligned`). Each board keeps its own controls; a step taken in
    either moves the other to the step shown beside it."""
    why = not_comparable(a, b)
    if why is not None:
        raise TreasureError(f"two logs are compared only when they are the same game: {why}")
    da, db = page_data(a), page_data(b)
    pairs = aligned(da["steps"]["turn"], db["steps"]["turn"])
    title = f"{da['title']} — against {b.events[0].agent}"  # type: ignore[union-attr]  # a log starts with GameStarted
    template = resources.files("treasure_cli.view").joinpath("compare_template.html").read_text(encoding="utf-8")
    frames = "".join(f'<iframe id="board{k}" title="{html.escape(d["title"])}" srcdoc="{html.escape(with_policy(_filled(d)))}">'
                      "</iframe>" for k, d in enumerate((da, db)))
    turns = [min(da["steps"]["turn"][i], db["steps"]["turn"][j]) for i, j in pairs]  # for "a turn, then Enter"
    return with_policy(_fill(template, TITLE=html.escape(title), FRAMES=frames,
                             DATA=script_json({"pairs": pairs, "turns": turns})))


def write_compare(a: Replay, b: Replay, path: str | Path) -> Path:
    path = Path(path)
    write_text_atomic(path, compare_html(a, b))
    return path


# ------------------------------------------------------------------ SVG
SVG_CHAR_WIDTH = 7.25  # px a character of a 12 px monospace font takes (0.6 em), a little over


def frame_svg(replay: Replay, index: int) -> str:
    """One frame as SVG: a rect per run of equally coloured tiles, the scan and hint over them, a legend."""
    island = replay.island
    st = replay.state(index)
    if not replay.is_last(index):
        st = dataclasses.replace(st, treasure=None)  # as on the page: the treasure is marked at the end
    renderer = Renderer(island, color=False)
    kind, hue, mark = renderer.kinds(st, Viewport(0, 0, island.height, island.width))
    fills = np.empty(kind.shape, dtype=object)
    for k, colour in FIXED_COLOURS.items():
        fills[kind == k] = colour
    for h in range(len(HUE_COLOURS)):
        fills[(kind == LAND) & (hue % len(HUE_COLOURS) == h)] = HUE_COLOURS[h]
        fills[(kind == OUT) & (hue % len(HUE_COLOURS) == h)] = DIM_COLOURS[h]
    tile = max(1.0, min(16.0, 800 / max(island.shape)))
    w, h = island.width, island.height
    legend_rows = (len(LEGEND) + 1) // 2
    text_lines = renderer.heading(st, Viewport(0, 0, h, w)) + ["> " + line for line in st.lines]
    extra = 18 * (legend_rows + len(text_lines)) + 10
    # The text is in a monospace font, so its width is known: each line fits, however long a name
    # (in columns: a wide character takes two).
    width_px = max(w * tile, 520, 8 + SVG_CHAR_WIDTH * max((columns(line) for line in text_lines), default=0))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width_px:g}" height="{h * tile + extra:g}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="100%" height="100%" fill="{BACKGROUND}"/>',
           f'<g transform="scale({tile:g})" shape-rendering="crispEdges">']
    for r in range(h):
        row = fills[r]
        c = 0
        while c < w:
            e = c + 1
            while e < w and row[e] == row[c]:
                e += 1
            out.append(f'<rect x="{c}" y="{r}" width="{e - c}" height="1" fill="{row[c]}"/>')
            c = e
    for r in range(h):
        for start, end in zip(*_spans(mark[r] == HINT_MARK)):
            out.append(f'<rect x="{start}" y="{r}" width="{end - start}" height="1" fill="{HINT_FILL}" fill-opacity="{HINT_OPACITY}"/>')
    scanned = np.argwhere(mark == SCAN_MARK)
    if len(scanned):
        (r0, c0), (r1, c1) = scanned.min(axis=0), scanned.max(axis=0)
        out.append(f'<rect x="{c0}" y="{r0}" width="{c1 - c0 + 1}" height="{r1 - r0 + 1}" '
                   f'fill="{SCAN_FILL}" fill-opacity="{SCAN_OPACITY}" stroke="#ffffff" stroke-width="{1.5 / tile:g}"/>')
    for r, c in np.argwhere(kind >= TREASURE):  # the people and the treasure stay on top of the scan
        out.append(f'<rect x="{c}" y="{r}" width="1" height="1" fill="{fills[r, c]}" '
                   f'stroke="#000000" stroke-width="{1 / tile:g}"/>')
    out.append("</g>")
    y = h * tile + 16
    for line in text_lines:
        out.append(f'<text x="4" y="{y:g}" fill="#e8e8e8" font-family="monospace" xml:space="preserve">'
                   f'{html.escape(line)}</text>')
        y += 18
    for i, (label, colour) in enumerate(LEGEND):  # type: ignore[assignment]
        x, yy = 4 + (i % 2) * 260, y + (i // 2) * 18
        out.append(f'<rect x="{x}" y="{yy - 10}" width="12" height="12" fill="{_solid(colour)}" '
                   f'stroke="#888"/><text x="{x + 18}" y="{yy}" fill="#e8e8e8">{html.escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _solid(colour: str | None) -> str:
    """A legend swatch's colour in SVG: the dimmed hue for ruled-out land, a translucent overlay as seen over land."""
    if colour is None:
        return DIM_COLOURS[0]
    if colour == SCAN_COLOUR:
        return dim(SCAN_FILL, SCAN_OPACITY)
    if colour == HINT_COLOUR:
        return dim(HINT_FILL, HINT_OPACITY)
    return colour


def write_svg(replay: Replay, index: int, path: str | Path) -> Path:
    path = Path(path)
    write_text_atomic(path, frame_svg(replay, index))
    return path


def pages_beside_logs(records) -> list[Path]:
    """`run --html`: LOG_<id>.html beside each log written, from the log and its map (as `replay` reads them)."""
    from treasure_cli.view.sources import open_log

    written = []
    for record in records:
        if record.log:
            log = Path(record.log)
            written.append(write_page(open_log(log, record.map), log.with_suffix(".html")))
    return written
