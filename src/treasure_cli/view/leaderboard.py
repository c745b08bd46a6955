"""`treasure tournament --report --html DIR`: the leaderboard as two folders of offline pages.

DIR/teacher/ is everything, for the teacher; DIR/public/ is what may be
published: the ranks, verdicts, win rates and turns, and the pages of the
games played on maps marked public (`public`: their content digests),
nothing else. A private map, its treasure, the seeds of its games, the
store's secret seed, the code digests, the similarity flags and the agents'
own words (errors, output) never reach DIR/public/.

Every group has a row and a page, those that never played (left out, build
failed) included, each with its verdict; the index says at its top how many
groups were found, played, left out and failed. Page names are unique per
group (`page_names`): two names that read the same once cut to safe
characters (`ann!` and `ann`) get pages of their own.

DIR/teacher/index.html ranks the agents (ranks and ties as the text report gives
them), shows win % with its interval per map size, turns to a win, time per
turn, the paired verdicts (who beats whom, and the sign test's p-value) and
the failures by cause with one example each. DIR/agent-<name>.html shows one
agent's games map by map; each game (won, lost or failed) links to
DIR/game-<id>.html, the replay page of that game (played again from the store: its map, seed and
agent), or for a failed game the failure itself. Every link is relative and
nothing is fetched: the folder can be copied or zipped as it is.

The bars are drawn as inline SVG with their numbers written beside them, and
each agent's colour (view/palette.py) is shown next to its name, so no
legend covers any data.
"""

from __future__ import annotations

import hashlib
import dataclasses
import html
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from treasure_cli.agents.registry import is_builtin
from treasure_cli.errors import TreasureError
from treasure_cli.formats.atomic import ensure_folder, write_text_atomic
from treasure_cli.formats.text import counted, one_line
from treasure_cli.play.bench import _size_key, summarize
from treasure_cli.play.records import FAILED, WIN
from treasure_cli.sandbox.levels import AgentLimits
from treasure_cli.grading.store import Row
from treasure_cli.grading.tournament import ALPHA, Leaderboard, Standing, as_record, rank_text, settings_options
from treasure_cli.grading.verdicts import Verdict, public_reason
from treasure_cli.view.palette import agent_colour
from treasure_cli.view.policy import with_policy

_STYLE = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:18px auto;max-width:1180px;color:#222;padding:0 12px}
h1{font-size:21px;margin:0 0 4px}h2{font-size:16px;margin:26px 0 6px;border-bottom:1px solid #ddd}
.note{color:#666;font-size:13px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:right;vertical-align:middle}
th{background:#f6f6f6;font-weight:600}
td.name,th.name{text-align:left;white-space:nowrap}
td{white-space:nowrap}td.verdict{white-space:normal;max-width:340px;min-width:200px;font-size:13px}
.sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:-1px}
.bar{vertical-align:middle}
.matrix td{text-align:center;font-size:12px;min-width:44px}.matrix td.name{text-align:left}
.beats{background:#d8f0d8}.loses{background:#f6dada}.tie{color:#888}
.win{background:#e6f4e6}.lose{background:#fbe3e3}.failed{background:#f3d0f3}
.games td{text-align:center;font-size:12.5px}
.games a{color:inherit}
pre{white-space:pre-wrap;background:#f6f6f6;padding:8px;font-size:12.5px}
a{color:#1a5fb4}
.box{max-width:100%;overflow-x:auto}
td.wrap{white-space:normal;overflow-wrap:anywhere;min-width:16em}
.tag{font-size:11px;color:#666;border:1px solid #bbb;border-radius:3px;padding:0 3px}
"""


def slug(name: str) -> str:
    """A file-name-safe form of an agent's name (its page is agent-<slug>.html, made unique by `page_names`).

    Accented letters keep their base letter (NFKD, then the combining marks dropped: `Élise` gives
    `Elise`, `ﬁ` gives `fi`); what is still not ASCII, and any other character, becomes `_`."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    text = re.sub(r"[^A-Za-z0-9._-]+", "_", folded).strip("_.") or "agent"
    return text[:60]


def page_names(names: Sequence[str]) -> dict[str, str]:
    """Each name's page, `agent-<slug>.html`, one per name: a name the slug does not keep as it is
    (`ann!`, `Zoé`) gets a digest of the name after its slug, and a page name already taken (compared
    without case, as a Mac's or Windows' disk does) a number, so no group's page overwrites another's."""
    pages: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        base = slug(name)
        if base != name:
            base += "-" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        page, k = f"agent-{base}.html", 1
        while page.casefold() in taken:
            k += 1
            page = f"agent-{base}-{k}.html"
        taken.add(page.casefold())
        pages[name] = page
    return pages


def shown(name: str) -> str:
    """A name as a page shows it: control characters as their backslash escapes, then HTML-escaped."""
    return html.escape(one_line(name))


_OUR_PAGE = re.compile(r"(agent-[A-Za-z0-9._-]+|game-[0-9a-f]+(?:-turns)?|index)\.html")  # (-turns: teacher's only)


def _page(title: str, body: str) -> str:
    return with_policy(
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_STYLE}</style></head>'
        f'<body data-ready="1">{body}</body></html>\n')


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _bar(rate: float, low: float, high: float, colour: str, width: int = 140) -> str:
    """Win % as a bar with its interval as a line across it; the numbers are beside it, not in a legend."""
    x, lo, hi = (round(width * v, 1) for v in (rate, low, high))
    return (f'<svg class="bar" width="{width}" height="12" viewBox="0 0 {width} 12" role="img" '
            f'aria-label="{_pct(rate)} % ({_pct(low)}-{_pct(high)})">'
            f'<rect x="0" y="1" width="{width}" height="10" fill="#f0f0f0"/>'
            f'<rect x="0" y="1" width="{x}" height="10" fill="{colour}"/>'
            f'<line x1="{lo}" x2="{hi}" y1="6" y2="6" stroke="#000" stroke-width="1.5"/>'
            f'<line x1="{lo}" x2="{lo}" y1="2" y2="10" stroke="#000"/><line x1="{hi}" x2="{hi}" y1="2" y2="10" '
            f'stroke="#000"/></svg>')


def _p(p: float) -> str:
    return f"{p:.3g}" if p >= 0.001 else f"{p:.1e}"


def _baseline(spec: str) -> str:
    return "baseline" if is_builtin(spec) else ""


def _name_cell(name: str, colour: str, page: str | None, tag: str = "") -> str:
    inner = f'<a href="{html.escape(page)}">{shown(name)}</a>' if page else shown(name)
    mark = f' <span class="tag">{html.escape(tag)}</span>' if tag else ""
    return f'<td class="name"><span class="sw" style="background:{colour}"></span>{inner}{mark}</td>'


# How the ranks are made, said the same on the teacher's index and the public one.
RANK_RULE = (f"Rank = 1 + the agents significantly better (paired sign test, p &lt; {ALPHA:g}) on wins, or as "
             "good on wins and faster to win (the same test on the games both won); equal ranks (=) are not "
             "told apart.")


def _counts_html(board: Leaderboard) -> str:
    counts = board.counts()
    return (f'<p id="groups" data-found="{counts["found"]}" data-played="{counts["played"]}" '
            f'data-left-out="{counts["left out"]}" data-failed="{counts["failed"]}"><b>'
            f'{counted(counts["found"], "group")} found: {counts["played"]} played, {counts["left out"]} left out, '
            f'{counts["failed"]} failed</b> (every game failed, or the build did).</p>')


def _verdict_cell(verdict: Verdict) -> str:
    return (f'<td class="name verdict" data-verdict="{html.escape(verdict.status)}">{html.escape(verdict.status)}'
            + (f' <span class="note">{shown(verdict.reason)}</span>' if verdict.reason else "") + "</td>")


def _colours(board: Leaderboard) -> dict[str, str]:
    names = [s.agent for s in board.standings] + [v.group for v in board.unranked]
    return {name: agent_colour(k) for k, name in enumerate(names)}


def public_index_html(board: Leaderboard, pages: dict[str, str]) -> str:
    """The public tree's index: ranks, verdicts (without the agents' own words), win rates and turns."""
    colour = _colours(board)
    rows = []
    for s in board.standings:
        turns = "-" if s.mean_turns_win is None else f"{s.mean_turns_win:.1f}"
        rows.append(f'<tr data-agent="{shown(s.agent)}"><td class="rank">{rank_text(board, s)}</td>'
                    f"{_name_cell(s.agent, colour[s.agent], pages[s.agent], _baseline(s.spec))}<td>{s.games}</td>"
                    f"<td>{s.wins}</td><td>{_bar(s.win_rate, s.win_low, s.win_high, colour[s.agent])}</td>"
                    f"<td>{_pct(s.win_rate)}</td><td>{_pct(s.win_low)}-{_pct(s.win_high)}</td><td>{turns}</td>"
                    f"<td>{s.failed}</td>{_verdict_cell(board.verdict(s, public=True))}</tr>")
    rows += [_unranked_row(_published(v), colour[v.group], pages[v.group], 3) for v in board.unranked]
    return _page("Leaderboard", "<h1>Leaderboard</h1>" + _counts_html(board)
                 + f'<p class="note">{RANK_RULE} A group with no game scores zero.</p>'
                 '<h2>Ranking</h2><table id="ranking"><thead><tr><th>rank</th><th class="name">agent</th>'
                 "<th>games</th><th>wins</th><th>win %</th><th></th><th>95% CI</th><th>mean turns to win</th>"
                 '<th>failed</th><th class="name">verdict</th></tr></thead><tbody>' + "".join(rows)
                 + "</tbody></table>")


def _published(v: Verdict) -> Verdict:
    """A group's verdict as the public tree shows it: no path of the teacher's machine in its reason."""
    return dataclasses.replace(v, reason=public_reason(v.reason))


def _unranked_row(v: Verdict, colour: str, page: str, blanks: int) -> str:
    return (f'<tr data-agent="{shown(v.group)}"><td class="rank">-</td>{_name_cell(v.group, colour, page)}'
            f"<td>0</td><td>0</td><td></td><td>0.0</td>" + "<td></td>" * blanks + _verdict_cell(v) + "</tr>")


def public_agent_html(board: Leaderboard, name: str, colour: str, public: set[str]) -> str:
    """A group's public page: its rank, verdict, win rate and turns, and its games on public maps."""
    standing = next((s for s in board.standings if s.agent == name), None)
    if standing is None:
        return _unranked_html(_published(next(v for v in board.unranked if v.group == name)), colour)
    verdict = board.verdict(standing, public=True)
    turns = "-" if standing.mean_turns_win is None else f"{standing.mean_turns_win:.1f}"
    rows = [r for r in board.rows_of(name) if r.map_digest in public]
    return _page(one_line(name), _agent_intro(name, colour, standing, board, verdict)
                 + f"<p>mean turns to a win: {turns}.</p>" + _games_table(rows, "Games on the public maps"))


def index_html(board: Leaderboard, db: str, replayable: set[str], pages: dict[str, str]) -> str:
    names = [s.agent for s in board.standings]
    colour = _colours(board)
    parts = [f"<h1>Leaderboard</h1>{_counts_html(board)}<p class=\"note\" id=\"private\"><b>For you, not to "
             "publish</b>: these pages show every game's island, treasure and seed. The pages to publish are "
             "in <a href=\"../public/index.html\">../public/</a>.</p>"
             f"<p class=\"note\">{counted(len(board.rows), 'game')} in {html.escape(Path(db).name)}, "
             f"played with {html.escape(settings_options(board.settings))}"
             + ("" if board.hint_kinds_text is None else f" and the hint kinds {html.escape(board.hint_kinds_text)}")
             + f". {RANK_RULE}</p>"]
    # the ranking
    rows = []
    for s in board.standings:
        turns = "-" if s.mean_turns_win is None else f"{s.mean_turns_win:.1f}"
        rows.append(f'<tr data-agent="{shown(s.agent)}"><td class="rank">{rank_text(board, s)}</td>'
                    f"{_name_cell(s.agent, colour[s.agent], pages[s.agent], _baseline(s.spec))}"
                    f"<td>{s.games}</td><td>{s.wins}</td>"
                    f"<td>{_bar(s.win_rate, s.win_low, s.win_high, colour[s.agent])}</td>"
                    f"<td>{_pct(s.win_rate)}</td><td>{_pct(s.win_low)}-{_pct(s.win_high)}</td><td>{turns}</td>"
                    f"<td>{s.median_ms_turn:.2f}</td><td>{s.failed}</td>{_verdict_cell(board.verdict(s))}</tr>")
    rows += [_unranked_row(v, colour[v.group], pages[v.group], 4) for v in board.unranked]
    parts.append('<h2>Ranking</h2><div class="box"><table id="ranking"><thead><tr><th>rank</th><th class="name">agent</th>'
                 "<th>games</th><th>wins</th><th>win %</th><th></th><th>95% CI</th><th>mean turns to win</th>"
                 '<th>ms/turn</th><th>failed</th><th class="name">verdict</th></tr></thead><tbody>' + "".join(rows)
                 + "</tbody></table></div>")
    # win % per size
    records = [as_record(r, board.labels[r.id or 0]) for r in board.rows if (r.id or 0) in board.labels]
    stats = summarize(records, names)
    sizes = sorted({st.size for st in stats if st.size != "all"}, key=_size_key)
    by = {(st.agent, st.size): st for st in stats}
    head = "".join(f"<th>{html.escape(size)}</th>" for size in sizes)
    body = []
    for name in names:
        cells = []
        for size in sizes:
            st = by.get((name, size))
            cells.append("<td></td>" if st is None else
                         f"<td>{_bar(st.win_rate, st.win_low, st.win_high, colour[name], 90)} "
                         f"{_pct(st.win_rate)} <span class=\"note\">({_pct(st.win_low)}-{_pct(st.win_high)}), "
                         f"{st.games} games, turns {'-' if st.mean_turns_win is None else f'{st.mean_turns_win:.1f}'}"
                         "</span></td>")
        body.append(f"<tr>{_name_cell(name, colour[name], pages[name])}{''.join(cells)}</tr>")
    parts.append('<h2>Win % by map size</h2><p class="note">The bar is the win rate, the black line its 95 % '
                 'interval; then the mean turns to a win.</p><div class="box"><table id="by-size"><thead><tr>'
                 f'<th class="name">agent</th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')
    # paired verdicts
    pair = {(p.a, p.b): p for p in board.pairs}
    mrows = []
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append("<td></td>")
                continue
            p = pair.get((a, b))
            flip = p is None
            if flip:
                p = pair[(b, a)]
            assert p is not None
            if flip:
                p = p.flipped()
            if p.better is not None:
                kind, word = ("beats", "beats") if p.better == a else ("loses", "loses to")
            else:
                kind, word = "tie", "="
            p_shown = p.turns_p_value if p.decided_by == "turns" else p.p_value
            cells.append(f'<td class="{kind}" title="{shown(a)} {word} {shown(b)}: on {p.games} common '
                         f'games, {p.a_only} won only by {shown(a)}, {p.b_only} only by {shown(b)}; of '
                         f'the {p.both_won} both won, {p.a_faster} won faster by {shown(a)}, {p.b_faster} '
                         f'by {shown(b)}">'
                         f"{'▲' if kind == 'beats' else '▼' if kind == 'loses' else '='}"
                         f"{' turns' if p.decided_by == 'turns' else ''}<br>p={_p(p_shown)}</td>")
        mrows.append(f"<tr>{_name_cell(a, colour[a], pages[a])}{''.join(cells)}</tr>")
    heads = "".join(f'<th title="{shown(n)}">{k + 1}</th>' for k, n in enumerate(names))
    parts.append("<h2>Who beats whom</h2><p class=\"note\">Row against column, on the games both played: ▲ the "
                 f"row's agent wins significantly more often (p &lt; {ALPHA:g}), ▼ significantly less; "
                 "▲ turns / ▼ turns: as often, but significantly faster / slower to win on the games both won; "
                 "= not told apart; p is the exact sign test's. Columns are numbered in rank order.</p>"
                 f'<div class="box" id="pairs-box"><table class="matrix" id="pairs"><thead><tr><th class="name">agent'
                 f"</th>{heads}</tr></thead><tbody>{''.join(mrows)}</tbody></table></div>")
    # failures by cause
    causes: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in board.rows:
        label = board.labels.get(r.id or 0)
        if label is not None and r.outcome == FAILED:
            causes[(label, r.reason)].append(r)
    if causes:
        frows = []
        for (label, reason), rs in sorted(causes.items(), key=lambda kv: (names.index(kv[0][0]), -len(kv[1]))):
            ex = rs[0]
            frows.append(f"<tr>{_name_cell(label, colour[label], pages[label])}<td class=\"name\">{html.escape(reason)}</td>"
                         f"<td>{len(rs)}</td><td class=\"name wrap\"><a href=\"game-{ex.game_id}.html\">{ex.game_id}</a>: "
                         f"{html.escape(ex.error_said or '')}</td></tr>")
        parts.append('<h2>Failures</h2><div class="box"><table id="failures"><thead><tr><th class="name">agent</th>'
                     '<th class="name">cause</th><th>games</th><th class="name">one example</th></tr></thead>'
                     f"<tbody>{''.join(frows)}</tbody></table></div>")
    else:
        parts.append('<h2>Failures</h2><p id="failures">No game failed.</p>')
    if board.flags:
        items = "".join(f"<li>{shown(f.a)} and {shown(f.b)}: {html.escape(f.kind)}"
                        + (f" ({html.escape(f.detail)})" if f.detail else "") + _side_by_side(board, f.a, f.b)
                        + "</li>" for f in board.flags)
        parts.append(f'<h2>Similarity flags</h2><p class="note">For you to look at, not verdicts.</p>'
                     f'<ul id="flags">{items}</ul>')
    if board.early:
        items = "".join(f"<li>{shown(e.agent)}: {html.escape(e.text)}</li>" for e in board.early)
        parts.append('<h2>First-turn wins</h2><p class="note">For you to look at, not verdicts: more first-turn '
                     "wins once it had played the map than in its first game there, as a game that learnt where "
                     "the treasure was from an earlier game on the map would have (docs/security.md, "
                     f'"Side channels").</p><ul id="early-wins">{items}</ul>')
    lost = sum(r.outcome != FAILED for r in records)
    if len(replayable) < lost:
        parts.append(f'<p class="note" id="no-replays">{lost - len(replayable)} of the {lost} games played to '
                     'their end have no '
                     "replay page (written without --maps, or they could not be played again): each one's page "
                     "says why.</p>")
    return _page("Leaderboard", "".join(parts))


def _side_by_side(board: Leaderboard, a: str, b: str) -> str:
    """A link to the pair's side-by-side page (view/similar.py), when it has one."""
    from treasure_cli.view.similar import page_name

    pair = next((p for p in board.similar if {p.a, p.b} == {a, b}), None)
    if pair is None:
        return ""
    return f' <a class="side-by-side" href="{html.escape(page_name(pair.a, pair.b, slug))}">side by side</a>'


def _agent_flags(board: Leaderboard, name: str) -> str:
    """The similarity flags that name this agent, on its own page."""
    mine = [f for f in board.flags if name in (f.a, f.b)]
    if not mine:
        return ""
    items = "".join(f"<li>with {shown(f.b if f.a == name else f.a)}: {html.escape(f.kind)}"
                    + (f" ({html.escape(f.detail)})" if f.detail else "") + _side_by_side(board, f.a, f.b)
                    + "</li>" for f in mine)
    return ('<h2>Similarity flags</h2><p class="note">For you to look at, not verdicts.</p>'
            f'<ul id="agent-flags">{items}</ul>')


def _games_table(rows: Sequence[Row], heading: str) -> str:
    """A group's games map by map, each game linked to its page."""
    by_map: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_map[r.map_path].append(r)
    most = max((len(rs) for rs in by_map.values()), default=0)
    body = []
    for map_path, rs in sorted(by_map.items(), key=lambda kv: (_size_key(kv[1][0].size), kv[0])):
        cells = []
        for r in sorted(rs, key=lambda r: r.game_index):
            if r.outcome == WIN:
                text, cls = f"WIN {r.turns}", "win"
            elif r.outcome == FAILED:
                text, cls = f"failed ({html.escape(r.reason)})", "failed"
            else:
                text, cls = f"LOSE {r.turns} ({html.escape(r.reason)})", "lose"
            title = f'game {r.game_id}, seed {r.seed}'
            inner = f'<a href="game-{r.game_id}.html">{text}</a>'
            cells.append(f'<td class="{cls}" data-game="{r.game_id}" title="{title}">{inner}</td>')
        body.append(f'<tr><td class="name">{shown(map_path)}</td><td>{html.escape(rs[0].size)}</td>'
                    f'<td class="style">{html.escape(rs[0].map_style or "-")}</td>' + "".join(cells) + "</tr>")
    if not body:
        return f'<h2>{heading}</h2><p class="note" id="games">None.</p>'
    heads = "".join(f"<th>game {i}</th>" for i in range(most))
    return (f'<h2>{heading}</h2><table class="games" id="games"><thead><tr>'
            f'<th class="name">map</th><th>size</th><th>style</th>{heads}</tr></thead><tbody>{"".join(body)}</tbody></table>')


def _agent_intro(name: str, colour: str, standing: Standing, board: Leaderboard, verdict: Verdict) -> str:
    return (f'<p><a href="index.html">← leaderboard</a></p><h1><span class="sw" style="background:{colour}">'
            f'</span>{shown(name)}</h1><p id="verdict" data-verdict="{html.escape(verdict.status)}"><b>'
            f"{html.escape(verdict.status)}</b>" + (f": {shown(verdict.reason)}" if verdict.reason else "")
            + f"</p><p class=\"note\">rank {rank_text(board, standing)}; "
            f"{standing.wins} won of {standing.games} ({_pct(standing.win_rate)} %, 95 % interval "
            f"{_pct(standing.win_low)}-{_pct(standing.win_high)}); {standing.failed} failed.</p>")


def _unranked_html(verdict: Verdict, colour: str) -> str:
    """The page of a group that never played: its verdict and why; it scores zero."""
    return _page(one_line(verdict.group),
                 f'<p><a href="index.html">← leaderboard</a></p><h1><span class="sw" style="background:{colour}">'
                 f'</span>{shown(verdict.group)}</h1><p id="verdict" data-verdict="{html.escape(verdict.status)}">'
                 f"<b>{html.escape(verdict.status)}</b>: {shown(verdict.reason)}</p><p class=\"note\">No game was "
                 "played: no rank, and a score of zero.</p>")


def agent_html(board: Leaderboard, name: str, colour: str) -> str:
    standing = next((s for s in board.standings if s.agent == name), None)
    if standing is None:
        return _unranked_html(next(v for v in board.unranked if v.group == name), colour)
    intro = (_agent_intro(name, colour, standing, board, board.verdict(standing))
             + f'<p class="note">agent {shown(standing.spec)}, code {html.escape(standing.agent_digest)}. Each game '
             "links to its replay.</p>")
    return _page(one_line(name), intro + _games_table(board.rows_of(name), "Games by map") + _agent_flags(board, name))


def _size_style(row: Row) -> str:
    """`24x24 maze`: a stored game's map size, and its style where the row holds it."""
    return f"{row.size} {row.map_style}" if row.map_style else row.size


def failure_html(row: Row, label: str, db: str, why: str | None = None, page: str = "index.html",
                 turns_page: str | None = None, public: bool = False) -> str:
    """The page of a game with no replay: a failed game (its cause, and with `turns_page` a link to
    the replay of its turns up to the failure), or one that could not be rebuilt. `public`: the page
    to publish, without what the agent wrote (its error's text, its traceback, what it printed)."""
    parts = [f'<p><a href="{html.escape(page)}">← {shown(label)}</a></p>',
             f"<h1>Game {row.game_id}</h1>",
             f'<p id="outcome" data-outcome="{html.escape(row.outcome)}" data-turns="{row.turns}">'
             f"{shown(label)} on {shown(row.map_path)} ({html.escape(_size_style(row))}), game "
             f"{row.game_index}, seed {row.seed}: <b>{html.escape(row.outcome)}</b> ({html.escape(row.reason)}) on "
             f"turn {row.turns}.</p>"]
    if turns_page:
        parts.append(f'<p id="turns-link"><a href="{html.escape(turns_page)}">Watch its {row.turns} turn'
                     f'{"s" if row.turns != 1 else ""} up to the failure</a></p>')
    if row.error and not public:
        parts.append(f"<h2>Why it failed</h2><pre>{html.escape(row.error_said or '')}</pre>")
    if row.traceback and not public:
        parts.append(f"<h2>Where in the agent's code</h2><pre>{html.escape(row.traceback)}</pre>")
    if row.output and not public:
        parts.append(f"<h2>What the agent printed</h2><pre>{html.escape(row.output)}</pre>")
    if why:
        parts.append(f'<h2>No replay</h2><p class="note" id="no-replay">{html.escape(why)}</p>')
    parts.append(f"<h2>To play it again</h2><pre>treasure replay --db {html.escape(Path(db).name)} {row.game_id} "
                 "--maps MAPS/</pre>")
    return _page(f"game {row.game_id}", "".join(parts))


def _failed_turns(row: Row, label: str, folder: Path, maps: dict[str, str], isolation: str,
                  limits: AgentLimits | None) -> str | None:
    """A failed game played again up to its failure, as a replay page of its own (game-<id>-turns.html,
    linked from the game's page); None without maps, or when it does not fail as stored again."""
    from treasure_cli.grading.tournament import rebuild_game, same_result
    from treasure_cli.view.page import page_html
    from treasure_cli.view.steps import Replay

    if not maps:
        return None
    try:
        island, record, events = rebuild_game(row, maps, isolation, limits)
    except TreasureError:
        return None
    if events is None or not same_result(row, record):
        return None
    name = f"game-{row.game_id}-turns.html"
    nav = (f'<a href="game-{row.game_id}.html" style="color:#9cf">← game {row.game_id} '
           f"({html.escape(label)}, failed)</a> ·")
    write_text_atomic(folder / name, page_html(Replay(island, events)).replace('<h1 id="title">',
                                                                               nav + '<h1 id="title">', 1))
    return name


def write_leaderboard(board: Leaderboard, db: str, folder: Path, map_paths: Sequence[str],
                      isolation: str = "auto", limits: AgentLimits | None = None,
                      on_replay: Callable[[int, int], None] | None = None,
                      public: set[str] | frozenset[str] = frozenset(), searched: str | None = None) -> Path:
    """Write the leaderboard's pages into `folder`/teacher (everything) and `folder`/public (what
    may be published: the games of the maps whose digests are in `public`, and no other game);
    returns the teacher's index.html.

    Each game is played again (`rebuild_game`) to draw its replay page, so
    this takes about as long as those games took; without `map_paths` games
    get a page that says how to replay them instead. `searched` says where the maps were
    found, for the page of a game whose map is not among them.
    """
    from treasure_cli.grading.tournament import maps_by_digest, rebuild_game, same_result
    from treasure_cli.view.page import page_html
    from treasure_cli.view.steps import Replay

    teacher, published = folder / "teacher", folder / "public"
    ensure_folder(teacher)
    ensure_folder(published)
    names = [s.agent for s in board.standings] + [v.group for v in board.unranked]
    pages = page_names(names)
    maps = maps_by_digest(map_paths) if map_paths else {}
    todo = [r for r in board.rows if (r.id or 0) in board.labels]  # every game has its page, wins too
    replayable: set[str] = set()
    written = {"index.html", *pages.values()}  # the public tree's pages of this report
    for done, row in enumerate(todo, start=1):
        label = board.labels[row.id or 0]
        why = None
        public_text = None  # the published page, where it differs: without what the agent wrote
        if row.outcome == FAILED:
            turns = _failed_turns(row, label, teacher, maps, isolation, limits)
            text = failure_html(row, label, db, page=pages[label], turns_page=turns)
            # (its turns' replay ends on the failure's text, the agent's own: not published, nor linked)
            public_text = failure_html(row, label, db, page=pages[label], public=True)
        elif not maps:
            why = "the report was written without --maps, so this game was not played again"
            text = failure_html(row, label, db, why, page=pages[label])
            public_text = failure_html(row, label, db, why, page=pages[label], public=True)
        else:
            try:
                island, record, events = rebuild_game(row, maps, isolation, limits, searched)
                if events is None:
                    why = f"played again, the game failed: {record.error}"
                elif not same_result(row, record):
                    how = " by other actions" if (record.outcome, record.turns) == (row.outcome, row.turns) else ""
                    why = (f"played again, the game ended as {record.outcome} on turn {record.turns}{how}: the agent "
                           "does not play the same game from the same seed")
            except TreasureError as exc:
                why = str(exc)
            if why is None:
                nav = (f'<a href="{html.escape(pages[label])}" style="color:#9cf">← '
                       f"{shown(label)}</a> · game {row.game_id} ·")
                text = page_html(Replay(island, events)).replace('<h1 id="title">', nav + '<h1 id="title">', 1)  # type: ignore[arg-type]
                replayable.add(row.game_id)
            else:
                text = failure_html(row, label, db, why, page=pages[label])
                public_text = failure_html(row, label, db, why, page=pages[label], public=True)
        write_text_atomic(teacher / f"game-{row.game_id}.html", text)
        if row.map_digest in public:
            write_text_atomic(published / f"game-{row.game_id}.html", text if public_text is None else public_text)
            written.add(f"game-{row.game_id}.html")

        if on_replay is not None:
            on_replay(done, len(todo))
    from treasure_cli.view.similar import write_similar_pages

    write_similar_pages(board.similar, teacher, slug)
    colour = _colours(board)
    for name in names:
        write_text_atomic(teacher / pages[name], agent_html(board, name, colour[name]))
        write_text_atomic(published / pages[name], public_agent_html(board, name, colour[name], set(public)))
    write_text_atomic(published / "index.html", public_index_html(board, pages))
    # A page an earlier report published and this one does not (a map no longer public, a group
    # renamed) would stay in the folder you publish: only this report's pages are left there.
    for stale in published.iterdir():
        if stale.name not in written and _OUR_PAGE.fullmatch(stale.name) and stale.is_file():
            stale.unlink()
    index = teacher / "index.html"
    write_text_atomic(index, index_html(board, db, replayable, pages))
    return index
