"""`treasure bench --html`: the benchmark as one self-contained page of charts and the table.

The charts are drawn by matplotlib with its SVG backend and put inline in
the page, so the page needs no network and no script. matplotlib is an
optional extra (`pip install 'treasure-cli[plot]'`): only this report needs
it, and it is imported here alone, when a report is asked for.

The input is what `treasure bench --json` prints (`bench_json`), so a saved
run can be charted again later without playing it again.
"""

from __future__ import annotations

import html
import io
import math
import os
import re
import statistics
import types
from collections import defaultdict
from pathlib import Path

from treasure_cli.errors import TreasureError
from treasure_cli.formats.atomic import write_text_atomic
from treasure_cli.formats.text import counted
from treasure_cli.view.tables import bench_rows
from treasure_cli.view.palette import agent_colour
from treasure_cli.view.policy import with_policy

PLOT_MISSING = ("the bench report draws its charts with matplotlib, which is not installed: "
                "pip install 'treasure-cli[plot]'")


def _figure():
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise TreasureError(PLOT_MISSING) from None
    matplotlib.rcParams["svg.fonttype"] = "none"   # text stays text: smaller, and no embedded glyphs
    matplotlib.rcParams["svg.hashsalt"] = "treasure"  # the same ids every time
    return Figure(figsize=(7.2, 3.6), layout="constrained")


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)  # the licence block: not needed inline
    return text[text.index("<svg"):]  # drop the XML prolog and doctype: the SVG goes inline


def _legend_outside(ax, agents) -> None:
    """The legend to the right of the plot, never over bars or points (a class has many agents)."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
              ncols=1 if len(agents) <= 14 else 2, frameon=False)


def _side(size: str) -> float:
    """Tiles per side of a "WxH" size (the square root of the area for non-square maps)."""
    try:
        w, h = (int(x) for x in size.lower().split("x"))
    except ValueError:
        return float("nan")
    return math.sqrt(w * h)


def _order(data: dict) -> tuple[list[str], list[str]]:
    stats = data["stats"]
    agents = list(dict.fromkeys(s["agent"] for s in stats))
    # per size only: the "all" rows of the table have no place on a size axis
    sizes = sorted((s for s in dict.fromkeys(s["size"] for s in stats) if not math.isnan(_side(s))), key=_side)
    return agents, sizes


def win_chart(data: dict) -> str:
    agents, sizes = _order(data)
    fig = _figure()
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(agents))
    by = {(s["agent"], s["size"]): s for s in data["stats"]}
    for a, agent in enumerate(agents):
        xs, ys, lo, hi = [], [], [], []
        for i, size in enumerate(sizes):
            s = by.get((agent, size))
            if s is None or not s["games"]:
                continue
            xs.append(i + (a - (len(agents) - 1) / 2) * width)
            ys.append(100 * s["win_rate"])
            lo.append(100 * (s["win_rate"] - s["win_low"]))
            hi.append(100 * (s["win_high"] - s["win_rate"]))
        ax.bar(xs, ys, width * 0.9, yerr=[lo, hi], capsize=3, label=agent, color=agent_colour(a))
    ax.set_xticks(range(len(sizes)), sizes)
    ax.set_ylim(0, 122)
    ax.set_yticks(range(0, 101, 20))
    ax.set_xlabel("island size")
    ax.set_ylabel("games won (%)")
    ax.set_title("Win rate by size and agent (bars: 95 % Wilson interval)")
    _legend_outside(ax, agents)
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig)


def turns_chart(data: dict) -> str:
    agents, sizes = _order(data)
    turns: dict[tuple[str, str], list[int]] = defaultdict(list)
    for g in data["games"]:
        if g["outcome"] == "WIN":
            turns[(g["agent"], g["size"])].append(g["turns"])
    fig = _figure()
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(agents))
    for a, agent in enumerate(agents):
        pos = [i + (a - (len(agents) - 1) / 2) * width for i, size in enumerate(sizes) if turns[(agent, size)]]
        values = [turns[(agent, size)] for size in sizes if turns[(agent, size)]]
        if not values:
            continue
        colour = agent_colour(a)
        ax.boxplot(values, positions=pos, widths=width * 0.8, patch_artist=True, manage_ticks=False,
                   boxprops={"facecolor": colour, "alpha": 0.6}, medianprops={"color": "black"},
                   flierprops={"markersize": 3})
        ax.plot([], [], "s", color=colour, label=agent)  # a legend entry per agent
    ax.set_xticks(range(len(sizes)), sizes)
    ax.set_xlim(-0.6, len(sizes) - 0.4)
    ax.set_xlabel("island size")
    ax.set_ylabel("turns to win")
    ax.set_title("Turns to win (won games; box: quartiles, whiskers: 1.5 IQR)")
    if ax.get_legend_handles_labels()[0]:  # no agent won a game: no legend to draw
        _legend_outside(ax, agents)
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig)


def time_chart(data: dict) -> str | None:
    """Seconds per game against the side, log-log; None when the run was saved without timing."""
    games = [g for g in data["games"] if "seconds" in g and g["outcome"] != "failed" and g["seconds"] > 0]
    if not games:
        return None
    agents, _ = _order(data)
    fig = _figure()
    ax = fig.add_subplot()
    for a, agent in enumerate(agents):
        mine = [g for g in games if g["agent"] == agent]
        if not mine:
            continue
        colour = agent_colour(a)
        ax.scatter([_side(g["size"]) for g in mine], [1000 * g["seconds"] for g in mine], s=6, alpha=0.25,
                   color=colour, linewidths=0)
        sides = sorted({_side(g["size"]) for g in mine})
        medians = [statistics.median(1000 * g["seconds"] for g in mine if _side(g["size"]) == side)
                   for side in sides]
        ax.plot(sides, medians, "o-", color=colour, label=f"{agent} (median)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    every = sorted({_side(g["size"]) for g in games})
    ax.set_xticks(every, [f"{x:g}" for x in every])
    ax.minorticks_off()
    ax.set_xlabel("island side (tiles, log scale)")
    ax.set_ylabel("ms per game (log scale)")
    ax.set_title("Time per game by size (dots: games, lines: medians)")
    if ax.get_legend_handles_labels()[0]:  # no agent had a timed game: no legend to draw
        _legend_outside(ax, agents)
    ax.grid(which="both", alpha=0.3)
    return _svg(fig)


_STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:20px auto;max-width:1000px;color:#222;padding:0 12px}
h1{font-size:22px}h2{font-size:17px;margin-top:26px}
figure{margin:10px 0}figure svg{max-width:100%;height:auto}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:13px}
th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right}th{background:#f4f4f4}
table.options th,table.options td{text-align:left}
td:nth-child(-n+2),th:nth-child(-n+2){text-align:left}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}
.note{color:#666}
"""


def _table_html(data: dict, timing: bool) -> str:
    stats = [types.SimpleNamespace(**{"median_ms_game": 0.0, "median_ms_turn": 0.0, **s}) for s in data["stats"]]
    rows = bench_rows(stats, timing)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows[1:])
    return f'<table id="bench-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def report_html(data: dict, base: Path | None = None) -> str:
    """The whole report page from a `bench_json` dict; `base`, the report's folder (its links to
    the head-to-head pages are relative to it)."""
    timing = any("seconds" in g for g in data["games"])
    opts = data.get("options", {})
    charts = [("win-rate", "Win rate", win_chart(data)), ("turns", "Turns to win", turns_chart(data))]
    time_svg = time_chart(data)
    parts = [f'<figure id="chart-{key}" class="chart"><h2>{title}</h2>{svg}</figure>' for key, title, svg in charts]
    if time_svg is None:
        parts.append('<figure id="chart-time" class="chart"><h2>Time per game</h2>'
                     '<p class="note">This run was saved without timing (--no-timing).</p></figure>')
    else:
        parts.append(f'<figure id="chart-time" class="chart"><h2>Time per game</h2>{time_svg}</figure>')
    seconds = f" in {data['seconds']:.1f} s" if "seconds" in data else ""
    return with_policy(f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>treasure bench</title>'
                       f"<style>{_STYLE}</style></head><body><h1>treasure bench</h1>"
                       f'<p class="note">{counted(len(data["games"]), "game")}{seconds}</p>' + _options_html(opts)
                       + "".join(parts) + "<h2>Table</h2>" + _table_html(data, timing)
                       + _versus_html(data.get("versus"), base) + "</body></html>\n")


def write_report(data: dict, path: str | Path) -> Path:
    path = Path(path)
    write_text_atomic(path, report_html(data, path.parent))
    return path


# How the options of a run read in its report's header (the others: their name as it is).
_OPTION_NAMES = {"agents": "agents", "sizes": "island sizes", "maps": "maps", "games": "games per size or map",
                 "seed": "seed", "truth_rate": "truth rate", "max_turns": "turn limit", "game_timeout": "game timeout",
                 "isolation": "agent isolation", "limits": "agent limits", "hints": "hint kinds", "style": "islands"}
_LIMIT_UNITS = {"memory": "bytes", "cpu_seconds": "s", "file_size": "bytes", "action_timeout": "s", "output": "bytes"}


def _option_text(key: str, value: object) -> str:
    """An option's value as a person reads it: lists joined, sizes in MiB or KiB, mappings as name = value."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(_option_text(key, v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k} = {_option_text(str(k), v)}" for k, v in value.items() if v is not None)
    unit = _LIMIT_UNITS.get(key)
    if unit == "bytes" and isinstance(value, int) and value >= 1 << 20:
        return f"{value / (1 << 20):g} MiB"
    if unit == "bytes" and isinstance(value, int) and value >= 1 << 10:
        return f"{value / (1 << 10):g} KiB"
    if unit == "s" and isinstance(value, (int, float)):
        return f"{value:g} s"
    if key in ("sizes",) and isinstance(value, int):
        return f"{value}x{value}"
    return str(value)


def _options_html(opts: dict) -> str:
    """The run's options as a table of two columns (what, its value), not as Python's reprs."""
    rows = [(_OPTION_NAMES.get(k, k.replace("_", " ")), _option_text(k, v)) for k, v in opts.items()
            if v not in (None, (), [], {})]
    if not rows:
        return ""
    body = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows)
    return f'<table id="bench-options" class="options"><tbody>{body}</tbody></table>'


def _versus_html(pairs: list[dict] | None, base: Path | None) -> str:
    """`--versus`: the head-to-head games, each linked to the page that shows both side by side."""
    if pairs is None:
        return ""
    if not pairs:
        return '<h2 id="versus">Head to head</h2><p class="note">No game where one agent won and the other lost.</p>'
    head = "<tr><th>island</th><th>agent</th><th>other</th><th>won</th><th>games</th><th>page</th></tr>"
    rows = []
    for p in pairs:
        page = p.get("page")
        if page is not None and base is not None:
            href = Path(os.path.relpath(page, base)).as_posix()
            link = f'<a href="{html.escape(href, quote=True)}">side by side</a>'
        else:
            link = html.escape(p.get("command") or "")
        where = p["map"] if p.get("size") is None or not str(p["map"]).startswith("bench-") else f'{p["size"]} island {p["index"]}'
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in (
            where, p["agent"], p["other"], p["won"], ", ".join(str(i) for i in p["game_ids"]))) + f"<td>{link}</td></tr>")
    return (f'<h2 id="versus">Head to head</h2><p class="note">{counted(len(pairs), "game")} where '
            f'{html.escape(pairs[0]["agent"])} and another agent did not both win or both lose.</p>'
            f'<table id="versus-table"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>')


def write_versus_pages(pairs) -> int:
    """Each head-to-head pair's page (both logs side by side, stepping together) where `versus_page`
    says; how many were written."""
    from treasure_cli.play.results import versus_page
    from treasure_cli.view.page import write_compare
    from treasure_cli.view.sources import open_log

    written = 0
    for pair in pairs:
        page = versus_page(pair)
        if page is None:
            continue
        write_compare(open_log(pair.mine.log, pair.map_file), open_log(pair.other.log, pair.map_file), page)
        written += 1
    return written
