"""The tournament's ETA (grading/progress.py) on a run at a known pace: a fake clock, agents of very
different speeds, games whose cost grows with the map, played in the tournament's order (largest
maps first), after a few seconds of starting up. After a tenth of the games the estimate is within
30 % of the time the rest takes. (Runs shaped as the real ones measured: test_progress_shapes.py.)"""

from __future__ import annotations

import pytest

from treasure_cli.grading.progress import Estimate, Planned, clock_text, tiles_of

# seconds a game: a fixed part (the agent's process, its first reply) and a part per tile. Measured
# (benchmarks/eta_accuracy.py), a game on a 64x64 map takes 1.3x to 2.8x one on 32x32: the fixed part
# is most of it. (Here 2.1x to 2.7x, and 1.5x to 1.8x from 32x32 to 16x16.)
PACE = {"ann": (0.02, 0.02), "bob": (0.05, 0.06), "carl": (0.3, 0.4)}
SIZES = [64] * 4 + [32] * 8 + [16] * 8  # 20 maps
GAMES = 5
OVERHEAD = 0.004  # wall seconds around each game that no game measures
STARTUP = 3.0     # wall seconds before the first game starts (the workers start, import the game)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def cost(agent: str, tiles: int) -> float:
    fixed, per = PACE[agent]
    return fixed + per * tiles / 1024


def the_run(workers: int) -> list[tuple[str, int]]:
    """Every game in the tournament's order: largest maps first, then map, game, agent."""
    games = [(agent, side * side) for side in SIZES for _ in range(GAMES) for agent in PACE]
    return sorted(games, key=lambda g: -g[1])


@pytest.mark.parametrize("workers", [1, 2])
def test_the_eta_after_a_tenth_of_the_games_is_within_30_percent(workers):
    games = the_run(workers)
    clock = Clock()
    # No `workers`: each game goes to the first free worker here, none held back (as on a Dask
    # cluster, not FairShare: test_progress_shapes.py), so the estimate measures the parallelism.
    estimate = Estimate([Planned(agent, tiles) for agent, tiles in games], clock=clock)
    # `workers` games at once: each worker takes the next game when its own ends.
    free_at = [clock.now + STARTUP] * workers
    ends = []
    for agent, tiles in games:
        k = min(range(workers), key=free_at.__getitem__)
        free_at[k] += cost(agent, tiles) + OVERHEAD
        ends.append((free_at[k], agent, tiles))
    ends.sort()
    finish = ends[-1][0]
    tenth = len(games) // 10
    for end, agent, tiles in ends[:tenth]:
        clock.now = end
        estimate.finished(agent, tiles, cost(agent, tiles), failed=agent == "carl" and tiles == 4096)
    truth = finish - clock.now
    guess = estimate.remaining()
    assert guess is not None and abs(guess - truth) <= 0.3 * truth, (guess, truth)
    # A plain rate (games per second so far) is far off on this run: the test can tell them apart.
    plain = (clock.now - 100.0) * (len(games) - tenth) / tenth
    assert abs(plain - truth) > 0.3 * truth
    assert estimate.line().startswith(f"{tenth} of {len(games)} games · ETA ")
    assert estimate.line().endswith(f"failed: carl {sum(a == 'carl' for _, a, _ in ends[:tenth])}")


def test_the_estimate_before_any_game_and_at_the_end():
    clock = Clock()
    estimate = Estimate([Planned("ann", 256), Planned("bob", 256)], clock=clock)
    assert estimate.remaining() is None and "ETA --:--" in estimate.line()
    clock.now += 2
    estimate.finished("ann", 256, 1.0)
    # bob priced as ann on that size; the second before ann's game began (starting up) is not counted
    assert estimate.remaining() == pytest.approx(1.0)
    estimate.finished("bob", 256, 1.0)
    assert estimate.remaining() == 0.0
    assert clock_text(3725) == "1:02:05" and clock_text(65.4) == "1:05"
    assert tiles_of("48x32") == 1536 and tiles_of("?") == 0


def test_an_agent_that_has_not_ended_a_game_costs_at_least_its_game_in_flight():
    clock = Clock()
    planned = [Planned("fast", 256)] * 10 + [Planned("slow", 256)] * 4
    estimate = Estimate(planned, clock=clock, workers=2)
    estimate.started("fast", 256)
    estimate.started("slow", 256)
    clock.now += 0.1
    estimate.finished("fast", 256, 0.1)  # the first game's end: from here the slow game's age counts
    for _ in range(4):
        estimate.started("fast", 256)
        clock.now += 0.1
        estimate.finished("fast", 256, 0.1)
    clock.now += 9.6  # the slow game has run 10 s since the first game ended, and is not over
    # Priced as the fast agent's games (0.1 s), slow's 4 games would take 0.4 s; it has taken 10 s
    # for one already: its 3 others take 10 s at least each, on the two workers.
    assert estimate.remaining() >= 3 * 10.0 / 2
