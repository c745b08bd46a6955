"""FairShare, the tournament's scheduler, on random runs: no game starts on an island that a game of
its agent in flight may have heard of (its island, or that of a game beside it, and so on), no agent
holds more than all the workers but one while others wait, and no worker is kept waiting while a
game may start. With `apart` (`tournament`'s default), the chain runs across agents: no game starts on an
island that any game in flight may have heard of."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from treasure_cli.grading.paces import SAMPLED
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


def test_apart_two_agents_games_side_by_side_reach_no_later_game_on_their_island():
    """Two groups that collude: a game of one beside a game of the other may pass it the island's
    treasure, and that game pass it on to the next game of either there. With `apart`, a game on an
    island that any game in flight may know waits for every game in flight to end."""
    share = FairShare(_entries(("a", "b"), 2, 2), 2, apart=True)
    feed = iter(share)

    def started() -> str:
        task = next(feed)
        return "WAIT" if task is WAIT else task[0][0].name

    assert [started(), started(), started()] == ["a/m0/0", "b/m1/0", "WAIT"]  # not b/m0/0 beside a/m0/0
    share.ended("a")
    assert started() == "WAIT"  # b's game on m1 may know m0: a/m1/0 and b/m0/0 wait
    share.ended("b")
    assert [started(), started(), started()] == ["b/m0/0", "a/m1/0", "WAIT"]


@pytest.mark.parametrize("apart", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_no_chain_of_games_reaches_their_island_again(seed, apart):
    """Without `apart`, a chain of an agent's own games; with it, of any games."""
    rng = random.Random(seed)
    agents = tuple(f"g{k}" for k in range(rng.randint(1, 6)))
    entries = _entries(agents, rng.randint(1, 5), rng.randint(1, 4))
    workers = rng.randint(2, 6)
    share = FairShare(entries, workers, apart=apart)
    chain = (lambda agent: "") if apart else (lambda agent: agent)
    feed = iter(share)
    flight: list[SimpleNamespace] = []  # handed over, not ended (queued at a worker or playing)
    heard: dict[str, set[str]] = {}  # chain -> islands its games in flight may know, worked out here
    handed: list[SimpleNamespace] = []

    def end_one() -> None:
        done = flight.pop(rng.randrange(len(flight)))
        share.ended(done.agent)
        if not any(chain(f.agent) == chain(done.agent) for f in flight):
            heard.pop(chain(done.agent), None)

    while True:
        task = next(feed, None)
        if task is None:
            break
        if task is WAIT:
            assert flight, "WAIT with no game in flight"
            left = [e for e in entries if e not in handed]
            # a game that may start without breaking a rule is never held back
            assert all(e.map_digest in heard.get(chain(e.agent), set()) or
                       (len(flight) >= workers and sum(f.agent == e.agent for f in flight) >= max(1, workers - 1))
                       for e in left), (left, flight)
            end_one()
            continue
        entry = task[0][0]
        assert entry.map_digest not in heard.get(chain(entry.agent), set()), f"{entry.name}: its island reached"
        others_wait = any(e.agent != entry.agent for e in entries if e not in handed and e is not entry)
        if others_wait and len(flight) >= workers:
            assert sum(f.agent == entry.agent for f in flight) < max(1, workers - 1), "more than its share"
        heard.setdefault(chain(entry.agent), set()).add(entry.map_digest)
        flight.append(entry)
        handed.append(entry)
        if len(flight) >= workers or rng.random() < 0.3:
            end_one()
    assert sorted(e.name for e in handed) == sorted(e.name for e in entries)  # each game once


def _play(share: FairShare, workers: int, seconds: dict[str, float], told: bool = True,
          events: list[tuple[str, str]] | None = None) -> list[str]:
    """The games in the order they start, as the executor plays them: a game asked for whenever a
    worker is free; at a WAIT, or with every worker busy, the game in flight that ends first ends
    (each agent's games take its `seconds`, told to the share unless `told` is False). `events`
    gets ("start" or "end", the game) in time order."""
    feed, flight, order, clock = iter(share), [], [], 0.0
    events = [] if events is None else events
    while True:
        task = next(feed, None) if len(flight) < workers else WAIT
        if task is None and not flight:
            return order
        if task is None or task is WAIT:
            flight.sort(key=lambda f: f[0])
            clock, done = flight.pop(0)
            share.ended(done.agent, seconds[done.agent] if told else None)
            events.append(("end", done.name))
            continue
        entry = task[0][0]
        flight.append((clock + seconds[entry.agent], entry))
        order.append(entry.name)
        events.append(("start", entry.name))


def test_apart_a_slow_agent_plays_once_the_others_have_nothing_left_to_start():
    """With `apart` a pass lasts its slowest game: an agent whose games take more than SLOW_PACE
    times the median agent's would hold every pass. Once more of its games have ended than SAMPLED
    a worker (its host's start and its cold first game in each left behind), its next ones wait
    while another agent has a game to start; then they play side by side across islands."""
    events: list[tuple[str, str]] = []
    entries = _entries(("a", "b", "s"), 6, 4)
    _play(FairShare(entries, 2, apart=True), 2, {"a": 0.1, "b": 0.1, "s": 3.0}, events=events)
    quick_left = sum(not e.name.startswith("s/") for e in entries)
    ended, late, early = 0, [], 0
    for kind, name in events:
        if kind == "end" and name.startswith("s/"):
            ended += 1
        elif kind == "start":
            quick_left -= not name.startswith("s/")
            if name.startswith("s/") and ended > SAMPLED * 2:
                late.append((name, quick_left))
            early += name.startswith("s/") and quick_left > 0
    assert late and all(left == 0 for _, left in late), late  # none while a quick game was still to start
    assert early > 3 * 2  # but first more than 3 a worker (SAMPLED), beside the others (its price)


@pytest.mark.parametrize(("apart", "pace"), [(True, 0.35), (False, 3.0)])
def test_no_agent_is_put_last_side_by_side_or_within_slow_pace(apart, pace):
    """Agents within SLOW_PACE of the median keep their places, and without `apart` so does a slow
    agent (it holds one worker, not every pass): the order is the one of games of untold length."""
    seconds = {"a": 0.1, "b": 0.1, "s": pace}
    told = _play(FairShare(_entries(("a", "b", "s"), 4, 2), 2, apart=apart), 2, seconds)
    assert told == _play(FairShare(_entries(("a", "b", "s"), 4, 2), 2, apart=apart), 2, seconds, told=False)
