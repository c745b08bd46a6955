"""FairShare, the tournament's scheduler, on random runs: no game starts on an island that a game of
its agent in flight may have heard of (its island, or that of a game beside it, and so on), no agent
holds more than all the workers but one while others wait, and no worker is kept waiting while a
game may start."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from treasure_cli.grading.tournament import FairShare
from treasure_cli.play.executor import WAIT


def _entries(agents: tuple[str, ...], maps: int, games: int) -> list[SimpleNamespace]:
    # bench's order: map, game index, agent
    return [SimpleNamespace(agent=agent, map_digest=f"m{m}", tiles=1024 if m < 2 else 256, index=i,
                            name=f"{agent}/m{m}/{i}")
            for m in range(maps) for i in range(games) for agent in agents]


def test_an_agent_alone_plays_its_islands_in_passes():
    """One agent, two workers, three islands with two games each: two at a time across the islands,
    then its games in flight end before it starts an island again."""
    share = FairShare(_entries(("a",), 3, 2), 2)
    feed = iter(share)

    def started() -> str:
        task = next(feed)
        return "WAIT" if task is WAIT else task[0][0].name

    assert [started(), started(), started()] == ["a/m0/0", "a/m1/0", "WAIT"]  # both workers busy
    share.ended("a")
    assert [started(), started()] == ["a/m2/0", "WAIT"]  # m0's next game: m0 heard of by the chain
    share.ended("a")
    assert started() == "WAIT"  # a game in flight (on m2, beside m1, beside m0) may know all three
    share.ended("a")  # none in flight: the chain is broken
    assert [started(), started(), started()] == ["a/m0/1", "a/m1/1", "WAIT"]


@pytest.mark.parametrize("seed", range(8))
def test_no_chain_of_an_agents_games_reaches_its_island_again(seed):
    rng = random.Random(seed)
    agents = tuple(f"g{k}" for k in range(rng.randint(1, 6)))
    entries = _entries(agents, rng.randint(1, 5), rng.randint(1, 4))
    workers = rng.randint(2, 6)
    share = FairShare(entries, workers)
    feed = iter(share)
    flight: list[SimpleNamespace] = []  # handed over, not ended (queued at a worker or playing)
    heard: dict[str, set[str]] = {}  # agent -> islands its games in flight may know, worked out here
    handed: list[SimpleNamespace] = []
    while True:
        task = next(feed, None)
        if task is None:
            break
        if task is WAIT:
            assert flight, "WAIT with no game in flight"
            left = [e for e in entries if e not in handed]
            mine = {e.agent for e in flight}
            # a game that may start without breaking a rule is never held back
            assert all(e.map_digest in heard.get(e.agent, set()) or
                       (len(flight) >= workers and sum(f.agent == e.agent for f in flight) >= max(1, workers - 1))
                       for e in left), (left, flight)
            done = flight.pop(rng.randrange(len(flight)))
            share.ended(done.agent)
            if done.agent in mine and not any(f.agent == done.agent for f in flight):
                heard.pop(done.agent, None)
            continue
        entry = task[0][0]
        assert entry.map_digest not in heard.get(entry.agent, set()), f"{entry.name}: its island reached by a chain"
        others_wait = any(e.agent != entry.agent for e in entries if e not in handed and e is not entry)
        if others_wait and len(flight) >= workers:
            assert sum(f.agent == entry.agent for f in flight) < max(1, workers - 1), "more than its share"
        heard.setdefault(entry.agent, set()).add(entry.map_digest)
        flight.append(entry)
        handed.append(entry)
        if len(flight) >= workers or rng.random() < 0.3:
            done = flight.pop(rng.randrange(len(flight)))
            share.ended(done.agent)
            if not any(f.agent == done.agent for f in flight):
                heard.pop(done.agent, None)
    assert sorted(e.name for e in handed) == sorted(e.name for e in entries)  # each game once
