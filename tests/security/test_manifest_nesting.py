"""An agent.toml nested too deep leaves its own group out, never the class.

tomllib recurses once for each nested array or table: an agent.toml under the 64 kB cap holding
30,000 nested arrays stopped `tournament` (and `--dry-run`) with a RecursionError traceback, so no
group of the class was graded."""

from __future__ import annotations

import shutil
import sys

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli

AGENT = "from treasure_cli import LargeScan\n\n\nclass Agent:\n    def act(self, obs):\n        return LargeScan()\n"


def test_a_manifest_nested_too_deep_leaves_its_group_out_with_a_reason(tmp_path):
    klass = tmp_path / "class"
    for name, manifest in (("deep", "x = " + "[" * 30000 + "]" * 30000 + "\n"),
                           ("tables", "x = " + "{a=" * 15000 + "1" + "}" * 15000 + "\n"), ("ann", "")):
        (klass / name).mkdir(parents=True)
        (klass / name / "bot.py").write_text(AGENT)
        (klass / name / "agent.toml").write_text('entry = "bot.py"\n' + manifest)
    assert (klass / "deep" / "agent.toml").stat().st_size < 64 << 10
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps" / "MAP_01.txt")
    dry = CliRunner().invoke(cli, ["tournament", str(klass), "--maps", str(tmp_path / "maps"), "--db",
                                   str(tmp_path / "r.sqlite"), "--dry-run"])
    assert dry.exit_code == 0, (dry.output, dry.exception)
    assert "1 group to play, 2 left out" in dry.output, dry.output
    # (Python 3.10 has no tomllib: the manifest's own reader takes `key = "value"` lines only)
    reason = "agent.toml: nested too deep to read" if sys.version_info >= (3, 11) else \
        'agent.toml:2: expected key = "value"'
    for name in ("deep", "tables"):
        assert f"left out: {name}: {reason}" in dry.output, dry.output
