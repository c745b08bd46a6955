"""The side-by-side page of two submissions flagged as similar by their tokens (grading/tokens.py).

`tournament --report --html DIR` writes DIR/similar-<a>--<b>.html for each
such pair: the two sources in two columns, each line numbered, the lines
in shared fingerprints highlighted, the percentage at the top. Linked from
the index's flags and from both agents' pages. A flag, not a verdict: the
page shows what matches, for the teacher to judge. Sources are read again,
each file only up to tokens.MAX_SOURCE_BYTES; everything is escaped.
"""

from __future__ import annotations

import html
from pathlib import Path

from treasure_cli.formats.atomic import write_text_atomic
from treasure_cli.grading.tokens import MAX_SOURCE_BYTES, SimilarPair, read_capped
from treasure_cli.view.policy import with_policy

_STYLE = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:14px;color:#222}
h1{font-size:20px;margin:0 0 4px}.note{color:#666;font-size:13px}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.side{min-width:0;overflow:auto;border:1px solid #ddd;max-height:85vh}
.side h2{font-size:15px;margin:0;padding:6px 8px;background:#f6f6f6;position:sticky;top:0}
.file{font-size:12px;color:#555;padding:4px 8px;background:#fafafa;border-top:1px solid #eee}
pre{margin:0;font:12px/1.35 ui-monospace,Menlo,Consolas,monospace}
.l{display:block;white-space:pre;padding-right:8px}.l i{display:inline-block;width:4em;color:#999;font-style:normal;
text-align:right;margin-right:8px;user-select:none}
.m{background:#ffe08a}
a{color:#1a5fb4}
@media (max-width:900px){.sides{grid-template-columns:1fr}}
"""


def page_name(a: str, b: str, slug) -> str:
    return f"similar-{slug(a)}--{slug(b)}.html"


def _side(name: str, root: str, files: tuple[str, ...], matched: set[tuple[int, int]]) -> tuple[str, int]:
    parts = [f"<h2>{html.escape(name)}</h2>"]
    shown = 0
    for index, rel in enumerate(files):
        path = Path(root) if not Path(root).is_dir() else Path(root) / rel
        try:
            text = read_capped(path)
        except OSError as exc:
            text = None
            why = f"cannot be read: {exc.strerror or exc}"
        else:
            why = f"over {MAX_SOURCE_BYTES >> 10} KiB"
        parts.append(f'<div class="file">{html.escape(rel)}</div>')
        if text is None:
            parts.append(f'<p class="note">{html.escape(why)}</p>')
            continue
        lines = []
        for number, line in enumerate(text.splitlines(), start=1):
            hit = (index, number) in matched
            shown += hit
            lines.append(f'<span class="l{" m" if hit else ""}" data-line="{number}"><i>{number}</i>'
                         f"{html.escape(line)}</span>")
        parts.append("<pre>" + "".join(lines) + "</pre>")
    return f'<div class="side" data-agent="{html.escape(name)}">{"".join(parts)}</div>', shown


def similar_html(pair: SimilarPair, back: str = "index.html") -> str:
    left, left_count = _side(pair.a, pair.a_root, pair.a_files, set(pair.a_lines))
    right, right_count = _side(pair.b, pair.b_root, pair.b_files, set(pair.b_lines))
    title = f"{pair.a} and {pair.b}: {pair.percent:.0f}% similar"
    body = (f'<p><a href="{html.escape(back)}">← leaderboard</a></p><h1>{html.escape(title)}</h1>'
            f'<p class="note" id="summary" data-percent="{pair.percent:.1f}">{pair.percent:.0f}% of the token '
            f"fingerprints of the smaller of the two are in the other (names, comments and layout set aside). "
            f"The highlighted lines ({left_count} and {right_count}) are in shared runs of tokens. A flag for you "
            "to look at, not a verdict: code written from the same starter or the same docs shares some.</p>"
            f'<div class="sides">{left}{right}</div>')
    return with_policy(
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_STYLE}</style></head>'
        f'<body data-ready="1">{body}</body></html>\n')


def write_similar_pages(pairs: tuple[SimilarPair, ...], folder: Path, slug) -> dict[frozenset[str], str]:
    """Write each pair's page into `folder`; returns the pair -> its page's file name."""
    names = {}
    for pair in pairs:
        name = page_name(pair.a, pair.b, slug)
        write_text_atomic(folder / name, similar_html(pair))
        names[frozenset((pair.a, pair.b))] = name
    return names
