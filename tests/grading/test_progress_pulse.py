"""How far the games in flight are (play/pulse.py), as the tournament's ETA reads it: a worker's game
writes its actions on a shared board, the referee reads it when a game ends."""

from __future__ import annotations

import threading

from helpers import ROOT

from treasure_cli.grading.tournament import run_tournament
from treasure_cli.play import pulse
from treasure_cli.play.bench import BenchOptions
from treasure_cli.play.records import count_actions
from treasure_cli.rules.events import AgentMoved, AreaScanned
from treasure_cli.rules.grid import Direction


def test_a_board_says_the_actions_of_the_game_under_way(monkeypatch):
    for name in ("_board", "_at", "_ticket", "_actions"):  # this process's slot, put back after the test
        monkeypatch.setattr(pulse, name, getattr(pulse, name))
    board = pulse.new_board(2)
    assert pulse.read(board) == []
    pulse.attach(board, 1)
    pulse.ticket(7)
    assert pulse.read(board) == []  # handed over, its agent not yet at hand: not begun
    pulse.began()
    events = [AgentMoved(1, Direction.N, 1, (3, 3), (2, 3)), AreaScanned(1, (2, 3), 3, False),  # a small move
              AreaScanned(2, (2, 3), 5, False), AgentMoved(3, Direction.E, 2, (2, 3), (2, 5))]
    for e in events:
        pulse.acted(e)
    [(ticket, seconds, actions)] = pulse.read(board)
    assert (ticket, actions) == (7, count_actions(events)) == (7, 3)
    assert 0 <= seconds < 60
    pulse.ended()
    assert pulse.read(board) == []
    pulse.ticket(8)
    pulse.began()
    assert [(t, a) for t, _, a in pulse.read(board)] == [(8, 0)]  # the last game's actions are not its


def test_the_tournament_reads_a_game_in_flight_off_its_worker(tmp_path):
    """Two workers: one plays an agent that stops at its second action until told to go on, the
    other an agent whose first game waits until the first one has stopped there, then ends. When it
    ends, the referee reads the stopped game off its worker's board: one action so far."""
    marker, gate = tmp_path / "at-second-action", tmp_path / "gate"
    for name, body in (
            ("stopper", f"        if self.acted == 1 and not os.path.exists({str(gate)!r}):\n"
                        f"            open({str(marker)!r}, 'w').close()\n"
                        f"            while not os.path.exists({str(gate)!r}):\n"
                        "                time.sleep(0.01)\n"),
            ("waiter", f"        while not os.path.exists({str(marker)!r}) and not os.path.exists({str(gate)!r}):\n"
                       "            time.sleep(0.01)\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "agent.py").write_text(
            "import os, time\nfrom treasure_cli.agents.greedy import GreedyAgent\n\n\n"
            "class Agent(GreedyAgent):\n    acted = 0\n\n    def act(self, obs):\n" + body +
            "        self.acted += 1\n        return super().act(obs)\n")
    agents = (f"{tmp_path / 'stopper' / 'agent.py'}:Agent", f"{tmp_path / 'waiter' / 'agent.py'}:Agent")
    maps = sorted((ROOT / "input").glob("MAP_*.txt"))[:1]
    options = BenchOptions(agents=agents, maps=tuple(map(str, maps)), games=2, seed=3, isolation="process")
    seen: list[tuple[str, float, int]] = []

    def flight(games) -> None:
        seen.extend((key[0], seconds, actions) for key, seconds, actions in games)
        if any(agent == agents[0] and actions == 1 for agent, _, actions in seen):
            gate.touch()

    safety = threading.Timer(60, gate.touch)  # never hang: the assertion below says what went wrong
    safety.start()
    try:
        # side by side: on one map `apart` plays one game at a time, and this needs two
        result = run_tournament(options, tmp_path / "r.sqlite", jobs=2, on_flight=flight, apart=False)
    finally:
        safety.cancel()
    assert result.played == 4
    assert [a for agent, seconds, a in seen if agent == agents[0]][:1] == [1], seen
    assert all(agent in agents and seconds >= 0 and actions >= 0 for agent, seconds, actions in seen)
