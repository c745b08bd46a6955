"""A Content-Security-Policy for every page the program writes, in a <meta> of its own.

The pages hold what strangers wrote: group names, an agent's error messages, notes and printed
lines, its source on the similarity pages. All of it is escaped where it is written; the policy
is the second wall, should an escape ever be missed. It lets a page run only its own inline
scripts (each allowed by the SHA-256 of its text, so an injected script does not run) and load
nothing at all: no image, style sheet, font, frame source or connection outside the page, so
nothing on it can send what it shows anywhere. The hashes are of the page's own text, so a
page is the same bytes each time it is written.

Only the program's own scripts are hashed: those of its page templates, which hold no
stranger's text (their data is in JSON blocks, which never run). A script found in a page
with any other text is one that a missed escape let in, and stays out of the policy: hashing
every script of the finished page (as before) allowed it with the page's own."""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import re
from importlib import resources

_SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S | re.I)
_SRCDOC = re.compile(r'\ssrcdoc="([^"]*)"')
_CHARSET = re.compile(r'<meta charset="utf-8">', re.I)
_TEMPLATES = ("page_template.html", "compare_template.html", "contest_template.html")


@functools.cache
def own_scripts() -> frozenset[str]:
    """The text of every script the program's pages may run: the inline scripts of its templates."""
    found = set()
    for name in _TEMPLATES:
        text = resources.files("treasure_cli.view").joinpath(name).read_text(encoding="utf-8")
        found |= {m.group("body") for m in _SCRIPT.finditer(text) if "application/json" not in m.group("attrs")}
    return frozenset(found)


def script_hashes(page: str) -> list[str]:
    """The CSP sources that allow `page`'s own inline scripts (`own_scripts`: any other is a
    stranger's), and those of the pages it holds in `srcdoc` frames (which live under the page's
    own policy). JSON data blocks never run."""
    found = []
    own = own_scripts()
    for m in _SCRIPT.finditer(page):
        if "application/json" in m.group("attrs") or m.group("body") not in own:
            continue
        digest = base64.b64encode(hashlib.sha256(m.group("body").encode("utf-8")).digest()).decode()
        found.append(f"'sha256-{digest}'")
    for m in _SRCDOC.finditer(page):
        found += script_hashes(html.unescape(m.group(1)))
    return list(dict.fromkeys(found))


def policy(page: str) -> str:
    scripts = " ".join(script_hashes(page)) or "'none'"
    return (f"default-src 'none'; script-src {scripts}; style-src 'unsafe-inline'; img-src data:; "
            "base-uri 'none'; form-action 'none'")


def with_policy(page: str) -> str:
    """`page` with its policy in a <meta> right after its charset, before any script."""
    found = _CHARSET.search(page)
    if found is None:
        raise ValueError("a page without <meta charset=\"utf-8\"> in its head")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(page)}">'
    return page[:found.end()] + meta + page[found.end():]
