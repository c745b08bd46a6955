"""Every page carries a Content-Security-Policy that allows exactly its own scripts (view/policy.py)."""

from __future__ import annotations

import base64
import hashlib
import re
import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.view.policy import own_scripts, script_hashes, with_policy

META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


def sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_only_scripts_that_run_are_allowed_and_frames_share_their_pages_policy():
    # Two of the program's own scripts (any other is a stranger's: tests/security/test_policy_allows_only_own_scripts.py)
    run, inner_run = sorted(own_scripts())[:2]
    inner = with_policy(f'<html><head><meta charset="utf-8"></head><body><script>{inner_run}</script></body></html>')
    page = with_policy('<html><head><meta charset="utf-8"><title>t</title></head><body>'
                       f'<script id="d" type="application/json">{{"a":1}}</script><script>{run}</script>'
                       f'<iframe srcdoc="{inner.replace("&", "&amp;").replace(chr(34), "&quot;")}"></iframe>'
                       '</body></html>')
    [policy] = META.findall(page)
    assert f"script-src {sha(run)} {sha(inner_run)};" in policy
    assert sha('{"a":1}') not in policy and "default-src 'none'" in policy
    assert page.index("Content-Security-Policy") < page.index("<script")
    assert "script-src 'none'" in with_policy('<head><meta charset="utf-8"></head><body>no script</body>')


def test_a_game_page_and_the_leaderboard_carry_the_policy_of_their_own_scripts(tmp_path):
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    ran = CliRunner().invoke(cli, ["run", str(tmp_path / "MAP_01.txt"), str(tmp_path / "out"), "--html"])
    assert ran.exit_code == 0, ran.output
    page = (tmp_path / "out" / "LOG_01.html").read_text()
    [policy] = META.findall(page)
    scripts = [m.group(2) for m in re.finditer(r"<script([^>]*)>(.*?)</script>", page, re.S)
               if "application/json" not in m.group(1)]
    assert scripts and all(sha(s) in policy for s in scripts)
    assert script_hashes(page) == [sha(s) for s in scripts]
