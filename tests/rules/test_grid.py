from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treasure_cli.rules.grid import UNREACHABLE, bfs_distance, components, manhattan_distance_to, window_sum


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_bfs_matches_a_plain_queue_and_stops_where_asked(seed):
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(1, 15)), int(rng.integers(1, 15))
    passable = rng.random((h, w)) < 0.7
    src = (int(rng.integers(h)), int(rng.integers(w)))
    # Reference: a textbook queue.
    ref = np.full((h, w), UNREACHABLE)
    ref[src] = 0
    queue = [src]
    for r, c in queue:
        for nr, nc in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
            if 0 <= nr < h and 0 <= nc < w and passable[nr, nc] and ref[nr, nc] == UNREACHABLE:
                ref[nr, nc] = ref[r, c] + 1
                queue.append((nr, nc))
    assert np.array_equal(bfs_distance(passable, [src]), ref)
    until = (int(rng.integers(h)), int(rng.integers(w)))
    part = bfs_distance(passable, [src], until=until, extra=2)
    limit = ref[until] + 2 if ref[until] >= 0 else ref.max()
    near = (ref >= 0) & (ref <= limit)
    assert np.array_equal(part[near], ref[near])
    assert (part[~near] == UNREACHABLE).all()
    labels = components(passable)
    assert ((labels == labels[src]) == (ref >= 0)).all() if passable[src] else True


def test_manhattan_distance_and_window_sums():
    mask = np.zeros((4, 5), bool)
    mask[0, 0] = True
    d = manhattan_distance_to(mask)
    assert d[3, 4] == 7 and d[0, 0] == 0 and d[1, 1] == 2
    ones = np.ones((4, 5), int)
    assert window_sum(ones, 1)[0, 0] == 4 and window_sum(ones, 1)[1, 1] == 9 and window_sum(ones, 2)[0, 0] == 9


def test_bounding_box_is_the_smallest_box_of_the_true_tiles():
    import numpy as np

    from treasure_cli.rules.grid import bounding_box

    rng = np.random.default_rng(5)
    for _ in range(200):
        mask = rng.random((int(rng.integers(1, 12)), int(rng.integers(1, 12)))) < rng.random() * 0.3
        box = bounding_box(mask)
        if not mask.any():
            assert box is None
            continue
        rows, cols = np.nonzero(mask)
        assert box == np.s_[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
