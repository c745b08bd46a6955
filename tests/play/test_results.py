"""play/results.py: as_dict reads plain records as they are and must say what dataclasses.asdict says."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_cli.play.bench import BenchOptions, Stats
from treasure_cli.play.records import GameRecord
from treasure_cli.play.results import as_dict

texts = st.text(max_size=12)
ints = st.integers(min_value=-(2 ** 70), max_value=2 ** 70)
floats = st.floats(allow_nan=False)

records = st.builds(
    GameRecord, agent=texts, map=texts, size=texts, seed=ints, outcome=st.sampled_from(["WIN", "LOSE", "failed"]),
    reason=texts, turns=ints, seconds=floats, error=st.none() | texts, index=ints, island_seed=st.none() | ints,
    log=st.none() | texts, warnings=st.lists(texts, max_size=3).map(tuple), output=texts,
    traceback=st.none() | texts, isolation=st.sampled_from(["", "in-process", "process", "sandbox"]),
    play_digest=st.none() | texts, actions=st.none() | ints,
)
stats = st.builds(
    Stats, agent=texts, size=texts, games=ints, wins=ints, win_rate=floats, win_low=floats, win_high=floats,
    lost_to_pirate=ints, timeouts=ints, failed=ints, mean_turns_win=st.none() | floats,
    median_turns_win=st.none() | floats, median_ms_game=floats, median_ms_turn=floats,
)


def reference(obj, timing: bool) -> dict:
    """The definition of as_dict: dataclasses.asdict, the agent-process fields left out while empty,
    the digest of the play and the count of actions (kept for the results store only) left out, then the timing fields."""
    d = {k: v for k, v in dataclasses.asdict(obj).items()
         if (k not in ("output", "traceback", "isolation") or v) and k not in ("play_digest", "actions")}
    return d if timing else {k: v for k, v in d.items() if k not in {"seconds", "median_ms_game", "median_ms_turn"}}


@settings(max_examples=300, deadline=None)
@given(obj=records | stats, timing=st.booleans())
def test_as_dict_equals_asdict_and_gives_the_same_json(obj, timing):
    got, want = as_dict(obj, timing), reference(obj, timing)
    assert got == want
    assert list(got) == list(want)  # the same key order: the JSON is byte-identical
    assert json.dumps(got, indent=2) == json.dumps(want, indent=2)


def test_a_field_that_is_not_plain_goes_through_asdict():
    @dataclasses.dataclass
    class Outer:
        options: BenchOptions
        items: tuple

    obj = Outer(BenchOptions(), (GameRecord("a", "m", "1x1", 1, "WIN", "found"),))
    assert as_dict(obj) == dataclasses.asdict(obj)
    assert isinstance(as_dict(obj)["options"], dict)
