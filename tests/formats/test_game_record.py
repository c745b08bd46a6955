from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import play_spec

from treasure_cli.rules import events as ev
from treasure_cli.islands.generator import generate_island
from treasure_cli.rules.grid import Direction
from treasure_cli.formats.game_record import (
    _FIELD, _TYPES, TEMPLATES, LogFormatError, format_event, format_log, parse_event, parse_log,
)


def play(seed, agent="logic", size=16, **kw):
    isl = generate_island(size, size, rng=np.random.default_rng(seed))
    return play_spec(isl, agent, seed, map_name="maps/MAP_x.txt", **kw)


def test_every_event_line_parses_back():
    samples = [
        ev.GameStarted("in put/MAP (1).txt", 16, 12, 123456789, "logic", 0.5, 112),
        ev.TreasureHidden((3, 4), (10, 2)),
        ev.AgentPlaced((0, 15)),
        ev.ScheduleAnnounced(3, 9),
        ev.TurnStarted(12),
        ev.PrisonRevealed(3, (10, 2)),
        ev.PirateFreed(9),
        ev.HintAdded(4, 4, 4),
        ev.PirateMoved(9, (10, 2), (9, 3)),
        ev.HintVerified(5, 2, False),
        ev.AgentMoved(5, Direction.W, 3, (4, 4), (4, 1)),
        ev.AreaScanned(5, (4, 1), 3, False),
        ev.AreaScanned(6, (0, 0), 5, True),
        ev.Teleported(7, (4, 1), (12, 30)),
        ev.GameEnded(7, ev.Outcome.WIN, ev.EndReason.FOUND),
        ev.GameEnded(70, ev.Outcome.LOSE, ev.EndReason.PIRATE),
        ev.GameEnded(71, ev.Outcome.LOSE, ev.EndReason.TIMEOUT),
    ]
    for e in samples:
        line = format_event(e)
        assert "\n" not in line
        assert parse_event(line) == e, line


@pytest.mark.parametrize("seed", range(8))
def test_whole_logs_round_trip(seed):
    events = play(seed, agent="random" if seed % 2 else "logic")
    text = format_log(events)
    assert parse_log(text) == events
    lines = text.splitlines()
    assert int(lines[0]) == len(lines) - 3
    assert lines[1] in ("WIN", "LOSE")
    assert int(lines[2]) == events[-1].turn


def test_header_reads_as_the_assignment_asks():
    events = play(3)
    lines = format_log(events).splitlines()
    digest = generate_island(16, 16, rng=np.random.default_rng(3)).digest
    assert lines[3].startswith(f"game: map maps/MAP_x.txt (16x16, digest {digest}), seed 3, agent logic")
    assert lines[4].startswith("setup: the treasure is at (")
    assert lines[-1].startswith(f"turn {lines[2]}: game over, {lines[1]}: ")


def test_damaged_logs_name_the_line():
    text = format_log(play(1))
    lines = text.splitlines()
    broken = lines[:]
    broken[7] = "turn x: the agent dances"
    with pytest.raises(LogFormatError) as info:
        parse_log("\n".join(broken), "L.txt")
    assert str(info.value).startswith("L.txt:8: not a known log line: 'turn x: the agent dances'")
    with pytest.raises(LogFormatError, match=r"^L.txt:1: header says"):
        parse_log("\n".join(lines[:-1]), "L.txt")
    with pytest.raises(LogFormatError, match=r"^L.txt:2: expected WIN, LOSE or failed"):
        parse_log("\n".join([lines[0], "MAYBE", *lines[2:]]), "L.txt")
    with pytest.raises(LogFormatError, match=r"^L.txt:1: a log starts"):
        parse_log("", "L.txt")


def test_a_log_needs_a_finished_game():
    with pytest.raises(ValueError):
        format_log([ev.TurnStarted(1)])


# -- the compiled line writers write what the template pieces wrote -----------------------
def reference_format_event(event: ev.Event) -> str:
    """The writer format_event replaced: each field's text joined piece by piece."""
    template = TEMPLATES[type(event)]
    pieces, pos = [], 0
    for m in _FIELD.finditer(template):
        pieces.append(template[pos:m.start()] + _TYPES[m.group(2)].write(getattr(event, m.group(1))))
        pos = m.end()
    return "".join(pieces) + template[pos:]


def _sample_hints() -> list:
    island = generate_island(24, 20, rng=np.random.default_rng(5))
    return [e.hint for seed in range(6) for e in play_spec(island, "logic", seed)
            if isinstance(e, ev.HintGiven)]


_ints = st.integers(-2**70, 2**70)
_pos = st.tuples(st.integers(0, 10**9), st.integers(0, 10**9))
_texts = st.text() | st.sampled_from(["MAP_1.txt", "in put/MAP (1).txt", 'a"b\\c', "x\u2028y"])
_FIELDS = {
    "int": _ints, "float": st.floats(allow_nan=True), "text": _texts,
    "digest": st.sampled_from(["", "0123456789abcdef"]), "told": st.booleans(), "pos": _pos,
    "dir": st.sampled_from(list(Direction)), "truth": st.sampled_from([True, False, None]),
    "found": st.booleans(), "outcome": st.sampled_from(list(ev.Outcome)),
    "reason": st.sampled_from(list(ev.EndReason)), "hint": st.sampled_from(_sample_hints()),
    "note": st.text(), "kind": st.sampled_from(["agent-error", "illegal-action", "game-timeout"]), "tiles": st.none() | st.builds(ev.TileSet, st.binary(max_size=600), st.booleans()),
}


def _event_of(cls) -> st.SearchStrategy:
    fields = {name: _FIELDS[kind] for name, kind in _FIELD.findall(TEMPLATES[cls])}
    return st.fixed_dictionaries(fields).map(lambda values: cls(**values))


@settings(max_examples=400, deadline=None)
@given(event=st.one_of([_event_of(cls) for cls in TEMPLATES]))
def test_every_event_is_written_as_the_template_pieces_wrote_it(event):
    assert format_event(event) == reference_format_event(event)


@settings(max_examples=300, deadline=None)
@given(event=st.builds(ev.AgentNoted, st.integers(0, 10**9), _FIELDS["note"], _FIELDS["tiles"]))
def test_a_note_reads_back_as_written_on_one_line(event):
    line = format_event(event)
    assert "\n" not in line and "\r" not in line and line.isascii()
    assert parse_event(line) == event
