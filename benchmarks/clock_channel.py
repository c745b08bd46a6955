"""How many bits the wall clock carries from one game of an agent to the next (docs/security.md).

A game chooses when it ends, and the next game of its agent in the same worker starts a few tens
of milliseconds later and can read the clock. This plays that cheat through `treasure tournament`
with its defaults (the sandbox, warm hosts, the store's secret seed), one worker, one agent, and
counts how many of the hand-overs carried their value exactly.

    .venv/bin/python benchmarks/clock_channel.py                          # 16 phases of 250 ms in 4 s
    .venv/bin/python benchmarks/clock_channel.py --period 1 --step 0.5    # the test's one bit
    .venv/bin/python benchmarks/clock_channel.py --period 16 --step 0.125 --games 12
    .venv/bin/python benchmarks/clock_channel.py --others 11 --maps 6 --games 3 --jobs 2   # in a class

The cheat sends `log2(period / step)` bits a game: a value drawn from what its game alone shows (its
starting tile), as the phase of a `period`-second cycle at which it ends. It holds its first answer
to come near the phase (what that costs it: up to `period` seconds of its game, nothing of its
turns), then its answer to `end` (within the referee's 1 s wait for it) to land on it. The next game
reads the phase as its module loads. So the bits a game can carry grow with the wall time it is
willing to waste: about log2(held time / the spread of the gap between games).

With `--others N`, the cheat is one group of a class of N + 1 (the others copies of logic, greedy
and random, in turn) on `--maps` maps, and a hand-over is from the cheat's game that ended last
before the next one started, whatever played between them.
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = [("treasure_cli.agents.logic", "LogicAgent"), ("treasure_cli.agents.greedy", "GreedyAgent"),
         ("treasure_cli.agents.random_agent", "RandomAgent")]

CHEAT = '''\
import sys, time
from treasure_cli.agents.planner import PlanningAgent  # the agent `logic` names
from treasure_cli.sandbox import agent_host

PERIOD, STEP, GAP = {period!r}, {step!r}, {gap!r}
PHASES = round(PERIOD / STEP)
GOT = round(((time.time() - GAP) % PERIOD) / STEP) % PHASES  # what the game before sent
SENT = [None]
_send = agent_host._Host.send


def wait_for(phase, at_most):
    wait = (phase - time.time()) % PERIOD
    if wait <= at_most:
        time.sleep(wait)


def send(self, message):
    if message.get("type") == "ready" and SENT[0] is not None:
        wait_for(SENT[0] * STEP, 0.95)  # within the referee's 1 s wait for `ready`
    _send(self, message)


agent_host._Host.send = send


class Agent:
    def __init__(self):
        self.fair = PlanningAgent()

    def act(self, obs):
        if SENT[0] is None:
            SENT[0] = (obs.position[0] * 31 + obs.position[1]) % PHASES  # this game's alone
            print("GOT", GOT, "SENT", SENT[0], file=sys.stderr, flush=True)
            wait_for(SENT[0] * STEP - 0.6, PERIOD)  # near the phase; `ready` lands on it
        return self.fair.act(obs)
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--period", type=float, default=4.0, help="seconds of the cycle (default 4)")
    parser.add_argument("--step", type=float, default=0.25, help="seconds between two phases (default 0.25)")
    parser.add_argument("--gap", type=float, default=0.075,
                        help="the receiver's guess of the time from one game's end to the next's start")
    parser.add_argument("--games", type=int, default=10, help="games per map and agent")
    parser.add_argument("--others", type=int, default=0, help="fair groups beside the cheat (default 0)")
    parser.add_argument("--maps", type=int, default=1, help="maps (the shipped MAP_01.txt, then generated)")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from treasure_cli.grading.store import Store

    with tempfile.TemporaryDirectory(prefix="clock-channel-") as tmp:
        folder = Path(tmp)
        (folder / "class" / "ticks").mkdir(parents=True)
        (folder / "class" / "ticks" / "agent.py").write_text(
            CHEAT.format(period=args.period, step=args.step, gap=args.gap))
        for i in range(args.others):
            module, cls = KINDS[i % len(KINDS)]
            (folder / "class" / f"fair{i:02d}.py").write_text(
                f"from {module} import {cls}\n\n\nclass Agent({cls}):\n    pass\n")
        (folder / "maps").mkdir()
        shutil.copy(ROOT / "input" / "MAP_01.txt", folder / "maps")
        for i in range(1, args.maps):
            subprocess.run([sys.executable, "-m", "treasure_cli", "generate", "--size", "16", "--seed", str(100 + i),
                            "-o", str(folder / "maps" / f"MAP_G{i:02d}.txt")], check=True, capture_output=True)
        command = ["tournament", "class", "--maps", "maps", "--db", "r.sqlite", "--games", str(args.games),
                   "--jobs", str(args.jobs)]
        print("treasure " + " ".join(command), flush=True)
        played = subprocess.run([sys.executable, "-m", "treasure_cli", *command], cwd=folder,
                                capture_output=True, text=True)
        if played.returncode != 0:
            sys.exit(played.stderr[-3000:])
        with Store(folder / "r.sqlite") as store:
            cheats = [r for r in store.rows() if r.agent.endswith("ticks/agent.py:Agent")]
        rows = sorted((r for r in cheats if r.output.startswith("GOT")), key=lambda r: r.finished_at)
        if len(rows) < len(cheats):
            print(f"{len(cheats) - len(rows)} of the cheat's {len(cheats)} games said nothing:",
                  sorted({(r.outcome, r.reason, r.output[:80]) for r in cheats if r not in rows}))
        said = [r.output.split() for r in rows]
        sent, got = [int(s[3]) for s in said], [int(s[1]) for s in said]
        ended = [datetime.fromisoformat(r.finished_at).timestamp() for r in rows]
        pairs = []  # (the game whose value was there to read, the game that read it)
        for j, r in enumerate(rows):
            before = [i for i in range(j) if ended[i] < ended[j] - r.seconds]
            if before:
                pairs.append((before[-1], j))
        carried = sum(sent[i] == got[j] for i, j in pairs)
        phases = round(args.period / args.step)
        print(f"{phases} phases of {args.step} s in {args.period} s ({math.log2(phases):.1f} bits a game): "
              f"{carried} of {len(pairs)} hand-overs carried their value "
              f"(by chance: 1 in {phases}); wins {sum(r.outcome == 'WIN' for r in rows)} of {len(rows)}")
        if len(pairs) <= 20:
            print("sent", [sent[i] for i, _ in pairs], "\ngot ", [got[j] for _, j in pairs])


if __name__ == "__main__":
    main()
