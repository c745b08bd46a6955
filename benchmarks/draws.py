"""Microseconds per call of the hint draw's random source, compiled and pure Python (rules/draws.py).

    .venv/bin/python benchmarks/draws.py [--repeat 7]

For each class: making a hint's stream (`Draws([seed, 1, turn])`), one
`below`, one `sample(600, 6)` (a kind-1 hint's tiles out of 600 land tiles),
and a hint-sized mix of them (a stream, the truth coin and kind, 20 bounded
draws, a sample). Best of --repeat timings; one process, one core. Values
are the same from both classes (tests/rules/test_draws.py).
"""

from __future__ import annotations

import argparse
import timeit

from treasure_cli.rules.draws import PyDraws

try:
    from treasure_cli.rules._draws import Draws as CompiledDraws
except ImportError:
    CompiledDraws = None


def hint_like(cls, turn: int) -> None:
    d = cls([123456789, 1, turn])
    d.random(), d.random()
    for top in range(20):
        d.below(top + 5)
    d.sample(600, 6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    classes = [("python", PyDraws)] + ([("compiled", CompiledDraws)] if CompiledDraws else [])
    print("| class | Draws(keys) µs | below µs | sample(600, 6) µs | hint-like mix µs |")
    print("|---|---|---|---|---|")
    for label, cls in classes:
        d = cls([1, 1, 1])
        cases = [
            (lambda: cls([123456789, 1, 7]), 20000),  # noqa: B023  (each timed in this iteration)
            (lambda: d.below(37), 200000),  # noqa: B023
            (lambda: d.sample(600, 6), 50000),  # noqa: B023
            (lambda: hint_like(cls, 7), 10000),  # noqa: B023
        ]
        cells = [min(timeit.repeat(fn, number=n, repeat=args.repeat)) / n * 1e6 for fn, n in cases]
        print(f"| {label} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    if CompiledDraws is None:
        print("(treasure_cli.rules._draws is not built: only the Python class was measured)")


if __name__ == "__main__":
    main()
