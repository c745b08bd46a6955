"""The bench report in a real Chromium: every chart drawn, no request, no error."""

from __future__ import annotations

from click.testing import CliRunner

from treasure_cli.cli import cli


def test_report_page_shows_every_chart(watched, tmp_path):
    report = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["bench", "--agents", "logic,greedy", "--sizes", "16,32", "--games", "5",
                                      "--jobs", "1", "--html", str(report)])
    assert result.exit_code == 0, result.output
    assert watched.open(report, ready="#bench-table") == []
    for chart in ("win-rate", "turns", "time"):
        box = watched.page.locator(f"#chart-{chart} svg").bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 150, chart
    assert watched.page.locator("#bench-table tbody tr").count() == 2 * 3  # 2 sizes and "all", 2 agents
    assert watched.errors == []
