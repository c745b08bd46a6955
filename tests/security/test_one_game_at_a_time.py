"""`--jobs 1` plays one game at a time: no two games run side by side, so two groups that collude
have no game of the other's running beside theirs to pass a tile to (docs/security.md, "A class
tournament, safely"). Each agent says the clock's time when its game's process starts and at each
action; no two games' spans may overlap."""

from __future__ import annotations

import textwrap

from click.testing import CliRunner
from helpers import hidden_maps

from treasure_cli.cli import cli
from treasure_cli.grading.store import Store
from treasure_cli.sandbox import process as agent_process

CLOCKED = textwrap.dedent('''\
    import sys
    import time

    from treasure_cli.agents.planner import PlanningAgent


    class Agent(PlanningAgent):
        def __init__(self):
            print("at", time.time_ns(), file=sys.stderr, flush=True)
            super().__init__()

        def act(self, obs):
            print("at", time.time_ns(), file=sys.stderr, flush=True)
            return super().act(obs)
''')


def test_jobs_1_never_plays_two_games_at_once(tmp_path):
    maps, students = hidden_maps(tmp_path, 40), tmp_path / "students"
    students.mkdir()
    for name in ("ann", "bob", "cyd"):
        (students / f"{name}.py").write_text(CLOCKED)
    agent_process.close_all()
    try:
        done = CliRunner().invoke(cli, ["tournament", str(students), "--maps", str(maps), "--games", "2",
                                        "--seed", "3", "--db", str(tmp_path / "r.sqlite"), "--jobs", "1"])
    finally:
        agent_process.close_all()
    assert done.exit_code == 0, done.output
    with Store(tmp_path / "r.sqlite") as s:
        rows = s.rows()
    spans = []
    for r in rows:
        times = [int(line.split()[1]) for line in r.output.splitlines() if line.startswith("at ")]
        assert len(times) >= 2, r.output
        spans.append((min(times), max(times), r.label))
    assert len(spans) == 12
    spans.sort()
    for (_, end, first), (start, _, second) in zip(spans, spans[1:]):
        assert end < start, f"a game of {second} ran while one of {first} did"
