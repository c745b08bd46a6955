"""Hostile agents, as a student with bad intentions would write them.

Each is made from an attack and the fair `logic` agent: the attack runs at the
first action (and may try again later); when it finds the treasure the agent
goes and takes it and says CHEATED on its standard error. Where the attack
fails, the agent plays exactly as `logic` does, so its games must be logic's
games, turn for turn: a cheat that wins no more often than a fair agent would.
Others simply misbehave (crash, hang, flood) and must fail their own games only.
"""

from __future__ import annotations

TEMPLATE = '''
import os, sys, signal, socket, time, gc
from treasure_cli import LargeScan, Teleport, Move, Direction
from treasure_cli.agents.planner import PlanningAgent  # the agent `logic` names

CONFIG = {config!r}


def attack(obs):
{attack}


class Agent:
    def __init__(self):
        self.fair = PlanningAgent()
        self.treasure = None
        self.tried = False

    def act(self, obs):
        if not self.tried:
            self.tried = True
            found = attack(obs)
            if isinstance(found, tuple) and len(found) == 2:
                self.treasure = (int(found[0]), int(found[1]))
                print("CHEATED", self.treasure, file=sys.stderr)
        if self.treasure is not None:
            if obs.position != self.treasure and not obs.teleport_used:
                return Teleport(self.treasure)
            return LargeScan()
        return self.fair.act(obs)
'''


def _indent(code: str) -> str:
    return "\n".join("    " + line for line in code.strip("\n").splitlines())


# name -> the body of attack(obs): return the treasure's (row, col) if it was found.
CHEATS = {
    # Walk up the Python stack to the referee's game object (it used to be there).
    "stack_peek": """
f = sys._getframe()
while f is not None:
    for value in list(f.f_locals.values()):
        for owner in (value, getattr(value, "game", None)):
            treasure = getattr(owner, "treasure", None)
            if isinstance(treasure, tuple):
                return treasure
    f = f.f_back
""",
    # Search the heap for any object that knows the treasure of this island (a Game, the true Island).
    "gc_peek": """
import numpy
for o in gc.get_objects():
    try:  # some objects (ctypes libraries) do things when asked
        treasure = getattr(o, "treasure", None)
        regions = getattr(o, "regions", None)
        if regions is None:
            regions = getattr(getattr(o, "island", None), "regions", None)
    except Exception:
        continue
    if isinstance(treasure, tuple) and len(treasure) == 2 and isinstance(regions, numpy.ndarray) \\
            and numpy.array_equal(regions, obs.island.regions):
        return treasure
""",
    # Read the hidden map files and find the one being played: its treasure is on line 5.
    "read_maps": """
import numpy
from treasure_cli import read_map
for folder in CONFIG["maps"]:
    try:
        for name in sorted(os.listdir(folder)):
            island = read_map(os.path.join(folder, name))
            if numpy.array_equal(island.regions, obs.island.regions):
                return island.treasure
    except Exception as exc:
        print("read_maps failed:", exc, file=sys.stderr)
""",
    # Patch the rules in its own process: every scan "finds" the treasure.
    # Remember where the last game on this island ended: after a win, its last scan covered the
    # treasure. A process that played on from one game to the next kept this in its globals.
    "remember": """
import treasure_cli.agents.logic as logic
memory = sys.modules[__name__].__dict__.setdefault("MEMORY", {})
key = obs.island.regions.tobytes()
if not getattr(logic.LogicAgent, "spied", False):
    fair_act = logic.LogicAgent.act
    def spy(self, seen):
        action = fair_act(self, seen)
        if isinstance(action, LargeScan):
            memory[seen.island.regions.tobytes()] = seen.position
        return action
    logic.LogicAgent.act, logic.LogicAgent.spied = spy, True
return memory.get(key)
""",
    "patch_engine": """
import treasure_cli.rules.actions as actions
import treasure_cli.rules.game as game
actions.in_scan = lambda *a: True
game.in_scan = lambda *a: True
""",
}

# name -> the body of attack(obs) for agents that misbehave rather than cheat.
VANDALS = {
    # Write into the results store, the maps, the output folder and the home folder.
    "tamper": """
import sqlite3
for path in CONFIG["files"]:
    try:
        with open(path, "a") as f:
            f.write("tampered\\n")
    except Exception as exc:
        print("tamper failed:", path, exc, file=sys.stderr)
try:
    db = sqlite3.connect(CONFIG["store"])
    db.execute("DELETE FROM games")
    db.commit()
except Exception as exc:
    print("store failed:", exc, file=sys.stderr)
for folder in CONFIG["folders"]:
    try:
        open(os.path.join(folder, "planted.txt"), "w").write("x")
    except Exception as exc:
        print("plant failed:", folder, exc, file=sys.stderr)
""",
    # Phone home. A Python agent's game is sealed, so its socket() fails (EPERM) before any
    # namespace is reached; the namespaces behind the seal are tried by an exec program on each
    # route in tests/sandbox/test_wall_layers.py (test_an_exec_program_reaches_no_network).
    "network": """
try:
    socket.create_connection(("127.0.0.1", CONFIG["port"]), timeout=2).sendall(b"the treasure")
    print("CONNECTED", file=sys.stderr)
except OSError as exc:
    print("network failed:", exc, file=sys.stderr)
""",
    # Leave a process running after its game: a sleep in a session of its own (posix_spawn: a
    # Python agent's game makes no pipe, so subprocess fails there), and a fork that leaves too.
    "leave_child": """
os.posix_spawnp("sleep", ["sleep", CONFIG["sleep"]], os.environ, setsid=True)
if os.fork() == 0:
    os.setsid()
    time.sleep(300)
    os._exit(0)
""",
    # Kill the referee (its parent) and every process it can signal.
    "kill_parent": """
for pid in (os.getppid(), 1):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError as exc:
        print("kill failed:", pid, exc, file=sys.stderr)
try:
    os.kill(-1, signal.SIGKILL)
except OSError as exc:
    print("kill -1 failed:", exc, file=sys.stderr)
""",
    # Take all the memory there is.
    "memory_bomb": """
hoard = []
while True:
    hoard.append(bytearray(64 << 20))
""",
    # Start processes without end (bounded here at 2,000).
    "fork_bomb": """
children = 0
try:
    for _ in range(2000):
        if os.fork() == 0:
            time.sleep(300)
            os._exit(0)
        children += 1
except OSError as exc:
    print("fork stopped after", children, exc, file=sys.stderr)
raise RuntimeError(f"forked {children}")
""",
    # Write garbage where the protocol's answers go.
    "garbage": """
for fd in range(1, 10):
    try:
        os.write(fd, b"garbage, not JSON\\n")
    except OSError:
        pass
""",
    # Close its own standard input.
    "close_stdin": """
os.close(0)
""",
    # Ignore SIGTERM and never answer.
    "ignore_sigterm": """
signal.signal(signal.SIGTERM, signal.SIG_IGN)
while True:
    pass
""",
    # Print a lot: it must stay out of --json and be kept, cut, with the game.
    "chatty": """
for i in range(5000):
    print("chatty line", i)
""",
}


def write_agent(path, attack: str, config: dict) -> str:
    """Write the hostile agent of `attack` (the body of attack(obs)) to `path`; its spec."""
    path.write_text(TEMPLATE.format(config=config, attack=_indent(attack)))
    return f"{path}:Agent"


def write_agents(folder, config: dict, tag: str = "") -> dict[str, str]:
    """Write every hostile agent into `folder` (as NAME{tag}.py: a tag of the test's own finds its
    processes by their command line); name -> its spec."""
    return {name: write_agent(folder / f"{name}{tag}.py", body, config)
            for name, body in {**CHEATS, **VANDALS}.items()}
