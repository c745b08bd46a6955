"""What a game's process does, forked from a warm agent host: its start, each action, its faults.

    .venv/bin/python benchmarks/warm_host_games.py [--games 40] [--size 32] [--rounds 2] [--no-island]

A warm host (sandbox/warm_host.py) is prepared here as it is for `logic.py` given as
a file (src/treasure_cli/agents/logic.py:LogicAgent): its imports, its warm-up
games, its compiled agent file, and, unless `--no-island`, each game's public
island read ahead (what the referee sends it). Then, for each of `--games`
bench islands, a process is forked from it, as for a game, and fed the
messages that game's referee would send (made beforehand by playing the
built-in `logic` in this process: the same actions). The fork times its
host's answer to each message and counts its minor page faults (copy on
write, mostly), with no pipe, referee or sandbox in the way.

Printed, medians over all games of the last of `--rounds` rounds: the agent
loaded and hello answered, the `start` message, and each action by its
index in the game (the first ones run cold), with its faults.

Last, the floor of a fresh process per game: this process, prepared as a
warm host is, forked, its child ending at once, and reaped (nothing loaded,
nothing played), against a whole game of the built-in `logic` in this
process on the same islands; both on one core, as a pool's worker shares its
core with its agent. No game in a fresh process can cost less than the game
plus that floor, whatever the rest costs: the last figure is that lower
bound, as a multiple of the game.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import socket
import statistics
import time
from pathlib import Path
from typing import Any

from treasure_cli.agents.registry import resolve
from treasure_cli.formats import wire
from treasure_cli.sandbox.agent_host import _Host
from treasure_cli.play.bench import BenchOptions, iter_tasks, task_island
from treasure_cli.play.loop import play_agent
from treasure_cli.sandbox.warm_host import Zygote
from treasure_cli.rules.game import Game

LOGIC_FILE = Path(__file__).resolve().parent.parent / "src" / "treasure_cli" / "agents" / "logic.py"
SPEC = f"{LOGIC_FILE}:LogicAgent"
SHOWN = 6  # actions shown one by one; the later ones together


def messages(island: Any, seed: int) -> list[dict[str, Any]]:
    """A game's `start` and `act` messages, as its referee would send them to `logic`."""
    public = island.public()
    game = Game(island, seed, agent_name="agent")
    game.start()
    agent = resolve("logic").build()
    sent = [{"type": "start", "seed": 1, "island": wire.encode_island(public),
             "options": {"truth_rate": game.truth_rate, "max_turns": game.max_turns}}]
    while game.result is None:
        obs = game.observe()
        sent.append({"type": "act", "turn": obs.turn, "actions_left": obs.actions_left,
                     "position": list(obs.position), "teleport_used": obs.teleport_used,
                     "news": [wire.encode_event(e, public, False) for e in obs.news]})
        game.step(agent.act(obs))
    return sent


def faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def one_game(host_zygote: Zygote, game: list[bytes]) -> tuple[int, int, list[int], list[int]]:
    """In a fork: (ns to load and greet, ns for start, ns and faults of each action)."""
    clock = time.perf_counter_ns
    out = io.BytesIO()
    began = clock()
    host = _Host(SPEC, out)
    host.load(host_zygote.code, host_zygote.compile_error)
    host.handle({"type": "hello"})
    loaded = clock() - began
    if host_zygote.island is not None:
        host.islands = dict([host_zygote.island])
    began = clock()
    host.handle(wire.load_line(game[0]))
    started = clock() - began
    times, counts = [], []
    for line in game[1:]:
        message = wire.load_line(line)
        before, began = faults(), clock()
        out.seek(0)
        out.truncate()
        host.handle(message)
        times.append(clock() - began)
        counts.append(faults() - before)
    return loaded, started, times, counts


def forked(host_zygote: Zygote, game: list[bytes]) -> tuple[int, int, list[int], list[int]]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            os.write(write, repr(one_game(host_zygote, game)).encode())
        finally:
            os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 1 << 16):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    return eval(data)  # noqa: S307  # our own fork's repr of ints


def fork_floor(games: int) -> list[float]:
    """Seconds of each of `games` forks of this (prepared) process whose child ends at once,
    reaped: the least a fresh process per game costs."""
    spent = []
    for _ in range(games):
        began = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        spent.append(time.perf_counter() - began)
    return spent


def in_process(islands: list[Any], seeds: list[int]) -> list[float]:
    """Seconds of a whole game of the built-in `logic` on each island, in this process."""
    spent = []
    for island, seed in zip(islands, seeds):
        began = time.perf_counter()
        for _ in play_agent(Game(island, seed, agent_name="logic"), resolve("logic").build()):
            pass
        spent.append(time.perf_counter() - began)
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--size", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-island", action="store_true", help="the host does not read the islands ahead")
    args = parser.parse_args()
    options = BenchOptions(agents=("logic",), sizes=(args.size,), games=args.games)
    tasks = [task for _, task in iter_tasks(options)]
    islands = [task_island(task, options) for task in tasks]
    games = [[wire.dump_line(m) for m in messages(island, task.game_seed)] for island, task in zip(islands, tasks)]
    host_zygote = Zygote(SPEC, False, socket.socketpair()[0])
    host_zygote.prepare()
    results = []
    for _ in range(args.rounds):
        results = []
        for game in games:
            if not args.no_island:
                host_zygote._read_island(wire.load_line(game[0])["island"])
            results.append(forked(host_zygote, game))
    print(f"{len(games)} games of {SPEC} at {args.size}x{args.size}, each in a fresh fork of a warm host"
          f"{'' if args.no_island else ' that read its island'}; medians")
    print(f"agent loaded, hello answered: {statistics.median(r[0] for r in results) / 1e3:.0f} us")
    print(f"start: {statistics.median(r[1] for r in results) / 1e3:.0f} us")
    print("| action | us | minor faults |")
    print("|---|---|---|")
    for i in range(SHOWN + 1):
        picked = [(t, f) for r in results for k, (t, f) in enumerate(zip(r[2], r[3])) if min(k, SHOWN) == i]
        label = f"{i + 1}" if i < SHOWN else f"{SHOWN + 1} and later"
        print(f"| {label} | {statistics.median(t for t, _ in picked) / 1e3:.0f} | "
              f"{statistics.median(f for _, f in picked):.0f} |")
    every = [t for r in results for t in r[2]]
    print(f"every action: {statistics.median(every) / 1e3:.0f} us")

    if hasattr(os, "sched_setaffinity"):  # one core, as a pool's worker and its agent share one
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    seeds = [task.game_seed for task in tasks]
    in_process(islands, seeds)  # warm
    floor = statistics.median(fork_floor(len(games) * args.rounds))
    game = statistics.median(in_process(islands, seeds) + in_process(islands, seeds))
    print(f"the floor of a fresh process per game (the host forked, its child ending at once, reaped; "
          f"one core): {1e3 * floor:.2f} ms; a whole game of logic in process: {1e3 * game:.2f} ms; "
          f"in a fresh process, at least {(game + floor) / game:.1f}x that")


if __name__ == "__main__":
    main()
