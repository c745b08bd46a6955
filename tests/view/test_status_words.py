"""The replay's status lines read as words, not as hint numbers."""

from __future__ import annotations

from treasure_cli.view.render import _few


def test_a_long_list_is_counted_as_hints_then_the_latest_shown():
    items = [f"{n} (true)" for n in range(1, 12)]
    text = _few(items)
    assert text.startswith("11 hints, the latest 6 (true), 7 (true)")
    assert _few(items[:3]) == "1 (true), 2 (true), 3 (true)" and _few([]) == "none"
