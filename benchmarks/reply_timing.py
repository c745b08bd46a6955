"""Does the referee's reply time tell an isolated agent where the treasure is? (docs/security.md)

    .venv/bin/python benchmarks/reply_timing.py [--size 32] [--tiles 8] [--games 15] [--turns 30]

One generated island; the same island with its treasure moved to `--tiles`
tiles. On each, a timing program (it scans and notes, after each answer that
ends a turn, how long the next question's line took to come) plays `--games` games of at most
`--turns` turns with the same seeds (in a process of its own: the sandbox
changes nothing of the referee's time), once with the referee's
replies as they come and once held to a steady pace (play/pacing.py, what the
tournament does). For each setting the table gives the delays' median and 99th
percentile, how far apart the tiles' median delays are, and a Kruskal-Wallis
test of the delays grouped by treasure tile
(on ranks: a pause of the machine weighs no more than any other delay): a
small p-value says the delay depends on where the
treasure is, which is the channel; with steady replies it should not.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats

from treasure_cli.islands.generator import generate_island
from treasure_cli.play import agent_process
from treasure_cli.play.agent_process import close_all
from treasure_cli.play.games import play_game
from treasure_cli.play.pacing import pace_for
from treasure_cli.play.sandbox import AgentLimits

# A program speaking the protocol itself (docs/agent-protocol.md), as a C++ agent would: it
# notes when each question's line arrives, before any parsing, so only the referee's time counts.
TIMER_PROGRAM = """#!{python}
import json
import sys
import time

sent = None
turn = 0
for line in sys.stdin:
    now = time.perf_counter()
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        print(json.dumps({{"type": "hello", "protocol": 1, "agent": "timer"}}), flush=True)
    elif kind == "act":
        if sent is not None and message["turn"] != turn:
            print(f"{{now - sent:.9f}} {{message['turn']}}", file=sys.stderr, flush=True)
        turn = message["turn"]
        sent = time.perf_counter()
        print('{{"type": "action", "action": "scan"}}', flush=True)
    elif kind == "end":
        sent, turn = None, 0
        print('{{"type": "ready"}}', flush=True)
    elif kind == "bye":
        break
"""


LATE: list[int] = [0]


def _counting_hold(hold):
    """ProcessAgent._hold, counting the questions whose work overran the pace."""
    def counted(self, since: float, delay: float) -> None:
        before = self.late
        hold(self, since, delay)
        LATE[0] += self.late - before
    return counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=32)
    parser.add_argument("--tiles", type=int, default=8)
    parser.add_argument("--games", type=int, default=15)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--island-seed", type=int, default=5)
    args = parser.parse_args()

    agent_process.ProcessAgent._hold = _counting_hold(agent_process.ProcessAgent._hold)
    island = generate_island(args.size, args.size, rng=np.random.default_rng(args.island_seed))
    open_tiles = np.argwhere(island.walkable & ~island.prison & (island.walk_pieces == island.walk_pieces[
        island.treasure]))
    picks = np.random.default_rng(0).choice(len(open_tiles), args.tiles, replace=False)
    islands = [dataclasses.replace(island, treasure=(int(r), int(c))) for r, c in open_tiles[picks]]

    with tempfile.TemporaryDirectory() as tmp:
        program = Path(tmp) / "timer"
        program.write_text(TIMER_PROGRAM.format(python=sys.executable))
        program.chmod(0o755)
        spec = f"exec:{program}"
        print(f"{args.size}x{args.size} island, treasure on {args.tiles} tiles, {args.games} games each, "
              f"at most {args.turns} turns; steady pace {pace_for(island, 0.5, args.turns).turn * 1e6:.0f} us")
        print()
        print("| replies | delay median (us) | delay p99 (us) | late turns | tile medians' spread (us) | H "
              "| p (delay independent of the treasure) | seconds |")
        print("|---|---|---|---|---|---|---|---|")
        # The games of every tile and both settings take turns, so that a spell of load on the
        # machine falls on all of them alike, not on one tile's games.
        settings = {False: "as they come", True: "steady (tournament)"}
        by_tile = {steady: [[] for _ in islands] for steady in settings}  # every turn's delay
        delays: dict[bool, list[float]] = {steady: [] for steady in settings}
        late = dict.fromkeys(settings, 0)
        seconds = dict.fromkeys(settings, 0.0)
        for seed in range(args.games):
            for i, isl in enumerate(islands):
                for steady in settings:
                    LATE[0] = 0
                    clock = time.perf_counter()
                    record, _ = play_game(isl, spec, seed, map_name="timing", max_turns=args.turns,
                                          keep_events=False, isolation="process",
                                          limits=AgentLimits(steady_replies=steady))
                    seconds[steady] += time.perf_counter() - clock
                    late[steady] += LATE[0]
                    if record.outcome == "failed":
                        raise SystemExit(f"the timing agent failed: {record.error}")
                    game = [float(row.split()[0]) for row in record.output.splitlines()]
                    delays[steady] += game
                    by_tile[steady][i] += game
        for steady, name in settings.items():
            groups = [g for g in by_tile[steady] if len(g) > 1]
            if len(groups) < 2:
                raise SystemExit("too few games to compare: give more --games or --turns")
            h, p = stats.kruskal(*groups)
            medians = [np.median(g) for g in groups]
            print(f"| {name} | {np.median(delays[steady]) * 1e6:.0f} | {np.percentile(delays[steady], 99) * 1e6:.0f} | "
                  f"{late[steady] if steady else '-'} of {len(delays[steady])} | "
                  f"{(max(medians) - min(medians)) * 1e6:.1f} | {h:.2f} | {p:.3g} | "
                  f"{seconds[steady]:.1f} |")
        close_all()


if __name__ == "__main__":
    main()
