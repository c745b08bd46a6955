"""What `logic`'s notes cost per game: the whole job (map read, game, log written), notes off and on, paired.

    .venv/bin/treasure generate --size 64 --count 60 --seed 3 --output-dir maps64/
    .venv/bin/python benchmarks/notes_cost.py maps64/ [--passes 7] [--agent logic]

Each map is played twice in a row, notes off and notes on (off first on even
passes, on first on odd ones, so neither always gets the warm cache), as
`treasure run` plays it: the map read from its file, the game with the seed
`run` gives it (base seed 0), the log formatted and written atomically (into
a temporary folder). Per pass it prints the CPU time per game of each, in
total and for the game and its log text alone, and the ratios on / off; then
the median ratios over the passes. Last, a digest of every log of each kind:
it must not change when only speed does (the logs stay byte-identical).
One process, one core; CPU time, since the machine is shared.
"""

from __future__ import annotations

import argparse
import hashlib
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("maps", type=Path)
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--agent", default="logic")
    args = parser.parse_args()
    paths = sorted(args.maps.glob("*.txt"))
    if not paths:
        sys.exit(f"no maps in {args.maps}")
    ratios: dict[str, list[float]] = {"whole": [], "game": []}
    digests: dict[bool, set[str]] = {False: set(), True: set()}
    print("| pass | games | whole job ms, off | on | on / off | game and log text ms, off | on | on / off |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        for k in range(args.passes):
            whole = {False: 0.0, True: 0.0}
            game = {False: 0.0, True: 0.0}
            texts: dict[bool, list[str]] = {False: [], True: []}
            for path in paths:
                for notes in ((False, True) if k % 2 == 0 else (True, False)):
                    w, g, text = whole_job(path, args.agent, notes, out)
                    whole[notes] += w
                    game[notes] += g
                    texts[notes].append(text)
            for notes in (False, True):
                digests[notes].add(hashlib.sha256("".join(texts[notes]).encode()).hexdigest()[:12])
            row = []
            for name, spent in (("whole", whole), ("game", game)):
                off, on = (1000 * spent[n] / len(paths) for n in (False, True))
                ratios[name].append(on / off)
                row += [f"{off:.2f}", f"{on:.2f}", f"{on / off:.3f}"]
            print(f"| {k + 1} | {len(paths)} | " + " | ".join(row) + " |")
    assert all(len(d) == 1 for d in digests.values()), "the same games gave other logs"
    print(f"median on / off: whole job {statistics.median(ratios['whole']):.3f}, "
          f"game and log text {statistics.median(ratios['game']):.3f}; "
          f"logs without notes {digests[False].pop()}, with notes {digests[True].pop()}")


if __name__ == "__main__":
    main()
