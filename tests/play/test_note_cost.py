"""The cheaper ways notes are written (benchmarks/notes_cost.py) write the same bytes as before."""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest

from treasure_cli.formats.game_record import _stored, format_event
from treasure_cli.rules.notes import note_event
from treasure_cli.rules.events import TileSet
from treasure_cli.rules.observation import Note


def test_the_stored_stream_is_zlib_level_0_byte_for_byte():
    rng = random.Random(7)
    for n in range(0, 4097):  # every size it is used for: up to a 181x181 map's bits
        data = bytes(rng.getrandbits(8) for _ in range(n)) if n % 97 == 0 or n < 64 else bytes([n % 251]) * n
        assert _stored(data) == zlib.compress(data, 0), n


def test_a_packed_tileset_is_the_flat_mask_packed_row_by_row():
    mask = np.random.default_rng(3).random((37, 53)) < 0.4
    assert TileSet.of(mask).bits == np.packbits(mask.ravel()).tobytes()
    assert TileSet.of(np.asfortranarray(mask)).bits == TileSet.of(mask).bits
    assert np.array_equal(TileSet.of(mask).mask(53, 37), mask)


def test_a_note_given_as_a_tileset_is_written_as_the_same_note_given_as_a_mask():
    mask = np.random.default_rng(5).random((20, 30)) < 0.3
    for candidates in (True, False):
        lines = []
        for tiles in (mask, TileSet.of(mask), TileSet.of(mask, not candidates)):
            last: list = [None]
            first = note_event(2, Note("why", tiles, candidates), 30, 20, last)
            again = note_event(3, Note("why", tiles, candidates), 30, 20, last)
            assert again.tiles is None  # the same tiles are not written twice
            lines.append(format_event(first))
        assert lines[0] == lines[1] == lines[2]


def test_a_tileset_of_another_size_is_the_agents_error():
    with pytest.raises(ValueError, match="30x20"):
        note_event(1, Note("x", TileSet.of(np.zeros((5, 5), dtype=bool))), 30, 20)


def test_the_same_tileset_shown_with_the_other_meaning_is_written_again():
    tiles = TileSet.of(np.random.default_rng(9).random((20, 30)) < 0.3)
    last: list = [None]
    assert note_event(1, Note("a", tiles), 30, 20, last).tiles is tiles
    assert note_event(2, Note("b", tiles), 30, 20, last).tiles is None  # the very same: left out
    shown = note_event(3, Note("c", tiles, candidates=False), 30, 20, last).tiles
    assert shown == TileSet(tiles.bits, False)  # the same bits, now "tiles", not candidates
    assert note_event(4, Note("d", tiles), 30, 20, last).tiles == tiles  # and back
    assert note_event(5, Note("e", TileSet(tiles.bits)), 30, 20, last).tiles is None  # equal bits: left out
