"""The agents' palette tells apart a whole class (issue 22: 8 colours made two agents share one blue)."""

from __future__ import annotations

import itertools

from treasure_cli.view.palette import agent_colours, colour_distance


def test_forty_agents_get_forty_clearly_different_colours():
    colours = agent_colours(40)
    assert len(set(colours)) == 40
    # CIE76 delta E: about 2.3 is barely noticeable; these stay more than ten times apart
    assert min(colour_distance(a, b) for a, b in itertools.combinations(colours, 2)) > 25


def test_an_agent_keeps_its_colour_whatever_the_class_size():
    assert agent_colours(30)[:5] == agent_colours(5)
