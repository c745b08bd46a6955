"""What `logic`'s notes cost per game: the whole job (map read, game, log written), notes off and on, paired.

    .venv/bin/treasure generate --size 64 --count 60 --seed 3 --output-dir maps64/
    .venv/bin/python benchmarks/notes_cost.py maps64/ [--passes 7] [--agent logic] [--control]

Each map's job is done as `treasure run` does it: the map read from its file,
the game with the seed `run` gives it (base seed 0), the log formatted and
written atomically (into a temporary folder). One process, one core; CPU
time, since the machine is shared.

Why the order is what it is: the game that runs second on a map finds the
caches warm from the first, and the machine's speed drifts while a pass runs.
An earlier version alternated off-on and on-off between whole passes, and its
median leaned on whichever order the odd pass had (passes with notes first
read 1.15-1.21, the others 1.01-1.17). Here every map, in every pass, runs
four games in ABBA order (off, on, on, off), the next map BAAB, and the next
pass starts with the other order: each setting is first, second, third and
fourth equally often, so a cache's warmth or a linear drift favours neither.
A first pass over all maps, both settings, is not counted (imports, first
calls).

Printed: per pass, the CPU time per game of each setting (whole job, and the
game with its log text alone) and their ratio; then, over all passes, the
ratio of the total times (the estimate of "time per game"), the median of
the per-map ratios, and a 95 % interval of the total ratio by resampling
maps (a seeded bootstrap: a map's on and off games stay together). Last, a
digest of every log of each kind: it must not change when only speed does.

`--control` times notes off against notes off (an A/A run): the ratio must
read about 1.00, and the interval says how much the machine's noise alone
moves it.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from treasure_cli.formats.atomic import write_text_atomic
from treasure_cli.formats.game_record import format_log
from treasure_cli.formats.map_file import read_map
from treasure_cli.play.games import play_game
from treasure_cli.rules.seeds import map_seed


def whole_job(path: Path, agent: str, notes: bool, out: Path) -> tuple[float, float, str]:
    """(CPU seconds of the whole job, of the game and its log text alone, the log) of one map."""
    clock = time.process_time
    start = clock()
    island = read_map(path)
    game_start = clock()
    _, events = play_game(island, agent, map_seed(0, island.digest), map_name=str(path), notes=notes)
    text = format_log(events)
    game = clock() - game_start
    write_text_atomic(out / f"LOG_{path.stem}.txt", text)
    return clock() - start, game, text


def interval(per_map: list[tuple[float, float]], draws: int = 2000) -> tuple[float, float]:
    """A 95 % bootstrap interval of sum(B) / sum(A) over maps drawn with replacement (seeded)."""
    rng = random.Random(0)
    n = len(per_map)
    ratios = []
    for _ in range(draws):
        sample = [per_map[rng.randrange(n)] for _ in range(n)]
        ratios.append(sum(b for _, b in sample) / sum(a for a, _ in sample))
    ratios.sort()
    return ratios[int(0.025 * draws)], ratios[int(0.975 * draws) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("maps", type=Path)
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--agent", default="logic")
    parser.add_argument("--control", action="store_true", help="notes off against notes off (an A/A check)")
    args = parser.parse_args()
    paths = sorted(args.maps.glob("*.txt"))
    if not paths:
        sys.exit(f"no maps in {args.maps}")
    # The two settings timed: A (notes off) and B (notes on, or off again with --control).
    notes_of = {"A": False, "B": not args.control}
    label = "B" if not args.control else "A again"
    # Per setting and map: whole-job and game CPU seconds summed over passes.
    whole: dict[str, list[float]] = {s: [0.0] * len(paths) for s in "AB"}
    game: dict[str, list[float]] = {s: [0.0] * len(paths) for s in "AB"}
    digests: dict[str, set[str]] = {"A": set(), "B": set()}
    print(f"A: notes off; B: {'notes off again (control)' if args.control else 'notes on'}; "
          f"{len(paths)} maps, each pass 4 games a map in ABBA / BAAB order; CPU ms per game")
    print(f"| pass | whole job, A | {label} | B / A | game and log text, A | {label} | B / A |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        for k in range(-1, args.passes):  # pass -1: the warm-up, not counted
            spent = {(s, part): 0.0 for s in "AB" for part in ("whole", "game")}
            texts: dict[str, list[str]] = {"A": [], "B": []}
            for i, path in enumerate(paths):
                order = "ABBA" if (i + k) % 2 == 0 else "BAAB"
                for n, setting in enumerate(order):
                    w, g, text = whole_job(path, args.agent, notes_of[setting], out)
                    if k < 0:
                        continue
                    spent[setting, "whole"] += w
                    spent[setting, "game"] += g
                    whole[setting][i] += w
                    game[setting][i] += g
                    if n < 2:  # the first game of each setting: one log a map
                        texts[setting].append(text)
            if k < 0:
                continue
            for s in "AB":
                digests[s].add(hashlib.sha256("".join(texts[s]).encode()).hexdigest()[:12])
            row = []
            for part in ("whole", "game"):
                a, b = (1000 * spent[s, part] / (2 * len(paths)) for s in "AB")
                row += [f"{a:.2f}", f"{b:.2f}", f"{b / a:.3f}"]
            print(f"| {k + 1} | " + " | ".join(row) + " |")
    assert all(len(d) == 1 for d in digests.values()), "the same games gave other logs"
    for part, spent_by in (("whole job", whole), ("game and log text", game)):
        pairs = list(zip(spent_by["A"], spent_by["B"]))
        total = sum(b for _, b in pairs) / sum(a for a, _ in pairs)
        low, high = interval(pairs)
        per_map = statistics.median(b / a for a, b in pairs)
        print(f"{part}: B / A {total:.3f} (95 % interval {low:.3f}-{high:.3f}), "
              f"median of the per-map ratios {per_map:.3f}")
    print(f"logs without notes {digests['A'].pop()}, "
          f"{'again' if args.control else 'with notes'} {digests['B'].pop()}")


if __name__ == "__main__":
    main()
