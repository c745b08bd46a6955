"""Games side by side pass nothing on to a later game on their island (docs/security.md, "A class
tournament, safely"): `--jobs 1` plays one game at a time; with more workers, a game starts only
once every game that may have heard of its island has ended, of any group (the default, `--apart`),
or of its own group (`--side-by-side`). Each agent says the clock's time when its game's process starts and at each
action."""

from __future__ import annotations

import textwrap

import pytest
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


def _tournament(tmp_path, students: dict[str, str], games: int, jobs: int, *more: str) -> list:
    """The rows of `treasure tournament` of `students` (name -> source) on two hidden maps."""
    maps, folder = hidden_maps(tmp_path, 40), tmp_path / "students"
    folder.mkdir()
    for name, source in students.items():
        (folder / f"{name}.py").write_text(source)
    agent_process.close_all()
    try:
        done = CliRunner().invoke(cli, ["tournament", str(folder), "--maps", str(maps), "--games", str(games),
                                        "--seed", "3", "--db", str(tmp_path / "r.sqlite"), "--jobs", str(jobs), *more])
    finally:
        agent_process.close_all()
    assert done.exit_code == 0, done.output
    with Store(tmp_path / "r.sqlite") as s:
        return s.rows()


def test_jobs_1_never_plays_two_games_at_once(tmp_path):
    rows = _tournament(tmp_path, {"ann": CLOCKED, "bob": CLOCKED, "cyd": CLOCKED}, games=2, jobs=1)
    spans = []
    for r in rows:
        times = [int(line.split()[1]) for line in r.output.splitlines() if line.startswith("at ")]
        assert len(times) >= 2, r.output
        spans.append((min(times), max(times), r.label))
    assert len(spans) == 12
    spans.sort()
    for (_, end, first), (start, _, second) in zip(spans, spans[1:]):
        assert end < start, f"a game of {second} ran while one of {first} did"


SLOW = CLOCKED.replace("        return super().act(obs)", "        time.sleep(0.03)\n        return super().act(obs)")


def test_side_by_side_no_chain_of_an_agents_games_reaches_a_later_game_on_its_island(tmp_path):
    """`--side-by-side`, with `--jobs 2`: an agent's games may run two at a time, but a
    game on an island starts only once every game of its agent that may have heard of that island
    (a game of it there, or beside one, or beside one beside one...) has ended: between any two
    games of an agent on one island, there is a moment with no game of that agent running. The slow
    agent's games are what is left at the end; before, its second game on an island started while
    its game beside the first was still running."""
    assert "sleep" in SLOW
    # Whether two of an agent's games overlap is the machine's timing: on a loaded machine one run
    # had none (nothing to check). Every run's chains are checked; up to three runs until one has.
    for run in range(3):
        if _side_by_side_chains(tmp_path / f"run{run}"):
            return
    raise AssertionError("no two games of one agent ran at once in three runs: the test saw no chain to break")


def _side_by_side_chains(tmp_path) -> int:
    """Plays the test's tournament, checks every chain, and returns how often two games of one
    agent ran at once."""
    tmp_path.mkdir()
    rows = _tournament(tmp_path, {"ann": CLOCKED, "bob": CLOCKED, "slow": SLOW}, 3, 2, "--side-by-side")
    games: dict[str, list[tuple[int, int, str]]] = {}  # agent -> (first, last clock time, island)
    for r in rows:
        times = [int(line.split()[1]) for line in r.output.splitlines() if line.startswith("at ")]
        assert len(times) >= 2, r.output
        games.setdefault(r.label, []).append((min(times), max(times), r.map_digest))
    assert sorted(len(g) for g in games.values()) == [6, 6, 6]
    every = sorted((start, end) for g in games.values() for start, end, _ in g)
    if not any(end > start for (_, end), (start, _) in zip(every, every[1:])):
        return 0  # no two games ran at once
    side_by_side = 0
    for label, own in games.items():
        own.sort()
        side_by_side += sum(end > start for (_, end, _), (start, _, _) in zip(own, own[1:]))
        for i, (first, _, island) in enumerate(own):
            for later, _, there in own[i + 1:]:
                if there != island:
                    continue
                # some moment in [first, later] with none of the agent's games running
                reach = first
                for start, end, _ in own:
                    if start <= reach < end:
                        reach = end  # a game running at `reach` carries the chain on to its end
                assert reach < later, f"a chain of {label}'s games side by side ran from one game on an island to the next"
    return side_by_side


@pytest.mark.parametrize("flags", [(), ("--apart",)], ids=["default", "apart"])
def test_apart_no_chain_of_games_side_by_side_reaches_a_later_game_on_their_island(tmp_path, flags):
    """By default (`--apart`): a game on an island starts only once every game that may have heard of
    that island has ended, whatever its group (a game there, or one beside it, or one beside one
    beside it...): between any two games on one island there is a moment with no game running, so two
    groups that collude cannot pass a tile along their games side by side. With `--side-by-side` (the
    default before), a game of `bob` starts on an island while a game of `ann` there still runs."""
    rows = _tournament(tmp_path, {"ann": CLOCKED, "bob": CLOCKED, "slow": SLOW}, 3, 2, *flags)
    games: list[tuple[int, int, str, str]] = []  # (first, last clock time, island, agent)
    for r in rows:
        times = [int(line.split()[1]) for line in r.output.splitlines() if line.startswith("at ")]
        assert len(times) >= 2, r.output
        games.append((min(times), max(times), r.map_digest, r.label))
    assert len(games) == 18
    games.sort()
    assert any(end > start for (_, end, _, _), (start, _, _, _) in zip(games, games[1:])), "no two games ran at once"
    for i, (first, _, island, label) in enumerate(games):
        for later, _, there, other in games[i + 1:]:
            if there != island:
                continue
            reach = first  # some moment in [first, later] with no game running
            for start, end, _, _ in games:
                if start <= reach < end:
                    reach = end  # a game running at `reach` carries the chain on to its end
            assert reach < later, f"a chain of games side by side ran from {label}'s game on an island to {other}'s"
