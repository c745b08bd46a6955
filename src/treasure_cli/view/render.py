"""Frames for the step-through view: one game state -> the text of one screen.

This is the only module that imports termcolor. A frame is built so that it
reads the same with or without colour: every tile is two characters, a symbol
(`~` sea, `^` mountain, `P` prison, `A` agent, `X` pirate, `$` treasure, a
letter per land region, `.` for land the agent has ruled out) and a marker
(`#` the square scanned in this step, `+` the tiles of the hint this step is
about). Colour only adds escape codes around the same characters, so
stripping them from a coloured frame gives the plain one.

Only the window shown is turned into text; the per-tile work is numpy over
the window's slice, so a 1024x1024 map costs the same per frame as a small one.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import textwrap
from typing import TYPE_CHECKING

import numpy as np
from termcolor import colored

from treasure_cli.formats.game_record import quote_name
from treasure_cli.formats.text import printable
from treasure_cli.islands.style import map_style
from treasure_cli.rules.actions import scan_square
from treasure_cli.rules.grid import format_pos
from treasure_cli.rules.island import Island

if TYPE_CHECKING:
    from treasure_cli.view.steps import FrameState

# Tile kinds, in the order later ones are drawn over earlier ones.
OUT, LAND, SEA, MOUNTAIN, PRISON, TREASURE, PIRATE, AGENT = range(8)
_SYMBOLS = {OUT: ".", SEA: "~", MOUNTAIN: "^", PRISON: "P", TREASURE: "$", PIRATE: "X", AGENT: "A"}
NO_MARK, HINT_MARK, SCAN_MARK, BELIEF_MARK = 0, 1, 2, 3
_MARKS = (" ", "+", "#", "*")
# Region backgrounds; blue, red, magenta and grey stay free for sea, agent, prison/pirate and mountains.
HUES = ("green", "yellow", "cyan", "light_green", "light_yellow", "light_cyan")
LETTERS = "abcdefghijklmnopqrstuvwxyz"
PIPE_WINDOW = 64  # tiles per side when the output is not a terminal (files, pipes, tests)
MAX_LOG_LINES = 5  # the longest step: turn start, reveal, release, hint given, hint added
_ANSI = re.compile(r"\x1b\[[0-9;]*m")

Style = tuple[str | None, str | None, tuple[str, ...]]
_FIXED: dict[int, Style] = {
    SEA: ("light_cyan", "on_blue", ()),
    MOUNTAIN: ("light_grey", "on_dark_grey", ()),
    PRISON: ("white", "on_magenta", ("bold",)),
    TREASURE: ("light_yellow", "on_black", ("bold",)),
    PIRATE: ("black", "on_light_magenta", ("bold",)),  # the colour of the prisons he comes from
    AGENT: ("white", "on_red", ("bold",)),
}


def use_color(flag: bool | None, stream) -> bool:
    """--color/--no-color win; otherwise colour only on a terminal and without NO_COLOR."""
    if flag is not None:
        return flag
    return bool(stream.isatty()) and not os.environ.get("NO_COLOR")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def style_of(kind: int, hue: int, mark: int) -> Style:
    if kind in (LAND, OUT):
        name = HUES[hue % len(HUES)]
        # A candidate is a solid block; a ruled-out tile keeps only a dim dot in its region's hue.
        fg, bg, attrs = ("black", "on_" + name, ()) if kind == LAND else (name, None, ("dark",))
    else:
        fg, bg, attrs = _FIXED[kind]  # type: ignore[assignment]
    if mark == SCAN_MARK and kind < TREASURE:  # people and the treasure stay recognisable inside a scan
        return ("black", "on_light_grey", ())
    if mark == HINT_MARK and "bold" not in attrs:
        attrs = attrs + ("bold",)  # type: ignore[assignment]
    if mark == BELIEF_MARK:
        attrs = attrs + ("underline",)  # type: ignore[assignment]
    return fg, bg, attrs


def paint(text: str, style: Style, color: bool) -> str:
    if not color:
        return text
    fg, bg, attrs = style
    return colored(text, fg, bg, list(attrs) or None, force_color=True)


def region_hues(island: Island) -> dict[int, int]:
    """A colour index per region number (sea included) so that touching regions differ.

    Greedy colouring, regions with most neighbours first: island maps are
    near-planar, so a handful of indices is enough in practice; any index
    past the palette still gets its own letter, so regions stay apart
    without colour.
    """
    neighbours: dict[int, set[int]] = {r: set() for r in island.land_regions}
    for a, b in island.adjacent_pairs:
        neighbours[a].add(b)
        neighbours[b].add(a)
    hue: dict[int, int] = {0: 0}
    for region in sorted(neighbours, key=lambda r: (-len(neighbours[r]), r)):
        taken = {hue[n] for n in neighbours[region] if n in hue}
        hue[region] = next(i for i in range(len(taken) + 1) if i not in taken)
    return hue


def hue_lookup(hues: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """`hues` as (sorted region numbers, their colour indices), for `tile_hues`.

    A lookup by sorted region number, not a table indexed by it: region
    numbers near 2**31 in a foreign map must not cost a table that large.
    """
    ids = np.array(sorted(hues), dtype=np.int64)
    return ids, np.array([hues[int(i)] for i in ids], dtype=np.int16)


def tile_hues(island: Island, lookup: tuple[np.ndarray, np.ndarray], window=np.s_[:, :]) -> np.ndarray:
    """The colour index of every tile of `window` (the whole map by default), as an array."""
    ids, values = lookup
    return values[np.searchsorted(ids, island.regions[window])]


# ------------------------------------------------------------------ the window
@dataclasses.dataclass(frozen=True)
class Viewport:
    top: int
    left: int
    rows: int
    cols: int


def _follow_axis(prev: int | None, focus: int, size: int, total: int) -> int:
    if size >= total:
        return 0
    margin = size // 4
    if prev is None or not prev <= focus < prev + size:
        start = focus - size // 2  # first frame or a jump: centre on the focus
    else:
        start = min(prev, focus - margin)
        start = max(start, focus - (size - 1 - margin))
    return max(0, min(start, total - size))


def follow(prev: Viewport | None, focus: tuple[int, int], shape: tuple[int, int], rows: int, cols: int) -> Viewport:
    """The window of rows x cols tiles that keeps `focus` a quarter of the window away from its edges.

    It moves only when the focus comes too near an edge, so the picture
    stays still while the agent walks around the middle of it.
    """
    rows, cols = max(1, min(rows, shape[0])), max(1, min(cols, shape[1]))
    # A frame with more text lines has a shorter window: keep the corner, do not recentre.
    top = _follow_axis(prev.top if prev else None, focus[0], rows, shape[0])
    left = _follow_axis(prev.left if prev else None, focus[1], cols, shape[1])
    return Viewport(top, left, rows, cols)


# ------------------------------------------------------------------ frames
_LEGEND = (
    ((SEA, 0, NO_MARK), "sea"), ((MOUNTAIN, 0, NO_MARK), "mountain"), ((PRISON, 0, NO_MARK), "prison"),
    ((AGENT, 0, NO_MARK), "agent"), ((PIRATE, 0, NO_MARK), "pirate"), ((TREASURE, 0, NO_MARK), "treasure"),
)
_LEGEND2 = (
    ((LAND, 0, NO_MARK), "land (a letter per region)"), ((OUT, 0, NO_MARK), "ruled out"),
    ((LAND, 1, SCAN_MARK), "scanned now"), ((LAND, 2, HINT_MARK), "in this step's hint"),
)


class Renderer:
    """Turns frame states into screens; remembers the window so it can follow the agent.

    `window` forces the window size in tiles (rows, cols). `screen` is the
    terminal size (columns, lines) to fill; None means the output is not a
    terminal, and the window is then at most PIPE_WINDOW tiles a side.
    """

    def __init__(self, island: Island, *, color: bool, window: tuple[int, int] | None = None,
                 screen: tuple[int, int] | None = None):
        self.island = island
        self.color = color
        self.window = window
        self.screen = screen
        # Hues are looked up for the window only, frame by frame: a whole-map table
        # cost 0.45 s at 4096x4096, for a window of a few thousand tiles.
        self.hue_lookup = hue_lookup(region_hues(island))
        self.gutter = len(str(island.height - 1))
        self.plain = int((island.walkable & ~island.prison).sum())  # the tiles that could hold a treasure
        self.style = map_style(island)  # named in the heading, beside the size
        self.view: Viewport | None = None
        self.beliefs = True  # mark the tiles of the agent's notes, when the game has any (`n` toggles)

    def reset(self) -> None:
        """Forget the window: the next frame is centred on the agent (after a jump)."""
        self.view = None

    # -- the whole screen -------------------------------------------------------
    def frame(self, state: FrameState) -> str:
        text = self.text(state)
        rows, cols = self._window_size(len(text))
        focus = state.agent if state.agent is not None else (self.island.height // 2, self.island.width // 2)
        self.view = follow(self.view, focus, self.island.shape, rows, cols)
        lines = self.heading(state, self.view) + self.ruler(self.view) + self.tiles(state, self.view)
        return "\n".join(lines + text + self.legend(state))

    def _window_size(self, text_lines: int) -> tuple[int, int]:
        if self.window is not None:
            return self.window
        if self.screen is None:
            return PIPE_WINDOW, PIPE_WINDOW
        columns, lines = self.screen
        # heading 2 + ruler 1 + text (at least its usual size, so the map does not jump) + legend 2 + message + prompt
        used = 3 + max(text_lines, MAX_LOG_LINES + 3) + 2 + 2
        return max(3, lines - used), max(3, (columns - self.gutter - 1) // 2)

    def heading(self, state: FrameState, view: Viewport) -> list[str]:
        isl, game = self.island, state.game
        title = (f"{quote_name(game.map_name)} ({isl.width}x{isl.height} {self.style}), seed {game.seed}, "
                 f"agent {quote_name(game.agent)}") if game else "?"
        total = f" of {state.total - 1}" if state.total is not None else ""  # steps count from 0, the setup
        where = f"step {state.index}{total}, turn {state.turn}"
        if state.total is None:
            where += " (game in progress)"
        if (view.rows, view.cols) != isl.shape:
            where += (f"; rows {view.top}-{view.top + view.rows - 1}, "
                      f"columns {view.left}-{view.left + view.cols - 1} shown")
        return [title, where]

    def ruler(self, view: Viewport) -> list[str]:
        """Column numbers every 5 tiles, so positions in the log can be found on the map."""
        chars = [" "] * (view.cols * 2)
        free = 0
        for c in range(view.left, view.left + view.cols):
            label, at = str(c), (c - view.left) * 2
            if c % 5 == 0 and at >= free and at + len(label) <= len(chars):
                chars[at:at + len(label)] = label
                free = at + len(label) + 1
        return [(" " * (self.gutter + 1) + "".join(chars)).rstrip()]

    # -- the map ----------------------------------------------------------------
    def kinds(self, state: FrameState, view: Viewport) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Kind, hue and marker of every tile in the window (numpy over the window only)."""
        isl = self.island
        win = np.s_[view.top:view.top + view.rows, view.left:view.left + view.cols]
        kind = np.where(state.candidates[win], LAND, OUT).astype(np.int8)
        kind[isl.sea[win]] = SEA
        kind[isl.mountain[win]] = MOUNTAIN
        kind[isl.prison[win]] = PRISON
        points = [(state.treasure, TREASURE), (state.pirate if state.pirate_known else None, PIRATE),
                  (state.agent, AGENT)]
        for pos, k in points:
            if pos is not None and 0 <= pos[0] - view.top < view.rows and 0 <= pos[1] - view.left < view.cols:
                kind[pos[0] - view.top, pos[1] - view.left] = k
        hue = tile_hues(isl, self.hue_lookup, win)
        mark = np.zeros(kind.shape, dtype=np.int8)
        if state.hint_mask is not None:
            mark[state.hint_mask[win] & isl.land[win]] = HINT_MARK
        if self.beliefs and state.belief is not None:
            mark[(mark == NO_MARK) & state.belief[win]] = BELIEF_MARK
        if state.scan is not None:
            rows, cols = scan_square(*state.scan)  # map coordinates: shift them into the window
            mark[max(rows.start - view.top, 0):max(rows.stop - view.top, 0),
                 max(cols.start - view.left, 0):max(cols.stop - view.left, 0)] = SCAN_MARK
        return kind, hue, mark

    def tiles(self, state: FrameState, view: Viewport) -> list[str]:
        kind, hue, mark = self.kinds(state, view)
        letters = np.array(list(LETTERS))[hue % len(LETTERS)]
        symbols = np.where(kind == LAND, letters, np.array([_SYMBOLS.get(k, "?") for k in range(8)])[kind])
        markers = np.array(_MARKS)[mark]
        out = []
        for i, r in enumerate(range(view.top, view.top + view.rows)):
            cells = np.char.add(symbols[i], markers[i]).tolist()
            if self.color:
                body = self._paint_row(cells, kind[i].tolist(), hue[i].tolist(), mark[i].tolist())
            else:
                body = "".join(cells).rstrip()
            out.append(f"{r:>{self.gutter}} {body}")
        return out

    def _paint_row(self, cells: list[str], kinds: list[int], hues: list[int], marks: list[int]) -> str:
        """One escape sequence per run of equally styled tiles, not per tile."""
        parts, run, key = [], [], None  # type: ignore[var-annotated]
        for cell, k, h, m in zip(cells, kinds, hues, marks):
            style = style_of(k, h, m)
            if style != key and run:
                parts.append(paint("".join(run), key, True))  # type: ignore[arg-type]
                run = []
            key = style
            run.append(cell)
        if run:
            parts.append(paint("".join(run), key, True))  # type: ignore[arg-type]
        return "".join(parts)

    # -- the text under the map ---------------------------------------------------
    def text(self, state: FrameState) -> list[str]:
        lines = ["> " + line for line in state.lines]
        if state.hint is not None and state.hint_sentence is not None:
            lines.append(f"hint {state.hint} ({truth_word(state.truths[state.hint - 1])}): {state.hint_sentence}")
        lines.append(f"agent at {_pos(state.agent)}, teleport {'used' if state.teleport_used else 'unused'}; "
                     f"candidates left: {int(state.candidates.sum())} of {self.plain} tiles")
        verified = [f"{n} {truth_word(t)}" for n, t in sorted(state.verified.items())]
        unverified = [f"{n} ({truth_word(state.truths[n - 1])})"
                      for n in range(1, state.hint_count + 1) if n not in state.verified]
        lines.append(f"hints: {state.hint_count} given; verified: {_few(verified)}; unverified: {_few(unverified)}")
        lines.append("pirate: " + self._pirate(state))
        if state.note is not None:
            lines.append(f"agent's note: {printable(' '.join(state.note.splitlines()))}")  # the agent's words: no control characters
        if state.belief is not None:
            told = "where it believes the treasure can be" if state.belief_candidates else "tiles it showed"
            lines.append(f"agent's tiles: {int(state.belief.sum())}, {told}"
                         + ("" if self.beliefs else " (hidden: n shows them)"))
            if state.excess:
                lines.append(f"  {state.excess} of them the facts before this action rule out "
                             "(check-agent --beliefs --complete says which)")
        if state.miss:
            lines.append(f"!! turn {state.turn}: your agent ruled out the treasure's tile")
        if self.screen is not None:  # a terminal wraps long lines itself; count the rows they take
            width = max(20, self.screen[0])
            lines = [chunk for line in lines for chunk in _wrap(line, width)]
        return lines

    def _pirate(self, state: FrameState) -> str:
        if state.prison is None or state.pirate is None:
            return "not placed yet"
        revealed = ("revealed to the agent" if state.prison_revealed
                    else f"hidden from the agent until turn {state.reveal_turn}")
        if not state.pirate_free:
            return f"locked in the prison at {_pos(state.prison)} ({revealed}), free from turn {state.free_turn}"
        if state.pirate == state.treasure:
            return f"free, he has reached the treasure at {_pos(state.pirate)}"
        steps = int(self.island.treasure_distance[state.pirate]) if self.island.treasure is not None else -1
        away = f", {steps} steps from the treasure" if steps >= 0 else ""
        return f"free, at {_pos(state.pirate)}{away}"

    def legend(self, state: FrameState | None = None) -> list[str]:
        def entry(key: tuple[int, int, int], what: str) -> str:
            kind, hue, mark = key
            symbol = LETTERS[hue] if kind == LAND else _SYMBOLS[kind]
            gap = "" if mark == NO_MARK else " "  # the empty marker already is the gap
            return paint(symbol + _MARKS[mark], style_of(kind, hue, mark), self.color) + gap + what
        lines = ["legend: " + "  ".join(entry(k, w) for k, w in _LEGEND),
                 "        " + "  ".join(entry(k, w) for k, w in _LEGEND2)]
        if state is not None and state.belief is not None and self.beliefs:
            lines.append("        " + entry((LAND, 3, BELIEF_MARK), "in the agent's note (n hides)"))
        return lines


def _pos(p: tuple[int, int] | None) -> str:
    return "?" if p is None else format_pos(p)


def truth_word(t: bool | None) -> str:
    return "unknown" if t is None else ("true" if t else "false")


def _few(items: list[str], limit: int = 6) -> str:
    """A short list: long ones keep the latest entries, the rest are counted."""
    if not items:
        return "none"
    if len(items) <= limit:
        return ", ".join(items)
    return f"{len(items)} hints, the latest " + ", ".join(items[-limit:])


def _wrap(line: str, width: int) -> list[str]:
    return textwrap.wrap(line, width - 1, subsequent_indent="    ") or [""]


REDRAW = "\x1b[H\x1b[2J"  # cursor home, clear the screen: each frame is drawn in place


def terminal_screen() -> tuple[int, int]:
    """(columns, lines) of the terminal, honouring COLUMNS and LINES."""
    size = shutil.get_terminal_size()
    return size.columns, size.lines
