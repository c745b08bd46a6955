"""What `logic`'s notes cost per game: `play_game` and `format_log`, notes off and on, paired.

    .venv/bin/treasure generate --size 64 --count 60 --seed 3 --output-dir maps64/
    .venv/bin/python benchmarks/notes_cost.py maps64/ [--passes 5] [--agent logic]

Every map is played with notes off and with notes on, in turn (off first on even
passes, on first on odd ones, so neither always gets a warm cache), with the seed
`treasure run` gives it (base seed 0), and its log written to text as `run` writes
it. Prints, per pass, the process CPU time per game of each and their ratio, then
the median ratio; and a digest of every log text of each kind, which must not
change when only speed does (the logs stay byte-identical). One process, one core.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from pathlib import Path

from treasure_cli.formats.game_record import format_log
from treasure_cli.formats.map_file import read_map
from treasure_cli.play.games import play_game
from treasure_cli.rules.seeds import map_seed


def one_game(island, name: str, seed: int, agent: str, notes: bool) -> tuple[float, str]:
    """(CPU seconds, log text) of one game played and written."""
    start = time.process_time()
    _, events = play_game(island, agent, seed, map_name=name, notes=notes)
    text = format_log(events)
    return time.process_time() - start, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("maps", type=Path)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--agent", default="logic")
    args = parser.parse_args()
    paths = sorted(args.maps.glob("*.txt"))
    if not paths:
        sys.exit(f"no maps in {args.maps}")
    games = [(read_map(p).precompute(), str(p)) for p in paths]
    seeds = [map_seed(0, island.digest) for island, _ in games]
    ratios = []
    print("| pass | games | CPU ms per game, notes off | notes on | on / off |")
    print("|---|---|---|---|---|")
    digests: dict[bool, set[str]] = {False: set(), True: set()}
    for k in range(args.passes):
        spent = {False: 0.0, True: 0.0}
        texts: dict[bool, list[str]] = {False: [], True: []}
        for (island, name), seed in zip(games, seeds):
            for notes in ((False, True) if k % 2 == 0 else (True, False)):
                seconds, text = one_game(island, name, seed, args.agent, notes)
                spent[notes] += seconds
                texts[notes].append(text)
        for notes in (False, True):
            digests[notes].add(hashlib.sha256("".join(texts[notes]).encode()).hexdigest()[:12])
        off, on = (1000 * spent[n] / len(games) for n in (False, True))
        ratios.append(on / off)
        print(f"| {k + 1} | {len(games)} | {off:.2f} | {on:.2f} | {on / off:.3f} |")
    assert all(len(d) == 1 for d in digests.values()), "the same games gave other logs"
    print(f"median on / off: {statistics.median(ratios):.3f}; logs without notes {digests[False].pop()}, "
          f"with notes {digests[True].pop()}")


if __name__ == "__main__":
    main()
