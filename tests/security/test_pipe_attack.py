"""Issue 41's pipe attack, replayed end to end through `treasure tournament` and its defaults.

The attack: every game of an agent in one worker once wrote its standard error to the same
pipe, the warm host's, whose flags, signal and size a game could set and the next game read
back. This agent reads its three descriptors' flags, signal and pipe size at the start of
each game, then writes a marker into each. What it read decides its play: with a marker from
an earlier game it gives up (raises, so the game fails); with none it plays `logic`. Through
a tournament (the sandbox, a warm host per agent and worker, several games in one worker),
no game may read a marker, and every game of the agent must be logic's own game.
"""

from __future__ import annotations

import textwrap
import uuid


from helpers import cheat_beside_logic, hidden_maps


NAME = "pipes_" + uuid.uuid4().hex[:10]  # no other test's agent has this name

CHEAT = textwrap.dedent('''\
    import fcntl
    import os
    import sys

    from treasure_cli.agents.planner import PlanningAgent  # the agent `logic` names

    F_SETSIG, F_GETSIG, F_SETPIPE_SZ, F_GETPIPE_SZ = 10, 11, 1031, 1032
    MARK_FLAGS = os.O_APPEND | fcntl.FASYNC
    MARK_SIGNAL = 28                      # SIGWINCH: ignored, were it ever sent
    MARK_SIZE = 2 * os.sysconf("SC_PAGE_SIZE")  # a fresh pipe holds 16 pages


    def read_channel():
        """What an earlier game left on descriptors 0-2, if anything."""
        found = []
        for fd in (0, 1, 2):
            try:
                if fcntl.fcntl(fd, fcntl.F_GETFL) & MARK_FLAGS:
                    found.append(f"fd {fd} flags")
                if fcntl.fcntl(fd, F_GETSIG) == MARK_SIGNAL:
                    found.append(f"fd {fd} signal")
                if fcntl.fcntl(fd, F_GETPIPE_SZ) == MARK_SIZE:
                    found.append(f"fd {fd} size")
            except OSError:
                pass
        return found


    def write_marker():
        wrote = []
        for fd in (0, 1, 2):
            for name, set_it in (
                    ("flags", lambda: fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | MARK_FLAGS)),
                    ("signal", lambda: fcntl.fcntl(fd, F_SETSIG, MARK_SIGNAL)),
                    ("size", lambda: fcntl.fcntl(fd, F_SETPIPE_SZ, MARK_SIZE))):
                try:
                    set_it()
                    wrote.append(f"fd {fd} {name}")
                except OSError:
                    pass
        return wrote


    class Agent:
        def __init__(self):
            self.saw = read_channel()
            wrote = write_marker()
            print("pipe-attack read", self.saw or "nothing", "wrote", wrote, file=sys.stderr, flush=True)
            self.fair = PlanningAgent()

        def act(self, obs):
            if self.saw:
                raise RuntimeError(f"pipe-attack: an earlier game left a marker: {self.saw}")
            return self.fair.act(obs)
''')


def test_no_game_of_a_tournament_reads_what_an_earlier_one_left_on_its_pipes(tmp_path):
    maps, students = hidden_maps(tmp_path, 60), tmp_path / "students"
    students.mkdir()
    (students / f"{NAME}.py").write_text(CHEAT)
    cheat, fair = cheat_beside_logic(students, maps, tmp_path / "results.sqlite", NAME)
    # Every game wrote its marker (the attack ran) and read none (nothing carried it over)...
    for r in cheat:
        assert "pipe-attack read nothing wrote ['fd 0 flags'" in r.output, (r.outcome, r.error, r.output)
        assert "fd 2 size" in r.output.split(" wrote ")[1], r.output
        assert r.outcome != "failed", (r.error, r.output)
    # ... so each of its games is logic's, turn for turn: the attack bought nothing.
    assert {(r.map_digest, r.seed): (r.outcome, r.turns) for r in cheat} == fair
    assert max(turns for _, turns in fair.values()) > 1  # games long enough for play to tell agents apart
