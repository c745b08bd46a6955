"""A bit carried from one game to the next by the wall clock: open, not fixed (docs/security.md).

Each game of an agent is a fresh process, and nothing it can write survives it. But it chooses
when its game ends, and the next game of its agent in the same worker starts a few tens of
milliseconds later (40 to 110 ms measured on the 2-core machine) and can read the clock. So a
game can end at the phase of the second that encodes a bit, and the next game read it.

The agent here patches its own Python host (the host runs in the agent's process, so its code
is the agent's to change) to hold its `ready` answer to `end` until the wall clock is just past a
whole second (bit 0) or half a second (bit 1), within the referee's 1 s wait for it. Each game
sends the parity of its starting row, which the next game cannot know, and reads the phase of
the second at its start. Through `treasure tournament` with its defaults (the sandbox, warm
hosts, the store's secret seed) and one worker, every one of 9 hand-overs carried its bit.

With four phases of 250 ms it carried two bits a game (20 of 20 hand-overs, the next game's agent
starting 26 to 107 ms after the phase sent, load average 5 to 6). A patient agent carries more:
holding its first answer too, to come near a phase of a longer cycle, it carried 4 bits a game
(16 phases of 250 ms in 4 s) and 7 bits (128 phases of 125 ms in 16 s, about 10 s held a game),
7 of 7 hand-overs each, and in a class of 12 groups with two workers 10 of 14 hand-overs carried
4 bits (benchmarks/clock_channel.py). The bits grow with the time a game is willing to waste:
about log2(the time held / the spread of the gap between games), up to the game's time limit.
No small fix closes it: the end of a game is the agent's to choose (its last answer), and the
clock is the machine's; docs/security.md says what a teacher can do.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from helpers import ROOT

from treasure_cli.grading.store import Store

CHEAT = '''\
import sys, time
from treasure_cli.agents.planner import PlanningAgent  # the agent `logic` names
from treasure_cli.sandbox import agent_host

GOT = int(time.time() % 1.0 >= 0.5)  # the phase of the second in which the game before ended
SENT = [None]
_send = agent_host._Host.send


def send(self, message):
    if message.get("type") == "ready" and SENT[0] is not None:  # end the game at the bit's phase
        now = time.time()
        target = int(now) + 1 + 0.5 * SENT[0] + 0.02
        while target - now > 0.95:  # within the referee's 1 s wait for `ready`
            target -= 1.0
        time.sleep(max(0.0, target - now))
    _send(self, message)


agent_host._Host.send = send


class Agent:
    def __init__(self):
        self.fair = PlanningAgent()

    def act(self, obs):
        if SENT[0] is None:
            SENT[0] = obs.position[0] % 2  # something of this game alone
            print("GOT", GOT, "SENT", SENT[0], file=sys.stderr, flush=True)
        return self.fair.act(obs)
'''

GAMES = 10


@pytest.mark.xfail(strict=True, reason="open: a game chooses when it ends, and the next game of its agent in the "
                                       "worker reads the wall clock (docs/security.md, 'Attacks of the fifth round')")
def test_no_game_reads_a_bit_from_when_the_game_before_it_ended(tmp_path):
    (tmp_path / "class" / "ticks").mkdir(parents=True)
    (tmp_path / "class" / "ticks" / "agent.py").write_text(CHEAT)
    (tmp_path / "maps").mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", tmp_path / "maps")
    db = tmp_path / "r.sqlite"
    played = subprocess.run([sys.executable, "-m", "treasure_cli", "tournament", str(tmp_path / "class"),
                             "--maps", str(tmp_path / "maps"), "--db", str(db), "--games", str(GAMES), "--jobs", "1"],
                            capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr
    with Store(db) as store:
        rows = sorted(store.rows(), key=lambda r: r.finished_at)
    said = [r.output.split() for r in rows]
    assert len(said) == GAMES and all(s[0] == "GOT" and s[2] == "SENT" for s in said), said
    sent, got = [s[3] for s in said], [s[1] for s in said]
    carried = sum(sent[i] == got[i + 1] for i in range(GAMES - 1))
    # Without a channel each hand-over agrees by chance (1 in 2): 8 or 9 of 9 has odds of 2 %.
    assert carried <= GAMES - 3, f"{carried} of {GAMES - 1} bits carried to the next game: sent {sent}, got {got}"
