"""Does the referee's reply time tell an isolated agent where the treasure is? (docs/security.md)

    .venv/bin/python benchmarks/reply_timing.py [--size 32] [--tiles 8] [--games 15] [--turns 30]
        [--null] [--leak US] [--parts] [--pad BYTES]

One generated island; the same island with its treasure moved to `--tiles`
tiles. On each, a timing program (it scans and notes, after each answer that
ends a turn, how long the first byte of the next question took to come) plays
`--games` games of at most `--turns` turns with the same seeds (in a process of
its own: the sandbox changes nothing of the referee's time), once with the
referee's replies as they come and once held to a steady pace (sandbox/pacing.py,
what the tournament does, its hints drawn evenly: rules/hint_draw.py). For each setting the table gives the delays' median
and 99th percentile, the late turns, how far apart the tiles' median delays
are, and two tests of the delays grouped by treasure tile: Kruskal-Wallis over
the turns, and a test that shuffles whole games among the tiles (`_by_game`;
the first finds differences where there are none, as `--null` shows). A small
p-value says the delay depends on where the treasure is, which is the channel;
with steady replies it should not. `--leak` adds a channel of known size, to
see what the tests can find.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
from scipy import stats

from treasure_cli.formats import wire
from treasure_cli.islands.generator import generate_island
from treasure_cli.sandbox import process as agent_process
from treasure_cli.sandbox.process import close_all
from treasure_cli.play.games import play_game
from treasure_cli.sandbox.pacing import pace_for
from treasure_cli.sandbox.levels import AgentLimits
from treasure_cli.rules.game import Game

# A program speaking the protocol itself (docs/agent-protocol.md), as a C++ agent would. It times
# what an attacker would: from its answer's write to the first read that brings the next question,
# straight from the pipe. And it answers an `act` before parsing it, so that how long the referee
# waits for the answer does not depend on how long the question was to parse: the question's
# text is the agent's to see anyway; what must not show in the delay is anything else.
TIMER_PROGRAM = """#!{python}
import json
import os
import sys
import time

sent = None
turn = 0
buffer = b""
while True:
    chunk = os.read(0, 1 << 20)
    now = time.perf_counter()
    if not chunk:
        break
    first, buffer = not buffer, buffer + chunk
    if first:
        came = now  # the first byte of the next line
    while b"\\n" in buffer:
        line, buffer = buffer.split(b"\\n", 1)
        if line.startswith(b'{{"type":"act"'):  # the referee's compact JSON
            answered = time.perf_counter()
            os.write(1, b'{{"type": "action", "action": "scan"}}\\n')
            message = json.loads(line)
            if sent is not None and message["turn"] != turn:
                print(f"{{came - sent:.9f}} {{message['turn']}} {{sent:.9f}} {{came:.9f}}", file=sys.stderr, flush=True)
            turn, sent = message["turn"], answered
            came = time.perf_counter()  # a line that came with this one (not a question the agent waits for)
            continue
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            os.write(1, (json.dumps({{"type": "hello", "protocol": 1, "agent": "timer"}}) + "\\n").encode())
        elif kind == "end":
            sent, turn = None, 0
            os.write(1, b'{{"type": "ready"}}\\n')
        elif kind == "bye":
            sys.exit(0)
"""


LATE: list[bool] = []  # of each question the timing agent times (a turn's first), whether it was late
# With --parts, of each such question: when the answer before it was heard, when the hold
# returned, when its write began and ended, and the garbage collections from the hold's
# return to the next answer heard (time.perf_counter: the agent's clock too, CLOCK_MONOTONIC).
PARTS: list[tuple[float, float, float, float, int]] = []
_NOW: dict[str, float] = {}
_COLLECTIONS = [0]


def _noting_late(act):
    """ProcessAgent.act, noting of each question that follows a turn's end whether the referee's
    work overran the pace (as the timing agent times them: not the game's first question)."""
    def noted(self, obs):
        before, timed, heard = self.late, self.started and obs.turn != self._turn, self.process.heard
        _NOW.clear()
        action = act(self, obs)
        if timed:
            LATE.append(self.late > before)
            if "write" in _NOW:  # --parts
                PARTS.append((heard, _NOW.get("held", heard), _NOW["write"], _NOW["written"], _COLLECTIONS[0]))
        return action
    return noted


def _noting_parts() -> None:
    """Note when the hold returns, when the write begins and ends, and count collections after the hold."""
    hold, write = agent_process.hold, agent_process.AgentProcess.write

    def held(since: float, delay: float) -> bool:
        late = hold(since, delay)
        _NOW["held"] = time.perf_counter()
        _COLLECTIONS[0] = 0
        return late

    def timed_write(self, lines, deadline, turn):
        _NOW["write"] = time.perf_counter()
        write(self, lines, deadline, turn)
        _NOW["written"] = time.perf_counter()

    agent_process.hold = held
    agent_process.AgentProcess.write = timed_write
    gc.callbacks.append(lambda phase, info: phase == "start" and _COLLECTIONS.__setitem__(0, _COLLECTIONS[0] + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=32)
    parser.add_argument("--tiles", type=int, default=8)
    parser.add_argument("--games", type=int, default=15)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--island-seed", type=int, default=5)
    parser.add_argument("--null", action="store_true",
                        help="keep the treasure on one tile for every group: what the tests give when nothing differs")
    parser.add_argument("--pad", type=int, default=0, metavar="BYTES",
                        help="pad every line the referee writes with spaces to this length (valid JSON still): "
                             "whether what differs is the questions' length, which the agent reads anyway")
    parser.add_argument("--leak", type=float, default=0.0, metavar="US",
                        help="make each turn's work longer by 0 to US microseconds, more the later the tile: "
                             "a channel of known size, to see what the tests can find")
    parser.add_argument("--parts", action="store_true",
                        help="also test each part of the steady delay by tile (where the time goes)")
    args = parser.parse_args()

    agent_process.ProcessAgent.act = _noting_late(agent_process.ProcessAgent.act)
    if args.parts:
        _noting_parts()
    if args.pad:
        dump_line = wire.dump_line
        wire.dump_line = lambda message: (lambda line: line[:-1].ljust(args.pad - 1) + b"\n")(dump_line(message))
    island = generate_island(args.size, args.size, rng=np.random.default_rng(args.island_seed))
    open_tiles = np.argwhere(island.walkable & ~island.prison & (island.walk_pieces == island.walk_pieces[
        island.treasure]))
    picks = np.random.default_rng(0).choice(len(open_tiles), args.tiles, replace=False)
    if args.null:
        picks[:] = picks[0]
    islands = [dataclasses.replace(island, treasure=(int(r), int(c))) for r, c in open_tiles[picks]]

    if args.leak:
        _leaking({isl.treasure: args.leak * 1e-6 * i / max(len(islands) - 1, 1) for i, isl in enumerate(islands)})

    with tempfile.TemporaryDirectory() as tmp:
        program = Path(tmp) / "timer"
        program.write_text(TIMER_PROGRAM.format(python=sys.executable))
        program.chmod(0o755)
        spec = f"exec:{program}"
        print(f"{args.size}x{args.size} island, treasure on {args.tiles} tiles, {args.games} games each, "
              f"at most {args.turns} turns; steady pace {pace_for(island, 0.5, args.turns).turn * 1e6:.0f} us")
        print()
        print("| replies | turns | delay median (us) | delay p99 (us) | late turns | tile medians' spread (us) "
              "| H | p, turns as draws | p, games shuffled | seconds |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        # The games of every tile and both settings take turns, so that a spell of load on the
        # machine falls on all of them alike, not on one tile's games.
        settings = {False: "as they come", True: "steady (tournament)"}
        rows: dict[bool, list[Row]] = {steady: [] for steady in settings}
        played = 0  # games so far: each row's game, for the test that keeps a game's turns together
        parts: list[tuple[Row, tuple[float, ...]]] = []  # an on-time steady question, its delay's parts (--parts)
        seconds = dict.fromkeys(settings, 0.0)
        order = np.random.default_rng(1)
        for seed in range(args.games):
            for i in order.permutation(len(islands)):  # no tile always first after the previous seed's games
                i, isl = int(i), islands[i]
                for steady in settings:
                    LATE.clear()
                    PARTS.clear()
                    clock = time.perf_counter()
                    record, _ = play_game(isl, spec, seed, map_name="timing", max_turns=args.turns,
                                          keep_events=False, isolation="process",
                                          limits=AgentLimits(steady_replies=steady))
                    seconds[steady] += time.perf_counter() - clock
                    if record.outcome == "failed":
                        raise SystemExit(f"the timing agent failed: {record.error}")
                    game = [float(row.split()[0]) for row in record.output.splitlines()]
                    if len(game) != len(LATE):
                        raise SystemExit(f"{len(game)} delays timed, {len(LATE)} questions held: they should match")
                    turns = [int(row.split()[1]) for row in record.output.splitlines()]
                    rows[steady] += [Row(i, delay, late, played, seed, turn)
                                     for delay, late, turn in zip(game, LATE, turns)]
                    played += 1
                    if steady and args.parts:
                        timed = [row.split() for row in record.output.splitlines()]
                        for (_, turn, sent, came), late, (heard, held, write, written, gcs) in zip(timed, LATE, PARTS):
                            if not late:
                                parts.append((Row(i, 0.0, late, played - 1, seed, int(turn)), (
                                    heard - float(sent), held - heard, write - held, written - write,
                                    float(came) - written, gcs)))
        for steady, name in settings.items():
            _row(name, rows[steady], len(islands), seconds[steady], steady)
            if steady:  # the late turns apart: is it their number per tile, or the on-time turns, that differ?
                _row(f"{name}, on time only", [r for r in rows[steady] if not r[2]], len(islands), None, steady)
                late = np.bincount([r.tile for r in rows[steady] if r.late], minlength=len(islands))
                p = _by_game(rows[steady], len(islands), lambda r: float(r.late), ranked=False)
                print(f"| late turns per tile | {' '.join(map(str, late))} | | | | | | | {p:.3g} | |")
        if args.parts:
            _parts(parts, len(islands))
        close_all()


def _leaking(extra: dict[tuple[int, int], float]) -> None:
    """Each turn of a game whose treasure is a key of `extra` takes that many seconds longer (a spin)."""
    next_turn = Game._next_turn

    def leaky(self: Game) -> None:
        next_turn(self)
        until = time.perf_counter() + extra.get(self.treasure, 0.0)
        while time.perf_counter() < until:
            pass

    Game._next_turn = leaky  # type: ignore[method-assign]


def _parts(parts: list[tuple[Row, tuple[float, ...]]], tiles: int) -> None:
    """The on-time steady delays cut in parts, each tested by tile as the whole delay is."""
    print()
    print("| part of an on-time steady delay | median (us) | tile medians' spread (us) | p, turns as draws "
          "| p, games shuffled |")
    print("|---|---|---|---|---|")
    names = ["agent's answer sent -> heard", "heard -> hold returns", "hold returns -> write begins",
             "the write", "write ends -> agent has the line", "collections after the hold (count)"]
    for k, name in enumerate(names):
        rows = [row._replace(delay=values[k]) for row, values in parts]
        groups = [[r.delay for r in rows if r.tile == i] for i in range(tiles)]
        groups = [g for g in groups if g]
        scale = 1 if k == len(names) - 1 else 1e6
        varies = len({r.delay for r in rows}) > 1
        p = stats.kruskal(*groups)[1] if varies and len(groups) > 1 else 1.0
        medians = [np.median(g) * scale for g in groups]
        print(f"| {name} | {np.median([r.delay for r in rows]) * scale:.1f} | {max(medians) - min(medians):.1f} | "
              f"{p:.3g} | {_by_game(rows, tiles) if varies else 1.0:.3g} |")


class Row(NamedTuple):
    """One timed question: the treasure's tile, the delay, whether the referee's work was late, the game."""

    tile: int
    delay: float
    late: bool
    game: int
    seed: int
    turn: int


def _by_game(rows: list[Row], tiles: int, value: Callable[[Row], float] = lambda r: r.delay,
             ranked: bool = True, permutations: int = 4000) -> float:
    """p-value of "the value does not depend on the tile", the games' tiles shuffled among the
    games of one seed.

    The turns of one game are not independent draws: a spell of load on the machine moves a
    whole game's delays, and a test that counts each turn as a draw of its own (Kruskal-Wallis
    over the turns, the table's first p) then finds differences where there are none (`--null`
    shows it). Here each turn is compared only with the same turn of the same seed's games on
    the other tiles (its rank among them, or its value less their mean), each tile's scores
    summed, and the sum of their squares (per turn) compared with what the same statistic gives
    when whole games change tiles: the share of shuffles that reach it is the p-value.
    """
    block = np.array([r.seed * 10_000 + r.turn for r in rows])
    values = np.array([value(r) for r in rows])
    order = np.lexsort((values, block))
    starts = np.r_[0, np.flatnonzero(np.diff(block[order])) + 1]
    size = np.diff(np.r_[starts, len(order)])
    first = np.repeat(starts, size)
    k = np.repeat(size, size).astype(float)
    score = np.empty(len(rows))
    if ranked:  # rank within its block, centred and scaled: 0 on average, whatever the block's size
        score[order] = (np.arange(len(order)) - first + 1 - (k + 1) / 2) / k
    else:
        means = np.add.reduceat(values[order], starts) / size
        score[order] = values[order] - np.repeat(means, size)
    game = np.array([r.game for r in rows])
    tile_of = np.zeros(game.max() + 1, dtype=int)
    seed_of = np.zeros(game.max() + 1, dtype=int)
    tile_of[game], seed_of[game] = [r.tile for r in rows], [r.seed for r in rows]
    counts = np.bincount([r.tile for r in rows], minlength=tiles).clip(1)

    def statistic(tile_of: np.ndarray) -> float:
        return float((np.bincount(tile_of[game], score, tiles) ** 2 / counts).sum())

    real = statistic(tile_of)
    rng = np.random.default_rng(0)
    groups = [np.flatnonzero(seed_of == s) for s in np.unique(seed_of[game])]
    shuffled, above = tile_of.copy(), 0
    for _ in range(permutations):
        for g in groups:
            shuffled[g] = tile_of[rng.permutation(g)]
        above += statistic(shuffled) >= real
    return (above + 1) / (permutations + 1)


def _row(name: str, rows: list[Row], tiles: int, seconds: float | None, steady: bool) -> None:
    """One line of the table: the delays of `rows` (tile, delay, late) and the test by tile."""
    groups = [g for g in ([r[1] for r in rows if r[0] == i] for i in range(tiles)) if len(g) > 1]
    if len(groups) < 2 and seconds is None:  # the on-time turns only: on a busy machine, few are
        print(f"| {name} | {len(rows)} | - | - | - | - | - | - | - |  |")
        return
    if len(groups) < 2:
        raise SystemExit("too few games to compare: give more --games or --turns")
    h, p = stats.kruskal(*groups)
    medians = [np.median(g) for g in groups]
    delays = [r[1] for r in rows]
    late = sum(r[2] for r in rows)
    print(f"| {name} | {len(delays)} | {np.median(delays) * 1e6:.0f} | {np.percentile(delays, 99) * 1e6:.0f} | "
          f"{late if steady else '-'} | {(max(medians) - min(medians)) * 1e6:.1f} | {h:.2f} | {p:.3g} | "
          f"{_by_game(rows, tiles):.3g} | "
          f"{'' if seconds is None else f'{seconds:.1f}'} |")


if __name__ == "__main__":
    main()
