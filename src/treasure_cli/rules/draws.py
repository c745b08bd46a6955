"""Random draws for the pirate's hints: numpy's Generator draws without its call costs.

The hint of a turn is drawn from a stream of its own (`seeds.HINTS`, keyed
by the turn) with many tiny draws: a float for the kind, one to six bounded
integers per parameter set, up to MAX_PARAM_DRAWS redraws. Each call into a
numpy `Generator` costs about a microsecond of call overhead for a few
nanoseconds of work, so `Draws` takes PCG64's raw 64-bit words and performs
the same algorithms as numpy's `Generator` (numpy 1.17 to 2.x) itself:

* `random()`: the top 53 bits of one word, as `Generator.random`;
* `below(top)`: Lemire's multiply-and-reject on 32-bit halves (the bit
  generator keeps the spare half of a word for the next 32-bit draw), as
  `Generator.integers(0, top + 1)` for ranges below 2**32;
* `sample(n, size)`: Floyd's sampling and a Fisher-Yates shuffle with the
  same bounded draws: the indices `Generator.choice(a, size, replace=False)`
  takes of an array of n items.

The values are those numpy's `Generator` gives for the same seed, call for
call (tests/rules/test_draws.py compares them over thousands of seeds), so
every log is unchanged. Owning the algorithms also keeps the hints the same
if a later numpy changes how its `Generator` methods use the bits (numpy
keeps the bit generators' streams stable, not the methods').

Two implementations of the class, with the same API and the same values:

* `PyDraws`, below: the readable reference, in Python: numpy's `PCG64`
  seeded by its `SeedSequence`, its raw words fetched in blocks, the draws
  on Python ints;
* the compiled `treasure_cli.rules._draws.Draws` (`_draws.c`, built by the
  package's install when a C compiler is at hand): numpy's `SeedSequence`
  hashing, PCG64 and the three draws above in C, so making a stream and
  each draw cost a single call.

`Draws` is the compiled class when its module imports, else `PyDraws`.
Setting the environment variable TREASURE_CLI_PURE_PYTHON=1 before the
package is imported forces `PyDraws` (see `treasure_cli.compiled`).
`COMPILED` says which one `Draws` is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from treasure_cli.compiled import load

_BLOCK = 24             # words fetched per call; a typical hint uses a dozen or two
_M32 = 0xFFFFFFFF
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


class PyDraws:
    """A numpy-compatible source of the few draws the hint draw makes (the Python reference)."""

    __slots__ = ("_bits", "_words", "_at", "_spare")

    def __init__(self, seed_keys: Sequence[int]):
        # SeedSequence splits each key into 32-bit words, low word first (0 is one
        # word); handed the words as a uint32 array it skips that Python-level step
        # (2.5 us instead of 4.9) and mixes the very same entropy.
        words = []
        for key in seed_keys:
            if key < 0:
                raise ValueError(f"seed keys must be non-negative, got {key}")
            words.append(key & _M32)
            key >>= 32
            while key:
                words.append(key & _M32)
                key >>= 32
        self._bits = np.random.PCG64(np.random.SeedSequence(np.array(words, dtype=np.uint32)))
        self._words: list[int] = []
        self._at = 0
        self._spare: int | None = None  # the high half of a word split for 32-bit draws

    def _word(self) -> int:
        if self._at == len(self._words):
            self._words = self._bits.random_raw(_BLOCK).tolist()
            self._at = 0
        w = self._words[self._at]
        self._at += 1
        return w

    def _u32(self) -> int:
        spare = self._spare
        if spare is not None:
            self._spare = None
            return spare
        w = self._word()
        self._spare = w >> 32
        return w & _M32

    def random(self) -> float:
        """Uniform float in [0, 1), as Generator.random()."""
        return (self._word() >> 11) * _TO_UNIT

    def below(self, top: int) -> int:
        """Uniform int in [0, top], as Generator.integers(0, top + 1), for 0 <= top < 2**32.

        Lemire's method, as numpy: a 32-bit draw times the span; the high half
        is the answer unless the low half falls in the biased sliver (rare, so
        checked only then), and then it draws again. A zero range draws
        nothing; the full range returns the draw itself. The hint draw's
        redraw loops call this thousands of times a game: one call, the 32-bit
        draw inlined.
        """
        if top <= 0 or top >= _M32:
            if top == 0:
                return 0
            if top != _M32:
                raise ValueError(f"top {top} is not in 0..2**32-1")
        spare = self._spare
        if spare is not None:
            self._spare = None
            u = spare
        else:
            w = self._word()
            self._spare = w >> 32
            u = w & _M32
        if top == _M32:
            return u
        span = top + 1
        m = u * span
        while (m & _M32) < span and (m & _M32) < (_M32 - top) % span:
            m = self._u32() * span
        return m >> 32

    def sample(self, n: int, size: int) -> list[int]:
        """`size` distinct indices of range(n), in the order Generator.choice(a, size,
        replace=False) takes a[i] for an array a of n items (n up to 10,000, or
        size at most n // 50); Python ints, no array."""
        if not 0 <= size <= n:
            raise ValueError(f"cannot take {size} distinct items of {n}")
        if n > 10000 and size > n // 50:
            raise ValueError("Draws.sample: numpy shuffles a tail here; use a Generator")
        below = self.below
        # Floyd: for j in the last `size` positions take a number in [0, j], or j if taken.
        picked: list[int] = []
        taken: set[int] = set()
        for j in range(n - size, n):
            v = below(j)
            if v in taken:
                v = j
            taken.add(v)
            picked.append(v)
        for i in range(size - 1, 0, -1):  # Fisher-Yates, last to second
            k = below(i)
            picked[i], picked[k] = picked[k], picked[i]
        return picked


# The compiled class unless told otherwise (module docstring).
_c = load("treasure_cli.rules._draws")
Draws = _c.Draws if _c is not None else PyDraws
COMPILED = Draws is not PyDraws


class HintDraws(Protocol):
    """What a hint kind's `draw` is given (docs/hints.md): a `Draws`, or the same three draws of a
    numpy Generator. All of a hint's randomness comes from it: the game's seeded hint stream."""

    def random(self) -> float: ...             # uniform in [0, 1)
    def below(self, top: int) -> int: ...      # uniform integer in [0, top], both inclusive
    def sample(self, n: int, size: int) -> list[int]: ...  # `size` distinct indices out of range(n)
