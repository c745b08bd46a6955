"""How far the games in flight are, as the process that handed them out can see it (the tournament's ETA).

A game's record reaches the referee only when the game ends. An agent 30x slower than the others
may end none of its games in the first tenth of a run: its price is then only a lower bound (the
age of its game in flight), and its games' lengths vary tenfold. What the referee needs is the
agent's time an action, which its game in flight already shows: the actions it has played so far
and the time they took.

A board is a small shared array, one slot a worker: the ticket of the game it plays (a number the
referee chose when it handed the game over; -1: none), when its own time began
(`time.monotonic_ns`, one clock for every process of the machine) and the actions it has played so
far (`records.count_actions`: a small move's scan is part of its move). The worker writes three
integers an action, no lock and no message; the referee reads the board when a game ends. A worker
without a board (a game played in this process, a Dask cluster) writes nothing.
"""

from __future__ import annotations

import time
from typing import Any

from treasure_cli.rules.events import AreaScanned, Event

FIELDS = 3  # a worker's slot: ticket, began (ns), actions
_board: Any = None  # this worker's board (None: nothing to tell)
_at = -1            # where its slot begins
_ticket = -1        # the ticket of the game to play next, until it begins
_actions = 0


def new_board(workers: int) -> Any:
    """A board for `workers` worker processes, every slot empty; it goes to each worker as it starts
    (`attach`, executor.run_tasks)."""
    from multiprocessing import RawArray

    board = RawArray("q", FIELDS * max(1, workers))
    for k in range(0, len(board), FIELDS):
        board[k] = -1
    return board


def attach(board: Any, number: int) -> None:
    """This worker process (the `number`-th the pool started) writes its games' progress on `board`."""
    global _board, _at
    if board is not None and 0 <= number and FIELDS * (number + 1) <= len(board):
        _board, _at = board, FIELDS * number


def ticket(number: int) -> None:
    """The next game this worker begins is the referee's `number` (-1: none it will ask about)."""
    global _ticket
    _ticket = number
    if _board is not None:
        _board[_at] = -1


def began() -> None:
    """The game's own time begins (its agent's process is at hand): no action yet."""
    global _actions
    if _board is None or _ticket < 0:
        return
    _actions = 0
    _board[_at] = -1          # a reader never pairs this game's ticket with the last game's numbers
    _board[_at + 2] = 0
    _board[_at + 1] = time.monotonic_ns()
    _board[_at] = _ticket


def acted(event: Event) -> None:
    """An event of the agent's action (ACTION_EVENTS): count it as `count_actions` does."""
    global _actions
    if _board is None or (type(event) is AreaScanned and event.size != 5):
        return
    _actions += 1
    _board[_at + 2] = _actions


def ended() -> None:
    """The game is over (or never began): the slot is empty again."""
    ticket(-1)


def read(board: Any) -> list[tuple[int, float, int]]:
    """(ticket, seconds since its own time began, actions so far) of each game in flight that has
    begun. A slot being written as it is read is left out (its ticket changed meanwhile)."""
    now = time.monotonic_ns()
    games = []
    for k in range(0, len(board), FIELDS):
        first, began_ns, actions, last = board[k], board[k + 1], board[k + 2], board[k]
        if first >= 0 and first == last:
            games.append((first, max(0.0, (now - began_ns) / 1e9), actions))
    return games

