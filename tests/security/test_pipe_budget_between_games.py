"""An exec: program's pipes and sockets: a budget a game, and a count the next game cannot read.

The kernel numbers pipes' and sockets' inodes from one counter for the whole machine, handed to
each CPU 1,024 at a time (`get_next_ino`), and a game sees the numbers its own pipes get
(`fstat`). A Python agent's game makes none (it is sealed: tests/security/test_sealed_python_game.py),
but an exec: program's cannot be sealed (Node.js makes pipes as it starts, the JVM sockets). Such a
game made as many pipes as it liked, whole batches of numbers, and the next game of its agent
read where the count stood: its first pipe came a few numbers after the last game's last one.

Now the game's process 1 counts them (sandbox/seccomp.py, `Budget`): the first BUDGET numbers are
taken, then every pipe or socket is refused (EPERM); and the warm host takes a random count of
numbers, up to SCATTER, before each game (sandbox/seccomp.py, `scatter`). This program makes
pipes until it is refused, in every game, and says the first and last number it got. Through
`treasure tournament` (one worker, the program beside its fair twin), its games took 2,001 numbers
each without the budget, 16 with it; the next game's first pipe came 47 to 103 numbers after the
last game's last one without the draw (the twin's game and the referee between: about the same
each time), 347 to 939 with it.
"""

from __future__ import annotations

import errno
import os
import re
import uuid

import pytest
from helpers import PIPE_NUMBER, ROUTES, cheat_beside_logic, exec_cheat, hidden_maps, probe_on_route, seccomp_answer

from treasure_cli.sandbox import counted, seccomp, warm_host

NAME = "budget_" + uuid.uuid4().hex[:10]  # no other test's agent has this name
NOTIFY, ALLOW = 0x7FC00000, 0x7FFF0000

CHEAT = '''\
import os
import sys


''' + PIPE_NUMBER + '''

first = last = pipe_number()
made, refused = 1, 0
for _ in range(2000):  # two batches of the counter
    try:
        last = pipe_number()
    except OSError as e:
        refused = e.errno
        break
    made += 1
print(f"pipes: first {first} last {last} made {made} refused {refused}", file=sys.stderr, flush=True)
'''


@pytest.mark.parametrize("arch", sorted(seccomp.BUDGETED))
def test_the_budget_filter_hands_over_pipes_and_sockets_alone(arch):
    program = seccomp.budget_program()
    for number in seccomp.BUDGETED[arch]:
        assert seccomp_answer(program, arch, number, 0, 0, 0) == NOTIFY, number
    for number in (0, 1, 3, 59 if arch != 0xC00000B7 else 221):  # read, write, close, execve
        assert seccomp_answer(program, arch, number, 0, 0, 0) == ALLOW, number


def test_a_game_takes_its_budget_of_numbers_and_the_next_cannot_tell_how_many(tmp_path):
    maps, students = hidden_maps(tmp_path, 140), tmp_path / "students"
    students.mkdir()
    twin = exec_cheat(students, NAME, CHEAT)
    cheat, fair = cheat_beside_logic(students, maps, tmp_path / "results.sqlite", NAME, fair=twin)
    games = []
    for r in cheat:  # in the order played: one worker
        said = re.search(r"^pipes: first (\d+) last (\d+) made (\d+) refused (\d+)$", r.output, flags=re.M)
        assert said, r.output[:2000]
        games.append(tuple(int(x) for x in said.groups()))
    assert [(made, refused) for _, _, made, refused in games] == [(seccomp.BUDGET, errno.EPERM)] * len(games), games
    assert {(r.map_digest, r.seed): (r.outcome, r.turns) for r in cheat} == fair


@pytest.mark.parametrize("route", ROUTES[:2])  # the sandbox's ways (`process` is no wall: docs/security.md)
def test_an_exec_programs_game_takes_its_budget_on_each_sandboxed_route(tmp_path, monkeypatch, route):
    for r in probe_on_route(tmp_path, monkeypatch, route, "exec", CHEAT):
        said = re.search(r"^pipes: first \d+ last \d+ made (\d+) refused (\d+)$", r.output, flags=re.M)
        assert said and (int(said[1]), int(said[2])) == (seccomp.BUDGET, errno.EPERM), r.output[:2000]
        assert r.output.count(counted.REFUSED) == 1, r.output[:2000]  # said once, on the game's record
        assert r.outcome == "WIN", (r.outcome, r.error)


def test_the_warm_host_draws_a_count_of_numbers_before_an_exec_programs_game(monkeypatch):
    def pipe_number() -> int:
        r, w = os.pipe()
        number = os.fstat(r).st_ino
        os.close(r)
        os.close(w)
        return number

    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})  # one CPU: its share of the counter alone
    try:
        for drawn in (300, seccomp.SCATTER - 1, 0):
            monkeypatch.setattr(seccomp.os, "urandom", lambda n, drawn=drawn: drawn.to_bytes(2, "little") * (n // 2))
            before = pipe_number()
            seccomp.scatter()
            # (more if another process on this CPU took some; a new batch jumps further on)
            assert pipe_number() - before - 1 >= drawn, drawn
    finally:
        os.sched_setaffinity(0, cpus)


def test_each_game_of_an_exec_program_in_a_jail_is_drawn_for_first(monkeypatch):
    class Drawn(Exception):
        pass

    def draw() -> None:
        raise Drawn

    monkeypatch.setattr(seccomp, "scatter", draw)
    zygote = warm_host.Zygote("", True, None, program=["/bin/true"])  # type: ignore[arg-type]  # (no socket: no game is made)
    with pytest.raises(Drawn):
        zygote._fork()


def test_a_sandbox_per_game_of_an_exec_program_is_drawn_for_before_its_pipes(monkeypatch, tmp_path):
    from treasure_cli.sandbox import launch as agent_launch
    from treasure_cli.sandbox import process as agent_process
    from treasure_cli.sandbox.levels import COUNTED, AgentLimits, unforked

    class Drawn(Exception):
        pass

    def draw() -> None:
        raise Drawn

    program = tmp_path / "agent"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    launch = unforked(agent_launch.agent_launch(f"exec:{program}", "sandbox"))
    assert COUNTED in launch.argv and not launch.forks, launch.argv
    monkeypatch.setattr(seccomp, "scatter", draw)
    with pytest.raises(Drawn):
        agent_process.AgentProcess(launch, AgentLimits(), "agent")
