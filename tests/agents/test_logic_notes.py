"""logic's note words, case by case (docs/agent.md shows them): the wording is pinned, since
it is built for speed (one %-format a case) and a log with notes must not change."""

from __future__ import annotations

import types

import numpy as np
import pytest

from treasure_cli.agents.logic import LogicAgent
from treasure_cli.rules.actions import LargeScan, Move, Teleport, Verify
from treasure_cli.rules.grid import Direction


def agent_after(action, why, count=212, splits=None):
    """A LogicAgent as act() leaves it: the action, why, the candidates and their count."""
    agent = LogicAgent()
    cand = np.zeros((4, 5), dtype=bool)
    cand[1, 2:4] = True
    agent.know = types.SimpleNamespace(candidates=cand)
    agent._chose, agent._why, agent._count = action, why, count
    agent._split_counts = dict(splits or {})
    return agent


@pytest.mark.parametrize("action, why, splits, text", [
    (Verify(7), ("", 8.64, 2.06), {7: 104},
     "212 candidates; verify 7, splits them 104/108, saves 8.6 actions; best scan saves 2.1"),
    (Verify(3), ("no scan can beat it", 12.25, 0.0), {},
     "212 candidates; verify 3, saves 12.2 actions; no scan can beat it"),
    (Move(Direction.S, 4), ("", 0.0, 0.45), {},
     "212 candidates; move S 4: toward more candidates; a scan here saves 0.5; no verification helps"),
    (Move(Direction.W, 2), ("", 1.96, 3.0), {},
     "212 candidates; move W 2 and scan 3x3: saves 3.0 actions; best verification saves 2.0"),
    (Move(Direction.N, 1), ("this plan finds the treasure for sure", 1.0, 0.0), {},
     "212 candidates; move N 1 and scan 3x3: this plan finds the treasure for sure"),
    (LargeScan(), ("", 0.0, 4.04), {},
     "212 candidates; scan 5x5: saves 4.0 actions; no verification helps"),
    (Teleport((35, 10)), ("", 0.5, 6.75), {},
     "212 candidates; teleport to (35, 10): where a scan sees the most candidates; a scan here saves 6.8; "
     "best verification saves 0.5"),
    (LargeScan(), ("no candidate left", 0.0, 0.0), {}, "212 candidates; scan 5x5: no candidate left"),
])
def test_each_kind_of_action_is_worded_as_the_docs_show(action, why, splits, text):
    note = agent_after(action, why, splits=splits).explain()
    assert note.text == text
    assert note.tiles.bits == np.packbits(np.array([0] * 7 + [1, 1] + [0] * 11, dtype=bool)).tobytes()


def test_the_candidates_are_packed_once_per_candidate_array():
    agent = agent_after(LargeScan(), ("", 0.0, 1.0))
    first = agent.explain().tiles
    assert agent.explain().tiles is first  # the same array: the same TileSet
    agent.know.candidates = agent.know.candidates.copy()
    assert agent.explain().tiles is not first and agent.explain().tiles == first


def test_no_note_before_the_first_action():
    assert LogicAgent().explain() is None
